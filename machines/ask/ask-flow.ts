/**
 * The ask flow as explicit states, its work done by actors the caller provides (issue 23, item 3):
 *
 *   routing (route → chooseModel → recall) → gatheringContext (readContext) → [summarising] → answering → done
 *        ↘                                          ↘                             ↘             ↘
 *                                                 failed
 *
 * The machine names its actors and holds only placeholders: a caller provides them with
 * `askFlowMachine.provide({ actors })` (machines/ask/ask-actors.ts has the common ones, machines/ask/ask.ts the
 * cloud question, machines/k8s/k8s-ask.ts a cluster, tests their own). Its input is data only: the question,
 * the chosen providers and one context object (backend and config, env, home, signal, AI choice).
 *
 * It tells what happens as one typed event stream (`emit`): `ask.phase`, `ask.progress`, `ask.token`,
 * `ask.debug`, `ask.answer`, `ask.failed`, consumed by one observer per caller (runAskFlow). Actors
 * report progress, tokens and debug lines by sending them to the machine, which re-emits them in order
 * with its own phases. The context signal aborting ends the flow in `failed`, whatever an actor does.
 */
import { assign, emit, enqueueActions, setup, type PromiseActorLogic } from 'xstate';
import type { Config } from '../../schemas/config.js';
import type { AiCallPolicy, AiProvider, ChatMessage } from '../../engine/producers/ai/provider.js';
import type { ContextResult } from '../../engine/core/capabilities.js';
import { recordsFromResults } from '../../engine/producers/ai/chunking.js';
import type { SummariseResult } from '../../engine/producers/ai/summarise.js';
import type { RouteDecision } from '../../engine/core/routing/route.js';
import { createRedactingStream, maskSecretsInText } from '../../engine/core/redact.js';
import { AI_DEFAULTS } from '../../schemas/config.js';
import type { PlanBackend } from '../run/run-plan.js';
import { actorInput, driveFlow, heardNotice, placeholderActor } from './flow-driver.js';
import { endStates, routingState } from './flow-states.js';

export type { ContextResult };

/** A plan backend (a command's Session, the MCP server's backend) plus the config the flow reads. */
export interface AskBackend extends PlanBackend {
  config: Config;
}

/** Which AI answers: `--ai-profile`, the `--<provider>-model` and `--<provider>-api-key` flags, the call policy. */
export interface AskAiChoice {
  /** `--ai-profile`; 'builtin' answers without a model. */
  profile?: string;
  /** From the `--<provider>-model` flags, keyed by provider value. */
  modelOverrides?: Record<string, string | undefined>;
  /** Provider-specific key flags (`--<provider>-api-key`), keyed by provider value; first in the key order of SPEC 2.5. */
  keyFlags?: Record<string, string | undefined>;
  /** Overrides of the AI call policy (timeouts, 429 budget). */
  policy?: Partial<AiCallPolicy>;
  /**
   * With nothing configured, the built-in answers reply (with an `ask.notice`) instead of `ai_not_configured`:
   * set by the CLI (`ask`, `talk`), where a person reads the notice; not by MCP, whose caller asked for a model.
   */
  builtinWhenUnconfigured?: boolean;
}

/** Everything around a question that is not the question: where to read, who answers, when to stop. */
export interface AskContext {
  backend: AskBackend;
  home: string;
  env: Record<string, string | undefined>;
  /** The one deadline: every read, AI call and the flow itself end when it aborts. */
  signal?: AbortSignal;
  /** Sandbox with no ai.default_provider → the built-in provider. */
  sandbox?: boolean;
  ai?: AskAiChoice;
}

/** The flow's input: data only, no callbacks. */
export interface AskFlowInput {
  question: string;
  /** Provider flags (`--gpucloud`, `--cloud-a`, …); none: inferred from the question. */
  providers?: string[];
  /** Read and write the conversation history (default true). */
  history?: boolean;
  /** Forget the earlier turns with this provider and project before asking. */
  newConversation?: boolean;
  context: AskContext;
}

export type AskPhase = 'routing' | 'gatheringContext' | 'summarising' | 'answering' | 'done' | 'failed';

/** What the flow tells its observer, in the order it happens. */
export type AskEvent =
  | { type: 'ask.phase'; from: AskPhase | 'start'; to: AskPhase }
  /** "summarising part 2 of 6 (chunk 3 of 40)". */
  | { type: 'ask.progress'; text: string }
  /** One line the person should see once (on stderr), not a passing phase: "no AI provider is configured, …". */
  | { type: 'ask.notice'; text: string }
  /** A piece of the answer as it streams (redacted; a few words are held back so a split secret is still caught). */
  | { type: 'ask.token'; text: string }
  /** A diagnostic line (prompt sizes, provider); never prompt contents; redacted. */
  | { type: 'ask.debug'; line: string }
  | { type: 'ask.answer'; output: AskFlowOutput }
  | { type: 'ask.failed'; error: unknown };

/** One observer per caller: the CLI's spinner and debug lines, MCP progress notifications, talk's and box's turns. */
export type AskObserver = (event: AskEvent) => void;

/** What an actor may tell the flow while it works; the machine re-emits it to the observer. */
export type AskNotice = Extract<AskEvent, { type: 'ask.progress' | 'ask.notice' | 'ask.token' | 'ask.debug' }>;
export type AskNotify = (notice: AskNotice) => void;

/** How the data is introduced to a model: the system prompt and the label of `Data from <label> (fetched …)`. */
export interface AskPrompt {
  system: string;
  label: string;
}

export interface PromptSizes {
  system: number;
  context: number;
  question: number;
  history: number;
  historyTurns: number;
  /** All characters sent with the answering request. */
  total: number;
}

/** What every actor gets: the question, the context object, and a way to tell the flow what it is doing. */
export interface AskActorInput {
  question: string;
  context: AskContext;
  notify: AskNotify;
}
export interface RouteInput extends AskActorInput {
  providers?: string[];
}
export interface Routed {
  route: RouteDecision;
  prompt: AskPrompt;
}
export interface ChooseModelInput extends AskActorInput {
  route: RouteDecision;
}
export interface RecallInput extends AskActorInput {
  route: RouteDecision;
  provider: AiProvider;
  history: boolean;
  newConversation: boolean;
}
export interface ReadContextInput extends AskActorInput {
  route: RouteDecision;
}
export interface ContextRead {
  results: ContextResult[];
  /** What was read, for --debug (`instances, balance`, `a report`, `cluster x, all namespaces`). */
  read: string;
}
export interface SummariseInput extends AskActorInput {
  provider: AiProvider;
  records: string[];
  /** Characters of everything around the context in the answering prompt. */
  overheadChars: number;
}
export interface AnswerInput extends AskActorInput {
  route: RouteDecision;
  provider: AiProvider;
  prompt: AskPrompt;
  results: ContextResult[];
  /** What goes into the prompt: the records, or their summary. */
  data: string;
  /** Earlier turns, oldest first. */
  history: ChatMessage[];
}
export interface Answered {
  answer: string;
  model?: string;
  sizes: PromptSizes;
}

/** The actors the machine invokes; every one is provided by the caller. */
export interface AskActors {
  /** Where the question goes (throws for a question this build cannot answer) and how its data is introduced. */
  route: PromiseActorLogic<Routed, RouteInput>;
  /** The AI provider, resolved after routing so a question about another cloud fails before any key is looked for. */
  chooseModel: PromiseActorLogic<AiProvider, ChooseModelInput>;
  /** Earlier turns of the conversation (already redacted), oldest first. */
  recall: PromiseActorLogic<ChatMessage[], RecallInput>;
  /** The context reads (a read-only plan through the executor, or a report). */
  readContext: PromiseActorLogic<ContextRead, ReadContextInput>;
  /** Condenses a context larger than ai.max_prompt_chars. */
  summarise: PromiseActorLogic<SummariseResult, SummariseInput>;
  /** The answer: streamed from a model, or rendered from the results without one. */
  answer: PromiseActorLogic<Answered, AnswerInput>;
}

export interface AskFlowOutput {
  answer: string;
  route: RouteDecision;
  provider: string;
  /** The AI profile the provider came from. */
  profile?: string;
  model?: string;
  summarised: boolean;
  /** Characters of the fetched context before any summarisation. */
  contextChars: number;
  /** Characters of the answering prompt (system, history, context and question). */
  promptChars: number;
  sizes: PromptSizes;
  /** Chat calls made for summarisation. */
  summaryCalls: number;
  /** What was read (ContextRead.read). */
  read: string;
}

interface FlowContext {
  input: AskFlowInput;
  phase: AskPhase | 'start';
  route?: RouteDecision;
  prompt: AskPrompt;
  provider?: AiProvider;
  history: ChatMessage[];
  results: ContextResult[];
  read: string;
  records: string[];
  data: string;
  contextChars: number;
  summarised: boolean;
  summaryCalls: number;
  answer?: string;
  model?: string;
  sizes?: PromptSizes;
  error?: unknown;
}

type FlowEvent = AskNotice | { type: 'ask.abort'; error: unknown };

export function answerUserMessage(question: string, context: string, label = 'the cloud'): string {
  return `Data from ${label} (fetched ${new Date().toISOString()}):\n${context}\n\nQuestion: ${question}`;
}

/** Characters of everything around the context in the answering prompt (counted against max_prompt_chars). */
function overheadChars(ctx: FlowContext): number {
  return ctx.prompt.system.length + answerUserMessage(ctx.input.question, '', ctx.prompt.label).length + ctx.history.reduce((n, m) => n + m.content.length, 0);
}

const missing = <O, I>(name: keyof AskActors) => placeholderActor<O, I>('ask flow', 'askFlowMachine', name);

const NO_SIZES: PromptSizes = { system: 0, context: 0, question: 0, history: 0, historyTurns: 0, total: 0 };

function outputOf(ctx: FlowContext): AskFlowOutput {
  return {
    // Shown and kept exactly as redacted.
    answer: maskSecretsInText(ctx.answer ?? ''),
    route: ctx.route!,
    provider: ctx.provider?.name ?? 'unknown',
    profile: ctx.provider?.profile,
    model: ctx.model,
    summarised: ctx.summarised,
    contextChars: ctx.contextChars,
    promptChars: ctx.sizes?.total ?? 0,
    sizes: ctx.sizes ?? NO_SIZES,
    summaryCalls: ctx.summaryCalls,
    read: ctx.read,
  };
}

const askFlow = setup({
  types: { context: {} as FlowContext, input: {} as AskFlowInput, output: {} as AskFlowOutput, events: {} as FlowEvent, emitted: {} as AskEvent },
  actors: {
    route: missing<Routed, RouteInput>('route'),
    chooseModel: missing<AiProvider, ChooseModelInput>('chooseModel'),
    recall: missing<ChatMessage[], RecallInput>('recall'),
    readContext: missing<ContextRead, ReadContextInput>('readContext'),
    summarise: missing<SummariseResult, SummariseInput>('summarise'),
    answer: missing<Answered, AnswerInput>('answer'),
  },
  guards: {
    needsSummary: ({ context }) => {
      if (context.provider?.name === 'builtin') return false;
      const max = context.input.context.backend.config.ai?.max_prompt_chars ?? AI_DEFAULTS.max_prompt_chars;
      return context.contextChars + overheadChars(context) > max;
    },
  },
  actions: {
    /** Entering a phase: tell the observer where the flow came from and where it is now. */
    enter: enqueueActions(({ context, enqueue }, params: { phase: AskPhase }) => {
      enqueue.emit({ type: 'ask.phase', from: context.phase, to: params.phase });
      enqueue.assign({ phase: params.phase });
    }),
    fail: assign({ error: ({ event }) => (event as { error?: unknown }).error }),
    forward: emit(({ event }) => heardNotice(event as AskNotice)),
  },
});

/** Routing's last step, the ask flow's own: the earlier turns of the conversation. */
const recalling = askFlow.createStateConfig({
  invoke: {
    src: 'recall',
    input: ({ context, self }) => ({
      ...base(context, self),
      route: context.route!,
      provider: context.provider!,
      history: context.input.history !== false,
      newConversation: Boolean(context.input.newConversation),
    }),
    onDone: { target: '#askFlow.gatheringContext', actions: assign({ history: ({ event }) => event.output }) },
    onError: { target: '#askFlow.failed', actions: 'fail' },
  },
});

export const askFlowMachine = askFlow.createMachine({
  id: 'askFlow',
  context: ({ input }) => ({
    input,
    phase: 'start',
    prompt: { system: '', label: 'the cloud' },
    history: [],
    results: [],
    read: '',
    records: [],
    data: '',
    contextChars: 0,
    summarised: false,
    summaryCalls: 0,
  }),
  on: {
    'ask.progress': { actions: 'forward' },
    'ask.notice': { actions: 'forward' },
    'ask.token': { actions: 'forward' },
    'ask.debug': { actions: 'forward' },
    // The context signal aborted (Ctrl-C, --timeout): the flow stops where it is; its actors are stopped.
    'ask.abort': { target: '.failed', actions: 'fail' },
  },
  initial: 'routing',
  states: {
    routing: routingState<FlowContext, FlowEvent, Routed>({
      flow: 'askFlow',
      routed: ({ route, prompt }) => ({ route, prompt }),
      next: 'recalling',
      more: { recalling },
    }),
    gatheringContext: {
      entry: { type: 'enter', params: { phase: 'gatheringContext' } },
      invoke: {
        src: 'readContext',
        input: ({ context, self }) => ({ ...base(context, self), route: context.route! }),
        onDone: { target: 'sizing', actions: assign(({ event }) => gathered(event.output)) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    // Not a phase: chooses between summarising and answering once the context is known.
    sizing: {
      always: [{ guard: 'needsSummary', target: 'summarising' }, { target: 'answering' }],
    },
    summarising: {
      entry: { type: 'enter', params: { phase: 'summarising' } },
      invoke: {
        src: 'summarise',
        input: ({ context, self }) => ({ ...base(context, self), provider: context.provider!, records: context.records, overheadChars: overheadChars(context) }),
        onDone: {
          target: 'answering',
          actions: assign(({ event }) => ({ data: event.output.context, summarised: event.output.summarised, summaryCalls: event.output.keptChunks.length })),
        },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    answering: {
      entry: { type: 'enter', params: { phase: 'answering' } },
      invoke: {
        src: 'answer',
        input: ({ context, self }) => ({
          ...base(context, self),
          route: context.route!,
          provider: context.provider!,
          prompt: context.prompt,
          results: context.results,
          data: context.data,
          history: context.history,
        }),
        onDone: { target: 'done', actions: assign(({ event }) => ({ answer: event.output.answer, model: event.output.model, sizes: event.output.sizes })) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    ...endStates<FlowContext, FlowEvent, AskEvent>(emit(({ context }) => ({ type: 'ask.answer' as const, output: outputOf(context) }))),
  },
  output: ({ context }) => outputOf(context),
});

export type AskFlowMachine = typeof askFlowMachine;

const base = (context: FlowContext, self: { send(event: FlowEvent): void; getSnapshot(): { status: string } }) => actorInput(context.input, self);

/** The gathered context: the results, one record line per resource, and their joined text. */
function gathered(read: ContextRead) {
  const records = recordsFromResults(read.results);
  const data = records.join('\n');
  return { results: read.results, read: read.read, records, data, contextChars: data.length };
}

/** Why an aborted signal stopped the flow: its reason when that is one of ours (`--timeout`: exit 1), else an interrupt (Ctrl-C: 130). */
/**
 * The observer with the answer's tokens redacted on their way to it: a few words are held back so a
 * secret split across tokens is still caught; they are flushed when the flow leaves `answering` (the
 * only phase that streams), before the observer hears of the next phase.
 */
export function redactingTokens(observe: AskObserver): AskObserver {
  const tokens = createRedactingStream((text) => observe({ type: 'ask.token', text }));
  return (event) => {
    if (event.type === 'ask.token') return tokens.write(event.text);
    if (event.type === 'ask.phase' && event.from === 'answering') tokens.end();
    observe(event);
  };
}

/**
 * Runs a provided flow to its end, telling `observe` every event in order (starting with the phase
 * `start -> routing`; tokens as the actors produced them, see redactingTokens). Resolves with the
 * output, or throws the error that failed it (the signal's reason when it was aborted).
 */
export async function runAskFlow(machine: AskFlowMachine, input: AskFlowInput, observe: AskObserver = () => undefined): Promise<AskFlowOutput> {
  return driveFlow<AskFlowOutput>(machine, input, observe, input.context.signal);
}
