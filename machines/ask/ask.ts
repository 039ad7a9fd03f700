/**
 * Answering a question in natural language: the one function behind `assistant ask "<question>"` and
 * the MCP ask tool. It routes the question, reads a read-only context plan through the plan executor,
 * summarises the context when it is too large, and streams the AI provider's answer (or, with the
 * built-in provider, renders it from the results without a model). Conversation history is kept per
 * AI provider profile and gpucloud project (engine/producers/ai/history.ts).
 */
import { fromPromise } from 'xstate';
import type { AnswerCapability, AnswerThread, RoutingCapability } from '../../engine/core/capabilities.js';
import type { Config } from '../../schemas/config.js';
import type { Plan } from '../../schemas/plan.js';
import type { CapableProvider } from '../../engine/providers/index.js';
import { InvalidInputError, type AssistantErrorOptions } from '../../engine/core/errors.js';
import { PROVIDERS, providerRoutings, providersWith } from '../../engine/providers/index.js';
import { renderIac } from '../../engine/producers/reports/render.js';
import type { IacContext } from '../../engine/producers/reports/discovery.js';
import { readPlan } from '../apply/reads.js';
import { maskSecretLooking } from '../../engine/core/redact.js';
import { routeQuestion, type RouteDecision } from '../../engine/core/routing/route.js';
import {
  askFlowMachine,
  redactingTokens,
  runAskFlow,
  type AskActors,
  type AskContext,
  type AskFlowInput,
  type AskFlowOutput,
  type AskObserver,
  type ContextRead,
  type ContextResult,
  type ReadContextInput,
  type RouteInput,
  type Routed,
} from './ask-flow.js';
import { actorSignal, answerActor, chooseModelActor, conversationOf, historyRecall, summariseActor } from './ask-actors.js';
import { historyProject } from '../../engine/producers/ai/history.js';

export type { RouteDecision };
export type { AskBackend, AskContext, AskEvent, AskObserver, AskActors } from './ask-flow.js';

/** What `ask`, talk, box and the MCP ask tool pass in: the question, the chosen providers and flags, and one context object. */
export type AskOptions = AskFlowInput;

/** Besides the options: the caller's one observer, and actors provided in place of the cloud question's own. */
export interface AskHooks {
  observe?: AskObserver;
  actors?: Partial<AskActors>;
}

/** The flow's output without its internal bookkeeping (prompt sizes, summary calls), the answer redacted. */
export type AskResult = Omit<AskFlowOutput, 'sizes' | 'summaryCalls'>;

/** The question is about a cloud this build cannot read; nothing was read and no AI was asked. */
export class ProviderNotIntegratedError extends InvalidInputError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('provider_not_integrated', message, options);
  }
}

/** What besides the routing decision chooses a context: the question's words and the config. */
export interface ContextOptions {
  question?: string;
  config?: Config;
  /** talk's thread: a follow-up ("which of them are in FIN-03?") also reads the kinds of the last answer's subjects. */
  thread?: AnswerThread;
}

/** A word that may point back at the last answer ("them", "it"): the question may be a follow-up. */
const POINTS_BACK = /(?<![\p{L}\p{N}_])(?:them|they|those|these|their|theirs|it|its|ones)(?![\p{L}\p{N}_])/iu;

/** The kinds a follow-up reads besides its own: those of the last answer's subjects of `provider`. */
function followUpKinds(provider: string, opts: ContextOptions): string[] {
  if (!opts.thread?.subjects?.length || !POINTS_BACK.test(opts.question ?? '')) return [];
  return opts.thread.subjects.filter((s) => s.provider === provider).map((s) => s.kind);
}

/**
 * The read-only plan that fetches a question's context: the context reads of every provider routed to
 * (their `reads` capability), one plan for all of them (a combined view is `provider: [...]`). Without
 * `providers` in the decision, the first provider that can read (gpucloud).
 */
export async function contextPlanFor(decision: Pick<RouteDecision, 'kinds'> & { providers?: string[] }, opts: ContextOptions = {}): Promise<{ plan: Plan; kinds: string[] }> {
  const readers = await providersWith('reads');
  const providers = decision.providers ?? [readers[0]!.name];
  const commands: Plan['commands'] = [];
  const kinds: string[] = [];
  const used: string[] = [];
  for (const provider of readers.filter((p) => providers.includes(p.name))) {
    const asked = [...new Set([...decision.kinds, ...followUpKinds(provider.name, opts)])];
    const reads = provider.capabilities.reads.contextReads(opts.question ?? '', { kinds: asked, config: opts.config ?? ({} as Config) });
    commands.push(...reads.commands);
    kinds.push(...reads.kinds);
    used.push(provider.name);
  }
  return { plan: { version: 1, provider: used.length === 1 ? used[0]! : used, commands }, kinds };
}

/** Routes a question and refuses, clearly, one about a provider that cannot be read. */
export async function routeAnswerable(question: string, flags: string[] | undefined, config: Config): Promise<RouteDecision> {
  const route = routeQuestion(question, { flags, config, routings: await providerRoutings() });
  // Who can read, from the manifest: nothing is loaded to refuse a question.
  const readable = PROVIDERS.namesWith('reads');
  const others = route.providers.filter((p) => !readable.includes(p));
  if (others.length) {
    const why = route.reasons
      .filter((r) => others.includes(r.provider))
      .map((r) => (r.terms.length ? `${r.provider} (matched: ${r.terms.join(', ')})` : `${r.provider} (${r.note ?? 'selected'})`))
      .join('; ');
    const flagsOf = readable.map((p) => `--${p.replace(/_/g, '-')}`).join(', ');
    throw new ProviderNotIntegratedError(
      `this build answers questions about ${readable.join(', ')}; the question was routed to ${why}, which it cannot read, so nothing was read and no AI was asked`,
      { hint: `ask with one of ${flagsOf}, or name their resources; \`assistant ask --route-only "<question>"\` shows the routing` },
    );
  }
  return route;
}

/**
 * Without a model: each provider's `answer` capability from its own results. A provider that cannot
 * answer exactly declines — the answer says so and how to get one — rather than showing another list.
 */
export async function answerWithoutModel(question: string, route: RouteDecision, results: readonly ContextResult[], thread?: AnswerThread): Promise<string> {
  const iac = results.filter((r) => r.kind === 'terraform');
  // Providers sharing a joint answerer (gpucloud and cloud_a) are answered once, with all their results.
  const groups = new Map<string, { answer: AnswerCapability; providers: string[]; results: ContextResult[] }>();
  const parts: string[] = [];
  // Capabilities only (light modules): the answerers, and the routing words of the providers asked about.
  const answerers = new Map((await providersWith('answer')).map((p) => [p.name, p.capabilities.answer]));
  const routingOf = new Map((await providerRoutings()).map((r) => [r.provider, r.routing]));
  for (const name of route.providers) {
    // Its own results: those of the verbs it owns (the manifest knows, without loading the provider).
    const own = results.filter((r) => PROVIDERS.ownerOf(r.args[0] ?? '') === name);
    const answer = answerers.get(name);
    if (!answer) {
      parts.push(`${name}: the built-in answers cannot answer about it (${own.length} read(s)); configure an AI provider (ai: in ~/.assistant.yaml, see the README) or ask with --ai-profile <name>`);
      continue;
    }
    const key = answer.joint ?? name;
    const group = groups.get(key) ?? { answer, providers: [], results: [] };
    group.providers.push(name);
    group.results.push(...own);
    groups.set(key, group);
  }
  for (const [, group] of groups) {
    const others = route.providers.filter((p) => !group.providers.includes(p));
    const knownWords = others.flatMap((p) => [...routingWords(routingOf.get(p)), ...(answerers.get(p)?.understood ?? [])]);
    const text = group.answer.answer(question, group.results, { kinds: route.kinds, defaulted: route.defaulted, route, knownWords, answeredElsewhere: others.length > 0 || iac.length > 0, ...(thread ? { thread } : {}) });
    parts.push(
      text ??
        `${group.providers.join(' and ')}: the built-in answerer cannot answer this exactly from what it read (${group.results.length} read(s)); configure an AI provider (ai: in ~/.assistant.yaml, see the README) or ask with --ai-profile <name>`,
    );
  }
  for (const r of iac) parts.push(renderIac(r.data as IacContext));
  return parts.join('\n') || 'Nothing to report.';
}

/** What the model is told about each routed provider's data (its `reads` label and prompt), or nothing. */
export function describeSources(route: Pick<RouteDecision, 'providers'>, readers: readonly CapableProvider<'reads'>[]): string | undefined {
  const lines = readers
    .filter((p) => route.providers.includes(p.name) && p.capabilities.reads.prompt)
    .map((p) => `Data lines whose kind starts with "${p.name}/" are from ${p.capabilities.reads.label}: ${p.capabilities.reads.prompt}`);
  return lines.length ? lines.join(' ') : undefined;
}

/** The single words of a provider's routing words (understood by another provider's answers). */
function routingWords(routing: RoutingCapability | undefined): string[] {
  if (!routing) return [];
  const all = [...routing.names, ...routing.specific, ...(routing.generic ?? [])].map((w) => (typeof w === 'string' ? w : w.term));
  return all.flatMap((w) => w.toLowerCase().split(/[\s_-]+/)).filter(Boolean);
}

export const ANSWER_SYSTEM_PROMPT = [
  'You are assistant, a command-line assistant for cloud infrastructure. You answer questions about the',
  "user's gpucloud account (a GPU cloud) and, when the data has cloud_a/ lines, their AWS account, using only the data given with the question, which was fetched",
  'from the cloud APIs just now. Each data line is "<kind>: <record as JSON>". Be brief and concrete:',
  'name resources by hostname or name, give counts, statuses, types, locations and prices as they are in',
  'the data. When the data does not answer the question, say so and name the `assistant gpucloud` command',
  'that would. Never invent resources. Plain text, no Markdown tables.',
].join(' ');

/** Routing a cloud question: refused clearly when it is about a provider that cannot be read; the prompt names each routed provider's data. */
export const cloudRoute: AskActors['route'] = fromPromise<Routed, RouteInput>(async ({ input }) => {
  const route = await routeAnswerable(input.question, input.providers, input.context.backend.config);
  // What each provider's data is, for the model's prompt (light capability modules).
  const sources = describeSources(route, await providersWith('reads'));
  return { route, prompt: { system: ANSWER_SYSTEM_PROMPT + (sources ? ` ${sources}` : ''), label: 'the cloud' } };
});

/** Runs a read-only plan with `read`; `talk` passes its session's cache of fresh reads. */
export type PlanRunner = (plan: Plan, read: (plan: Plan) => Promise<unknown[]>) => Promise<unknown[]>;

export interface CloudReadOptions {
  /** Runs the context plan (default: read it through the executor). */
  runPlan?: PlanRunner;
  /** Context besides the plan's (the `--workspace` state and its drift), read after the plan. */
  extra?: (route: RouteDecision, planResults: ContextResult[]) => Promise<ContextResult[]>;
  /** talk's thread: a follow-up reads the kinds of the last answer's subjects too. */
  thread?: AnswerThread;
}

/**
 * The context reads of a cloud question: one read-only plan of every routed provider's reads through
 * the executor. Data leaves for a third-party AI: registered secrets, secret-named fields and
 * secret-looking values (API_KEY=… in startup scripts, plain env values named *_TOKEN) are masked first.
 */
export function cloudReadContext(options: CloudReadOptions = {}): AskActors['readContext'] {
  return fromPromise<ContextRead, ReadContextInput>(async ({ input, signal }) => {
    const { backend } = input.context;
    const { plan, kinds } = await contextPlanFor(input.route, { question: input.question, config: backend.config, ...(options.thread ? { thread: options.thread } : {}) });
    const readAll = (p: Plan) => readPlan(backend, p, { signal: actorSignal(input.context, signal) });
    const data = maskSecretLooking(await (options.runPlan ? options.runPlan(plan, readAll) : readAll(plan)));
    const results = plan.commands.map((c, i): ContextResult => ({ kind: kinds[i]!, args: c.args, data: data[i] }));
    const extra = options.extra ? await options.extra(input.route, results) : [];
    return { results: [...results, ...extra], read: kinds.join(', ') };
  });
}

/**
 * The history project of a cloud question: one conversation per set of providers asked about, so
 * earlier turns about AWS do not leak into a gpucloud-only question; gpucloud alone keeps its earlier key.
 */
export function cloudHistoryProject(context: AskContext, route: Pick<RouteDecision, 'providers'>): string {
  const { config } = context.backend;
  const gpucloudProject = historyProject({
    projectId: config.gpucloud?.default_project_id ?? context.env.GPUCLOUD_PROJECT_ID,
    baseUrl: config.gpucloud?.base_url ?? context.env.GPUCLOUD_BASE_URL,
    sandbox: context.sandbox,
  });
  const set = [...route.providers].sort();
  return set.length === 1 && set[0] === 'gpucloud' ? gpucloudProject : `${gpucloudProject}|${set.join('+')}`;
}

/** The actors of a cloud question; a caller replaces some (a report's reads and table, talk's cached reads and turns). */
export function cloudActors(): AskActors {
  return {
    route: cloudRoute,
    chooseModel: chooseModelActor,
    recall: historyRecall((input) => cloudHistoryProject(input.context, input.route)),
    readContext: cloudReadContext(),
    summarise: summariseActor,
    answer: answerActor((input) => answerWithoutModel(input.question, input.route, input.results)),
  };
}

/** The --debug line of a finished question: the route, what was read, and the prompt sizes. */
function sizesLine(out: AskFlowOutput): string {
  const s = out.sizes;
  const read = `ask: route ${out.route.providers.join('+')}, context read: ${out.read}`;
  return out.provider === 'builtin'
    ? `${read}; no model: the built-in provider rendered the answer from ${out.contextChars} characters of results`
    : `${read}; prompt sizes (characters): system ${s.system}, context ${s.context} (fetched ${out.contextChars}, summarised: ${out.summarised ? `yes, ${out.summaryCalls} chunk call(s)` : 'no'}), ` +
        `question ${s.question}, history ${s.history} (${s.historyTurns} turn(s)), total ${s.total}`;
}

/**
 * Answers a question: the ask flow with the cloud question's actors (or the caller's in their place),
 * every event to `hooks.observe`. The answer is kept in the history file unless `history: false` (talk
 * and box keep their own turns and provide `recall`).
 */
export async function askQuestion(options: AskOptions, hooks: AskHooks = {}): Promise<AskResult> {
  const observe = hooks.observe ?? (() => undefined);
  const machine = askFlowMachine.provide({ actors: { ...cloudActors(), ...hooks.actors } });
  const out = await runAskFlow(machine, options, redactingTokens((event) => {
    if (event.type === 'ask.answer') observe({ type: 'ask.debug', line: sizesLine(event.output) });
    observe(event);
  }));
  if (options.history !== false && out.provider !== 'builtin' && out.profile) {
    conversationOf(options.context, out.profile, cloudHistoryProject(options.context, out.route)).append(options.question, out.answer);
  }
  const { sizes: _sizes, summaryCalls: _calls, ...result } = out;
  return result;
}
