/**
 * The ask tool's bridge to the ask flow (machines/ask/ask.ts), the same one `assistant ask` runs.
 * Agents keep their own conversation, so the server does not mix their turns into a shared history.
 * The flow's phases and summarising progress become MCP progress notifications (for a client that
 * sent a progressToken).
 */
import { askQuestion, type AskObserver } from '../machines/ask/ask.js';
import type { McpBackend } from './backend.js';
import type { ProgressFn } from './progress.js';

/** The phases in order: the progress value of each (of PHASES.length). */
const PHASES: Record<string, { step: number; text: string }> = {
  routing: { step: 0, text: 'routing the question' },
  gatheringContext: { step: 1, text: 'reading the cloud' },
  summarising: { step: 2, text: 'summarising a large context' },
  answering: { step: 3, text: 'writing the answer' },
  done: { step: 4, text: 'answered' },
};
const STEPS = 4;

/** The MCP server's one observer of an ask: progress notifications, nothing else (the answer is the tool result). */
export function mcpAskObserver(progress: ProgressFn): AskObserver {
  let step = 0;
  return (event) => {
    if (event.type === 'ask.phase') {
      const phase = PHASES[event.to];
      if (!phase) return;
      step = phase.step;
      progress(step, STEPS, phase.text);
    } else if (event.type === 'ask.progress') {
      progress(step, STEPS, event.text);
    }
  };
}

export async function askForTool(backend: McpBackend, question: string, signal: AbortSignal, progress: ProgressFn = () => undefined) {
  const result = await askQuestion(
    { question, history: false, context: { backend, home: backend.home, env: backend.env, signal, sandbox: backend.sandbox, ai: { profile: backend.aiProfile } } },
    { observe: mcpAskObserver(progress) },
  );
  return {
    text: result.answer.endsWith('\n') ? result.answer : `${result.answer}\n`,
    structured: { answer: result.answer, providers: result.route.providers, ai_provider: result.provider, model: result.model, summarised: result.summarised },
  };
}
