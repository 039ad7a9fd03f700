/**
 * The actors every ask flow provides the same way (machines/ask/ask-flow.ts): choosing the AI provider,
 * recalling the conversation, summarising a large context and answering (a model streams; the
 * built-in provider renders from the results). What differs per flow (the cloud question, a cluster,
 * a report, a talk session) is given to the factories here or provided in their place.
 */
import { fromPromise } from 'xstate';
import { ConversationHistory } from '../../engine/producers/ai/history.js';
import type { AiProvider, ChatMessage } from '../../engine/producers/ai/provider.js';
import { profileForCommand, resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { AiNotConfiguredError } from '../../engine/producers/ai/errors.js';
import { PROVIDERS } from '../../engine/providers/index.js';
import { summariseContext, type SummariseResult } from '../../engine/producers/ai/summarise.js';
// The built-in answers of gpucloud and cloud_a: their joint answerer registers itself (it loads when an answer is looked up).
import '../../engine/producers/planner/answer-capability.js';
import {
  answerUserMessage,
  type AnswerInput,
  type AskActors,
  type AskContext,
  type Answered,
  type ChooseModelInput,
  type PromptSizes,
  type RecallInput,
  type SummariseInput,
} from './ask-flow.js';

/** The context signal and the actor's own (stopped when the flow leaves its state): either ends the work. */
export function actorSignal(context: AskContext, own: AbortSignal): AbortSignal {
  return context.signal ? AbortSignal.any([context.signal, own]) : own;
}

/** The AI provider of the context's choice (`--ai-profile`, model and key flags, config, env). */
export const chooseModelActor: AskActors['chooseModel'] = fromPromise<AiProvider, ChooseModelInput>(async ({ input }) => {
  const { context } = input;
  const { config } = context.backend;
  const profileName = profileForCommand(context.ai?.profile, context.sandbox, config.ai);
  const resolve = (name: string | undefined) =>
    resolveAiProvider({
      aiConfig: config.ai,
      profileName: name,
      modelOverrides: context.ai?.modelOverrides,
      keyFlags: context.ai?.keyFlags,
      env: context.env,
      policy: context.ai?.policy,
      debug: (line) => input.notify({ type: 'ask.debug', line }),
      sandbox: context.sandbox,
    });
  try {
    return resolve(profileName);
  } catch (err) {
    // A model or key asked for by flag (--model, --openai-api-key-env) is a model wanted: its error stands.
    const modelAsked = Object.values(context.ai?.modelOverrides ?? {}).some(Boolean) || Object.values(context.ai?.keyFlags ?? {}).some(Boolean);
    if (!(err instanceof AiNotConfiguredError) || !context.ai?.builtinWhenUnconfigured || modelAsked || !builtinInstead(input.route.providers, profileName, config.ai)) throw err;
    // Nothing configured and every provider asked about has built-in answers: they answer (exact or a
    // decline), and the person is told once where a model would come from.
    input.notify({ type: 'ask.notice', text: BUILTIN_NOTICE });
    return resolve('builtin');
  }
});

/** The one line said when the built-in answers stand in for a model nobody configured. */
export const BUILTIN_NOTICE = 'notice: no AI provider is configured, so the built-in answers reply (exact figures or a decline); configure one for free-form questions (docs/ask.md)';

/**
 * Whether the built-in answers stand in for a missing model: no profile chosen, no `ai:` configured,
 * and every routed provider has built-in answers (the manifest says so without loading it).
 */
function builtinInstead(providers: readonly string[], profileName: string | undefined, ai: { default_provider?: string; providers?: Record<string, unknown> } | undefined): boolean {
  if (profileName || ai?.default_provider || Object.keys(ai?.providers ?? {}).length) return false;
  const answerers = PROVIDERS.namesWith('answer');
  return providers.length > 0 && providers.every((p) => answerers.includes(p));
}

/** Where a conversation is kept: `~/.assistant/history/<profile>-<project hash>.json`. */
export function conversationOf(context: AskContext, profile: string, project: string): ConversationHistory {
  return new ConversationHistory(context.home, profile, project);
}

/**
 * Earlier turns from the history file of `project` (per AI profile); none with the built-in provider
 * or without history. `--new-conversation` forgets them first.
 */
export function historyRecall(project: (input: RecallInput) => string): AskActors['recall'] {
  return fromPromise<ChatMessage[], RecallInput>(async ({ input }) => {
    if (!input.history || input.provider.name === 'builtin') return [];
    const history = conversationOf(input.context, input.provider.profile, project(input));
    if (input.newConversation) history.clear();
    return history.messages();
  });
}

/** Earlier turns kept by the caller (a talk session, a box request), chosen once the provider (and so its model) is known. */
export function recallFrom(turns: (provider: AiProvider) => ChatMessage[]): AskActors['recall'] {
  return fromPromise<ChatMessage[], RecallInput>(async ({ input }) => turns(input.provider));
}

/** Chunked summarisation when the context would exceed ai.max_prompt_chars; progress per chunk. */
export const summariseActor: AskActors['summarise'] = fromPromise<SummariseResult, SummariseInput>(async ({ input, signal }) =>
  summariseContext({
    provider: input.provider,
    question: input.question,
    records: input.records,
    ai: input.context.backend.config.ai,
    overheadChars: input.overheadChars,
    signal: actorSignal(input.context, signal),
    onProgress: (e) => input.notify({ type: 'ask.progress', text: `summarising part ${e.part} of ${e.of} (chunk ${e.chunkIndex + 1} of ${e.total})` }),
  }),
);

/**
 * The answer. With a model: the prompt (system, earlier turns, data and question) streams back token by
 * token. With the built-in provider: `builtin` renders it from the results, no model asked.
 */
export function answerActor(builtin: (input: AnswerInput) => string | Promise<string>): AskActors['answer'] {
  return fromPromise<Answered, AnswerInput>(async ({ input, signal }) => {
    const { provider, history, prompt, question, data } = input;
    if (provider.name === 'builtin') {
      const answer = await builtin(input);
      input.notify({ type: 'ask.token', text: answer });
      return { answer, sizes: { system: 0, context: data.length, question: question.length, history: 0, historyTurns: 0, total: 0 } };
    }
    const user = answerUserMessage(question, data, prompt.label);
    const historyChars = history.reduce((n, m) => n + m.content.length, 0);
    const sizes: PromptSizes = {
      system: prompt.system.length,
      context: data.length,
      question: question.length,
      history: historyChars,
      historyTurns: history.filter((m) => m.role === 'user').length,
      total: prompt.system.length + historyChars + user.length,
    };
    const res = await provider.chat({
      system: prompt.system,
      messages: [...history, { role: 'user', content: user }],
      stream: true,
      onToken: (text) => input.notify({ type: 'ask.token', text }),
      signal: actorSignal(input.context, signal),
      temperature: 0.2,
    });
    return { answer: res.text, model: res.model || provider.model || undefined, sizes };
  });
}
