/**
 * The ask tool's bridge to the ask flow (machines/ask.ts), the same one `assistant ask` runs.
 * Agents keep their own conversation, so the server does not mix their turns into a shared history.
 */
import { askQuestion } from '../machines/ask.js';
import type { McpBackend } from './backend.js';

export async function askForTool(backend: McpBackend, question: string, signal: AbortSignal) {
  const result = await askQuestion({ question, backend, home: backend.home, env: backend.env, sandbox: backend.sandbox, aiProfile: backend.aiProfile, history: false, signal });
  return {
    text: result.answer.endsWith('\n') ? result.answer : `${result.answer}\n`,
    structured: { answer: result.answer, providers: result.route.providers, ai_provider: result.provider, model: result.model, summarised: result.summarised },
  };
}
