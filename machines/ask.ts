/**
 * Answering a question in natural language: the one function behind `assistant ask "<question>"` and
 * the MCP ask tool. It routes the question, reads a read-only context plan through the plan executor,
 * summarises the context when it is too large, and streams the AI provider's answer (or, with the
 * built-in provider, renders it from the results without a model). Conversation history is kept per
 * AI provider profile and gpucloud project (engine/ai/history.ts).
 */
import type { Config } from '../schemas/config.js';
import type { Plan } from '../schemas/plan.js';
import { InvalidInputError, type AssistantErrorOptions } from '../engine/errors.js';
import { findKind, type KindSpec } from '../engine/gpucloud/catalogue.js';
import { COST_READ_KINDS, listPlan } from '../engine/gpucloud/static-plans.js';
import { COST_KIND } from '../engine/routing/terms.js';
import { awsReadsFor } from '../engine/cloud_a/reads.js';
import { readPlan } from './apply/reads.js';
import type { PlanBackend } from './run-plan.js';
import { createRedactingStream, maskSecretLooking, maskSecretsInText } from '../engine/redact.js';
import { routeQuestion, type RouteDecision } from '../engine/routing/route.js';
import { runAskFlow, type AskFlowInput, type AskFlowOutput, type ContextResult } from './ask-flow.js';
import { ConversationHistory, historyProject } from '../engine/ai/history.js';
import type { AiCallPolicy } from '../engine/ai/provider.js';
import { profileForCommand, resolveAiProvider } from '../engine/ai/resolve.js';

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
   * through the executor itself; the built-in provider's answer is its table (engine/reports/).
   */
  report?: { gather: (route: RouteDecision) => Promise<ContextResult[]>; render: (results: ContextResult[]) => string };
  /** Context besides the plan's (the `--workspace` state and its drift), read after the plan. */
  extraContext?: (route: RouteDecision, planResults: ContextResult[]) => Promise<ContextResult[]>;
}

/** The flow's output without its internal bookkeeping (prompt sizes, summary calls), the answer redacted. */
export type AskResult = Omit<AskFlowOutput, 'sizes' | 'summaryCalls'>;

/** The providers whose data this build can read to answer a question. */
export const ANSWERABLE_PROVIDERS = ['gpucloud', 'cloud_a'] as const;

/** The question is about a cloud this build does not integrate; nothing was read and no AI was asked. */
export class ProviderNotIntegratedError extends InvalidInputError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('provider_not_integrated', message, options);
  }
}

/** Kinds always read for an answer, before the ones the question is about. */
export const ALWAYS_CONTEXT_KINDS = ['instances', 'balance'];

/** What besides the routing decision chooses a context: the question's words and the config's service keywords. */
export interface ContextOptions {
  question?: string;
  serviceKeywords?: Record<string, string[]>;
}

/**
 * The read-only plan that fetches a question's context, one plan for every provider routed to (a
 * combined view is one plan with `provider: [...]`): for gpucloud, instances and balance always plus
 * every catalogue kind the question is about (decision.kinds; `cost` stands for the reads of `cost
 * summary`), one list step per kind; for cloud_a,
 * the describe/list steps of the services the question names (engine/cloud_a/reads.ts), or its
 * default set. Without `providers` in the decision, gpucloud alone.
 */
export function contextPlanFor(decision: Pick<RouteDecision, 'kinds'> & { providers?: string[] }, opts: ContextOptions = {}): { plan: Plan; kinds: string[] } {
  const providers = decision.providers ?? ['gpucloud'];
  const commands: Plan['commands'] = [];
  const kinds: string[] = [];
  const used: string[] = [];
  if (providers.includes('gpucloud')) {
    const specs: KindSpec[] = [];
    const asked = decision.kinds.flatMap((k) => (k === COST_KIND ? [...COST_READ_KINDS] : [k]));
    for (const name of [...ALWAYS_CONTEXT_KINDS, ...asked]) {
      const spec = findKind(name);
      if (spec && !specs.includes(spec)) specs.push(spec);
    }
    for (const s of specs) {
      commands.push(...listPlan(s).commands);
      kinds.push(s.kind);
    }
    used.push('gpucloud');
  }
  if (providers.includes('cloud_a')) {
    for (const read of awsReadsFor(opts.question ?? '', opts.serviceKeywords)) {
      commands.push({ args: [...read.args], reason: `context: ${read.label}` });
      kinds.push(`cloud_a/${read.service}`);
    }
    used.push('cloud_a');
  }
  return { plan: { version: 1, provider: used.length === 1 ? used[0]! : used, commands }, kinds };
}

/** Routes a question and refuses, clearly, one this build cannot answer. */
export function routeAnswerable(question: string, flags: string[] | undefined, config: Config): RouteDecision {
  const route = routeQuestion(question, { flags, config });
  const others = route.providers.filter((p) => !(ANSWERABLE_PROVIDERS as readonly string[]).includes(p));
  if (others.length) {
    const why = route.reasons
      .filter((r) => others.includes(r.provider))
      .map((r) => (r.terms.length ? `${r.provider} (matched: ${r.terms.join(', ')})` : `${r.provider} (${r.note ?? 'selected'})`))
      .join('; ');
    const combined = route.providers.includes('gpucloud');
    throw new ProviderNotIntegratedError(
      `this build answers questions about ${ANSWERABLE_PROVIDERS.join(' and ')} only; the question was routed to ${why}, which is not integrated, so nothing was read and no AI was asked`,
      {
        hint: combined
          ? 'ask with --gpucloud and/or --cloud-a only, or drop the other provider flags; `assistant ask --route-only "<question>"` shows the routing'
          : 'add --gpucloud or --cloud-a if the question is about them, or name their resources (instances, clusters, buckets…); `assistant ask --route-only "<question>"` shows the routing',
      },
    );
  }
  return route;
}

export async function askQuestion(o: AskOptions): Promise<AskResult> {
  const { config } = o.backend;
  const profileName = profileForCommand(o.aiProfile, o.sandbox, config.ai);
  let history: ConversationHistory | undefined;
  // The answer is shown redacted exactly as its history copy is stored; the stream holds back a few
  // words so a secret split across tokens is still caught.
  const stream = o.onToken && createRedactingStream(o.onToken);

  const contextOptions: ContextOptions = { question: o.question, serviceKeywords: config.cloud_a?.service_keywords };
  const contextPlan = (route: RouteDecision) => contextPlanFor(route, contextOptions);
  // Data leaves for a third-party AI: registered secrets, secret-named fields and secret-looking
  // values (API_KEY=… in startup scripts, plain env values named *_TOKEN) are masked first.
  const runReadPlan = async (plan: Plan) => maskSecretLooking(await readPlan(o.backend, plan, { signal: o.signal }));
  const extra = o.extraContext;
  const gatherContext =
    o.report?.gather ??
    (extra &&
      (async (route: RouteDecision) => {
        const { plan, kinds } = contextPlan(route);
        const data = await runReadPlan(plan);
        const results = plan.commands.map((c, i): ContextResult => ({ kind: kinds[i]!, args: c.args, data: data[i] }));
        return [...results, ...(await extra(route, results))];
      }));
  let routed: RouteDecision | undefined;

  const out: AskFlowOutput = await runAskFlow(
    {
      question: o.question,
      route: () => (routed = routeAnswerable(o.question, o.providerFlags, config)),
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
        if (o.history !== false && provider.name !== 'builtin') {
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
      builtinAnswer: o.report?.render,
      ai: config.ai,
      history: () => history?.messages() ?? [],
      onToken: stream && ((t) => stream.write(t)),
      onProgress: o.onProgress,
      signal: o.signal,
    },
    { onTransition: (from, to) => o.trace?.(`${from} -> ${to}`) },
  ).finally(() => stream?.end());

  const s = out.sizes;
  const read = `ask: route ${out.route.providers.join('+')}, context read: ${o.report ? 'a report' : contextPlan(out.route).kinds.join(', ')}`;
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
