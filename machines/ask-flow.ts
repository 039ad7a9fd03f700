/**
 * The ask flow as explicit states (issue 5, item 3):
 *
 *   routing → gatheringContext → [summarising] → answering → done
 *        ↘              ↘               ↘            ↘
 *                              failed
 *
 * Every async phase is an invoked promise actor; what they call is injected (routing, the AI
 * provider, the read-only plan runner), so the CLI, the MCP server and tests drive the same machine.
 * The context is read with a read-only plan through the plan executor (never a second HTTP path);
 * summarisation runs only when the prompt would exceed ai.max_prompt_chars; the answer streams.
 */
import { assign, createActor, fromPromise, setup } from 'xstate';
import type { Plan } from '../schemas/plan.js';
import type { AiProvider, ChatMessage } from '../engine/producers/ai/provider.js';
import { recordsFromResults } from '../engine/producers/ai/chunking.js';
import { summariseContext, type SummariseResult } from '../engine/producers/ai/summarise.js';
import type { RouteDecision } from '../engine/core/routing/route.js';
import { AI_DEFAULTS } from '../schemas/config.js';

/** One fetched kind of the context plan: the step's args and its parsed response. */
export interface ContextResult {
  kind: string;
  args: string[];
  data: unknown;
}

export interface AskFlowInput {
  question: string;
  /** The routing decision; throws for a question this build cannot answer (another cloud). */
  route: () => RouteDecision | Promise<RouteDecision>;
  /** The AI provider, resolved after routing so a question about another cloud fails before any key is looked for. */
  provider: () => AiProvider | Promise<AiProvider>;
  /** The read-only context plan for a decision, with the catalogue kind of each step. */
  contextPlan: (decision: RouteDecision) => { plan: Plan; kinds: string[] } | Promise<{ plan: Plan; kinds: string[] }>;
  /** Runs a read-only plan through the executor and returns every step's response. */
  runReadPlan: (plan: Plan) => Promise<unknown[]>;
  /**
   * Instead of one context plan: a report that reads through the executor in several plans
   * (engine/producers/reports/) and hands back its structured result as the context.
   */
  gatherContext?: (decision: RouteDecision) => Promise<ContextResult[]>;
  /** The built-in provider's answer from the gathered results (the providers' answers; a report renders itself as a table). */
  builtinAnswer?: (results: ContextResult[], route: RouteDecision) => string | Promise<string>;
  /** The size keys of the `ai` config section. */
  ai?: { max_prompt_chars?: number; chunk_chars?: number; max_chunks?: number };
  /** Earlier turns of the conversation (already redacted), oldest first; read once, after the provider is known. */
  history?: () => ChatMessage[];
  onToken?: (token: string) => void;
  /** "summarising part 2 of 6". */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** A data source other than gpucloud (`k8s ask`): its system prompt, the label of its data, and its answer without a model. */
  source?: AskSource;
  /** What the routed providers' data is (their `reads` label and prompt), added to the system prompt. */
  describeSources?: (route: RouteDecision) => string | undefined;
}

export interface AskSource {
  systemPrompt: string;
  /** Names the data in the prompt: `Data from <label> (fetched …)`. */
  label: string;
  builtinAnswer(question: string, results: readonly ContextResult[]): string;
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

export interface AskFlowOutput {
  answer: string;
  route: RouteDecision;
  provider: string;
  model?: string;
  summarised: boolean;
  /** Characters of the fetched context before any summarisation. */
  contextChars: number;
  /** Characters of the answering prompt (system, history, context and question). */
  promptChars: number;
  sizes: PromptSizes;
  /** Chat calls made for summarisation. */
  summaryCalls: number;
}

interface AskFlowContext {
  input: AskFlowInput;
  route?: RouteDecision;
  provider?: AiProvider;
  history: ChatMessage[];
  results: ContextResult[];
  records: string[];
  /** What goes into the prompt: the records, or their summary. */
  context: string;
  contextChars: number;
  summarised: boolean;
  summaryCalls: number;
  answer?: string;
  model?: string;
  sizes?: PromptSizes;
  error?: unknown;
}

export const ANSWER_SYSTEM_PROMPT = [
  'You are assistant, a command-line assistant for cloud infrastructure. You answer questions about the',
  "user's gpucloud account (a GPU cloud) and, when the data has cloud_a/ lines, their AWS account, using only the data given with the question, which was fetched",
  'from the cloud APIs just now. Each data line is "<kind>: <record as JSON>". Be brief and concrete:',
  'name resources by hostname or name, give counts, statuses, types, locations and prices as they are in',
  'the data. When the data does not answer the question, say so and name the `assistant gpucloud` command',
  'that would. Never invent resources. Plain text, no Markdown tables.',
].join(' ');

export function answerUserMessage(question: string, context: string, label = 'the cloud'): string {
  return `Data from ${label} (fetched ${new Date().toISOString()}):\n${context}\n\nQuestion: ${question}`;
}

/** Characters of everything around the context in the answering prompt (counted against max_prompt_chars). */
function overheadChars(input: AskFlowInput, history: ChatMessage[], route?: RouteDecision): number {
  return systemPromptOf(input, route).length + answerUserMessage(input.question, '', input.source?.label).length + history.reduce((n, m) => n + m.content.length, 0);
}

const systemPromptOf = (input: AskFlowInput, route?: RouteDecision) => {
  const sources = route && input.describeSources?.(route);
  return (input.source?.systemPrompt ?? ANSWER_SYSTEM_PROMPT) + (sources ? ` ${sources}` : '');
};

const isBuiltin = (p: AiProvider | undefined) => p?.name === 'builtin';

export const askFlowMachine = setup({
  types: { context: {} as AskFlowContext, input: {} as AskFlowInput, output: {} as AskFlowOutput },
  actors: {
    route: fromPromise<{ route: RouteDecision; provider: AiProvider; history: ChatMessage[] }, AskFlowInput>(async ({ input }) => {
      const route = await input.route();
      const provider = await input.provider();
      return { route, provider, history: input.history?.() ?? [] };
    }),
    gather: fromPromise<Gathered, { input: AskFlowInput; route: RouteDecision }>(async ({ input: { input, route } }) => {
      if (input.gatherContext) return gathered(await input.gatherContext(route));
      const { plan, kinds } = await input.contextPlan(route);
      const data = await input.runReadPlan(plan);
      return gathered(plan.commands.map((c, i) => ({ kind: kinds[i]!, args: c.args, data: data[i] })));
    }),
    summarise: fromPromise<SummariseResult, { ctx: AskFlowContext }>(async ({ input: { ctx } }) =>
      summariseContext({
        provider: ctx.provider!,
        question: ctx.input.question,
        records: ctx.records,
        ai: ctx.input.ai,
        overheadChars: overheadChars(ctx.input, ctx.history, ctx.route),
        signal: ctx.input.signal,
        onProgress: (e) => ctx.input.onProgress?.(`summarising part ${e.part} of ${e.of} (chunk ${e.chunkIndex + 1} of ${e.total})`),
      }),
    ),
    answer: fromPromise<{ answer: string; model?: string; sizes: PromptSizes }, { ctx: AskFlowContext }>(async ({ input: { ctx } }) => {
      const { input, history } = ctx;
      if (isBuiltin(ctx.provider)) {
        // No model: the source (`k8s ask`), the report, or the gpucloud/cloud_a renderers answer from the results.
        const answer = input.source
          ? input.source.builtinAnswer(input.question, ctx.results)
          : ((await input.builtinAnswer?.(ctx.results, ctx.route!)) ?? 'Nothing to report.');
        // Observers hear of the entry into `answering` only after this actor has started; yielding once
        // keeps the order `gatheringContext -> answering`, then the answer, for --agent-trace.
        await Promise.resolve();
        input.onToken?.(answer);
        const sizes = { system: 0, context: ctx.context.length, question: input.question.length, history: 0, historyTurns: 0, total: 0 };
        return { answer, sizes };
      }
      const user = answerUserMessage(input.question, ctx.context, input.source?.label);
      const system = systemPromptOf(input, ctx.route);
      const historyChars = history.reduce((n, m) => n + m.content.length, 0);
      const sizes: PromptSizes = {
        system: system.length,
        context: ctx.context.length,
        question: input.question.length,
        history: historyChars,
        historyTurns: history.filter((m) => m.role === 'user').length,
        total: system.length + historyChars + user.length,
      };
      const res = await ctx.provider!.chat({
        system,
        messages: [...history, { role: 'user', content: user }],
        stream: true,
        onToken: input.onToken,
        signal: input.signal,
        temperature: 0.2,
      });
      return { answer: res.text, model: res.model || ctx.provider!.model || undefined, sizes };
    }),
  },
  guards: {
    // Evaluated on the gathering result (guards run before the transition's assign).
    needsSummary: ({ context, event }) => {
      if (isBuiltin(context.provider)) return false;
      const max = context.input.ai?.max_prompt_chars ?? AI_DEFAULTS.max_prompt_chars;
      const { contextChars } = (event as unknown as { output: Gathered }).output;
      return contextChars + overheadChars(context.input, context.history, context.route) > max;
    },
  },
  actions: {
    fail: assign({ error: ({ event }) => (event as { error?: unknown }).error }),
  },
}).createMachine({
  id: 'askFlow',
  context: ({ input }) => ({ input, history: [], results: [], records: [], context: '', contextChars: 0, summarised: false, summaryCalls: 0 }),
  initial: 'routing',
  states: {
    routing: {
      invoke: {
        src: 'route',
        input: ({ context }) => context.input,
        onDone: { target: 'gatheringContext', actions: assign(({ event }) => event.output) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    gatheringContext: {
      invoke: {
        src: 'gather',
        input: ({ context }) => ({ input: context.input, route: context.route! }),
        onDone: [
          {
            guard: 'needsSummary',
            target: 'summarising',
            actions: assign(({ event }) => event.output),
          },
          { target: 'answering', actions: assign(({ event }) => event.output) },
        ],
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    summarising: {
      invoke: {
        src: 'summarise',
        input: ({ context }) => ({ ctx: context }),
        onDone: {
          target: 'answering',
          actions: assign(({ event }) => ({ context: event.output.context, summarised: event.output.summarised, summaryCalls: event.output.keptChunks.length })),
        },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    answering: {
      invoke: {
        src: 'answer',
        input: ({ context }) => ({ ctx: context }),
        onDone: { target: 'done', actions: assign(({ event }) => ({ answer: event.output.answer, model: event.output.model, sizes: event.output.sizes })) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({
    answer: context.answer ?? '',
    route: context.route!,
    provider: context.provider?.name ?? 'unknown',
    model: context.model,
    summarised: context.summarised,
    contextChars: context.contextChars,
    promptChars: context.sizes?.total ?? 0,
    sizes: context.sizes ?? { system: 0, context: 0, question: 0, history: 0, historyTurns: 0, total: 0 },
    summaryCalls: context.summaryCalls,
  }),
});

/** The gathered context: the results, one record line per resource, and their joined text. */
interface Gathered {
  results: ContextResult[];
  records: string[];
  context: string;
  contextChars: number;
}

function gathered(results: ContextResult[]): Gathered {
  const records = recordsFromResults(results);
  const context = records.join('\n');
  return { results, records, context, contextChars: context.length };
}

/**
 * Runs the flow to its end. `onTransition(from, to)` is told every state change (`--agent-trace`),
 * starting with `start -> routing`. Resolves with the output, or throws the error that failed it.
 */
export async function runAskFlow(input: AskFlowInput, hooks: { onTransition?: (from: string, to: string) => void } = {}): Promise<AskFlowOutput> {
  const actor = createActor(askFlowMachine, { input });
  let state = 'start';
  const finished = new Promise<void>((resolve) => {
    actor.subscribe({
      next: (snapshot) => {
        const value = String(snapshot.value);
        if (value !== state) {
          hooks.onTransition?.(state, value);
          state = value;
        }
        if (snapshot.status !== 'active') resolve();
      },
      error: () => resolve(),
    });
  });
  actor.start();
  const first = actor.getSnapshot();
  if (String(first.value) !== state) {
    hooks.onTransition?.(state, String(first.value));
    state = String(first.value);
  }
  await finished;
  const snapshot = actor.getSnapshot();
  if (snapshot.value === 'failed') throw snapshot.context.error;
  return snapshot.output!;
}
