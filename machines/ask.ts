/**
 * Answering a question in natural language: the one function behind `assistant ask "<question>"` and
 * the MCP ask tool. It routes the question, reads a read-only context plan through the plan executor,
 * summarises the context when it is too large, and streams the AI provider's answer (or, with the
 * built-in provider, renders it from the results without a model). Conversation history is kept per
 * AI provider profile and gpucloud project (engine/producers/ai/history.ts).
 */
import type { AnswerCapability, RoutingCapability } from '../engine/core/capabilities.js';
import type { Config } from '../schemas/config.js';
import type { Plan } from '../schemas/plan.js';
import type { CapableProvider } from '../engine/providers/index.js';
import { InvalidInputError, type AssistantErrorOptions } from '../engine/core/errors.js';
import { PROVIDERS, providerRoutings, providersWith } from '../engine/providers/index.js';
import { renderIac } from '../engine/producers/reports/render.js';
import type { IacContext } from '../engine/producers/reports/discovery.js';
import { readPlan } from './apply/reads.js';
import type { PlanBackend } from './run-plan.js';
import { createRedactingStream, maskSecretLooking, maskSecretsInText } from '../engine/core/redact.js';
import { routeQuestion, type RouteDecision } from '../engine/core/routing/route.js';
import { runAskFlow, type AskFlowInput, type AskFlowOutput, type ContextResult } from './ask-flow.js';
import { ConversationHistory, historyProject } from '../engine/producers/ai/history.js';
import type { AiCallPolicy, AiProvider, ChatMessage } from '../engine/producers/ai/provider.js';
import { profileForCommand, resolveAiProvider } from '../engine/producers/ai/resolve.js';

export type { RouteDecision };

/** A plan backend (a command's Session, the MCP server's backend) plus the config the flow reads. */
export interface AskBackend extends PlanBackend {
  config: Config;
}

/** What `ask` and the MCP ask tool pass in; the streaming, progress and cancel hooks are the flow's own. */
export interface AskOptions extends Pick<AskFlowInput, 'onToken' | 'onProgress' | 'signal'> {
  question: string;
  backend: AskBackend;
  home: string;
  env: Record<string, string | undefined>;
  /** `--ai-profile`; 'builtin' answers with answerFromResults, no model. */
  aiProfile?: string;
  /** From the `--<provider>-model` flags, keyed by provider value. */
  modelOverrides?: Record<string, string | undefined>;
  /** Provider-specific key flags (`--<provider>-api-key`), keyed by provider value; first in the key order of SPEC 2.5. */
  keyFlags?: Record<string, string | undefined>;
  /** Provider flags (`--gpucloud`, `--cloud-a`, …). */
  providerFlags?: string[];
  /** Sandbox with no ai.default_provider → the built-in provider. */
  sandbox?: boolean;
  /** Read and write the conversation history (default true). */
  history?: boolean;
  /** Forget the earlier turns with this provider and project before asking. */
  newConversation?: boolean;
  /** Overrides of the AI call policy (timeouts, 429 budget). */
  aiPolicy?: Partial<AiCallPolicy>;
  /** One line per machine transition, e.g. `routing -> gatheringContext`. */
  trace?: (line: string) => void;
  /** Diagnostic lines (prompt sizes, provider); never prompt contents. */
  debug?: (line: string) => void;
  /**
   * A structured report (`--iam`, `--compliance`, `--discovery`) instead of a context plan: it gathers
   * through the executor itself; the built-in provider's answer is its table (engine/producers/reports/).
   */
  report?: { gather: (route: RouteDecision) => Promise<ContextResult[]>; render: (results: ContextResult[]) => string };
  /** Context besides the plan's (the `--workspace` state and its drift), read after the plan. */
  extraContext?: (route: RouteDecision, planResults: ContextResult[]) => Promise<ContextResult[]>;
  /**
   * Earlier turns kept by the caller (a `talk` session, a box session), oldest first, chosen once the provider (and
   * so its model) is known. When given, the ask history file is neither read nor written.
   */
  conversation?: (provider: AiProvider) => ChatMessage[];
  /** Runs a read-only context plan with `read`; `talk` passes its session's cache of fresh reads. */
  readPlan?: (plan: Plan, read: (plan: Plan) => Promise<unknown[]>) => Promise<unknown[]>;
}

/** The flow's output without its internal bookkeeping (prompt sizes, summary calls), the answer redacted. */
export type AskResult = Omit<AskFlowOutput, 'sizes' | 'summaryCalls'>;

/** The question is about a cloud this build cannot read; nothing was read and no AI was asked. */
export class ProviderNotIntegratedError extends InvalidInputError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('provider_not_integrated', message, options);
  }
}

export { ALWAYS_CONTEXT_KINDS } from '../engine/providers/gpucloud/capabilities.js';

/** What besides the routing decision chooses a context: the question's words and the config. */
export interface ContextOptions {
  question?: string;
  config?: Config;
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
    const reads = provider.capabilities.reads.contextReads(opts.question ?? '', { kinds: decision.kinds, config: opts.config ?? ({} as Config) });
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
export async function answerWithoutModel(question: string, route: RouteDecision, results: readonly ContextResult[]): Promise<string> {
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
    const text = group.answer.answer(question, group.results, { kinds: route.kinds, defaulted: route.defaulted, route, knownWords, answeredElsewhere: others.length > 0 || iac.length > 0 });
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

export async function askQuestion(o: AskOptions): Promise<AskResult> {
  // What each provider's data is, for the model's prompt (light capability modules; looked up once).
  const readers = await providersWith('reads');
  const { config } = o.backend;
  const profileName = profileForCommand(o.aiProfile, o.sandbox, config.ai);
  let history: ConversationHistory | undefined;
  // The answer is shown redacted exactly as its history copy is stored; the stream holds back a few
  // words so a secret split across tokens is still caught.
  const stream = o.onToken && createRedactingStream(o.onToken);

  const contextOptions: ContextOptions = { question: o.question, config };
  const contextPlan = (route: RouteDecision) => contextPlanFor(route, contextOptions);
  // Data leaves for a third-party AI: registered secrets, secret-named fields and secret-looking
  // values (API_KEY=… in startup scripts, plain env values named *_TOKEN) are masked first.
  const readAll = (plan: Plan) => readPlan(o.backend, plan, { signal: o.signal });
  const runReadPlan = async (plan: Plan) => maskSecretLooking(await (o.readPlan ? o.readPlan(plan, readAll) : readAll(plan)));
  const extra = o.extraContext;
  const gatherContext =
    o.report?.gather ??
    (extra &&
      (async (route: RouteDecision) => {
        const { plan, kinds } = await contextPlan(route);
        const data = await runReadPlan(plan);
        const results = plan.commands.map((c, i): ContextResult => ({ kind: kinds[i]!, args: c.args, data: data[i] }));
        return [...results, ...(await extra(route, results))];
      }));
  let routed: RouteDecision | undefined;
  let resolved: AiProvider | undefined;

  const out: AskFlowOutput = await runAskFlow(
    {
      question: o.question,
      route: async () => (routed = await routeAnswerable(o.question, o.providerFlags, config)),
      provider: () => {
        const provider = resolveAiProvider({
          aiConfig: config.ai,
          profileName,
          modelOverrides: o.modelOverrides,
          keyFlags: o.keyFlags,
          env: o.env,
          policy: o.aiPolicy,
          debug: o.debug,
        });
        resolved = provider;
        if (!o.conversation && o.history !== false && provider.name !== 'builtin') {
          const gpucloudProject = historyProject({
            projectId: config.gpucloud?.default_project_id ?? o.env.GPUCLOUD_PROJECT_ID,
            baseUrl: config.gpucloud?.base_url ?? o.env.GPUCLOUD_BASE_URL,
            sandbox: o.sandbox,
          });
          // One conversation per set of providers asked about: earlier turns about AWS do not leak into
          // a gpucloud-only question. gpucloud alone keeps its earlier key.
          const set = [...(routed?.providers ?? ['gpucloud'])].sort();
          const project = set.length === 1 && set[0] === 'gpucloud' ? gpucloudProject : `${gpucloudProject}|${set.join('+')}`;
          history = new ConversationHistory(o.home, provider.profile, project);
          if (o.newConversation) history.clear();
        }
        return provider;
      },
      contextPlan,
      runReadPlan,
      gatherContext,
      builtinAnswer: o.report ? (results) => o.report!.render(results) : (results, route) => answerWithoutModel(o.question, route, results),
      describeSources: (route) => describeSources(route, readers),
      ai: config.ai,
      history: () => (o.conversation && resolved ? o.conversation(resolved) : history?.messages() ?? []),
      onToken: stream && ((t) => stream.write(t)),
      onProgress: o.onProgress,
      signal: o.signal,
    },
    { onTransition: (from, to) => o.trace?.(`${from} -> ${to}`) },
  ).finally(() => stream?.end());

  const s = out.sizes;
  const read = `ask: route ${out.route.providers.join('+')}, context read: ${o.report ? 'a report' : (await contextPlan(out.route)).kinds.join(', ')}`;
  o.debug?.(
    out.provider === 'builtin'
      ? `${read}; no model: the built-in provider rendered the answer from ${out.contextChars} characters of results`
      : `${read}; prompt sizes (characters): system ${s.system}, context ${s.context} (fetched ${out.contextChars}, summarised: ${out.summarised ? `yes, ${out.summaryCalls} chunk call(s)` : 'no'}), ` +
          `question ${s.question}, history ${s.history} (${s.historyTurns} turn(s)), total ${s.total}`,
  );
  const answer = maskSecretsInText(out.answer);
  history?.append(o.question, answer);
  const { sizes: _sizes, summaryCalls: _calls, ...result } = out;
  return { ...result, answer };
}
