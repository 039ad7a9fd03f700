/**
 * `ask --maker "<request>"`: the AI (or the built-in planner) writes a plan; only the plan JSON goes to
 * stdout. The catalogue and current resources it needs are read with a read-only plan through the same
 * executor, and the result passes the same validator and destroyer gate as any plan.
 */
import { makePlan } from '../engine/ai/maker.js';
import { cloudAMakerPrompt } from '../engine/ai/maker-prompt.js';
import type { AiProvider } from '../engine/ai/provider.js';
import { OperationError, UsageError } from '../engine/errors.js';
import { addAutostop, type ExistingScript } from '../engine/autostop/add-to-plan.js';
import type { AutostopPolicy } from '../engine/autostop/policy.js';
import { cloudANeeds, instanceLookupPlan, instancesOf, planCloudA, type CloudAInstance } from '../engine/planner/cloud_a.js';
import { routeQuestion } from '../engine/routing/route.js';
import { ProviderNotIntegratedError } from '../machines/ask.js';
import { profileForCommand, resolveAiProvider } from '../engine/ai/resolve.js';
import { findKind } from '../engine/gpucloud/catalogue.js';
import { listPlan } from '../engine/gpucloud/static-plans.js';
import { validatePlan } from '../engine/plan/validate.js';
import type { Plan } from '../schemas/plan.js';
import type { CommandContext } from './context.js';
import { readPlan } from '../machines/apply/reads.js';
import type { Session } from './session.js';

/** Catalogue name passed to the maker → catalogue kind read for it. */
const CONTEXT_KINDS: Record<string, string> = {
  instances: 'instances',
  clusters: 'clusters',
  volumes: 'volumes',
  instanceTypes: 'instance-types',
  locations: 'locations',
  images: 'images',
  clusterImages: 'cluster-images',
  clusterTypes: 'cluster-types',
  sshKeys: 'ssh-keys',
  availability: 'availability',
};

/** The AI selection flags shared by `ask` and `ask --maker`. */
export interface AiFlags {
  aiProfile?: string;
  /** `--<provider>-model`, keyed by provider value. */
  modelOverrides?: Record<string, string>;
  /** `--<provider>-api-key`, keyed by provider value. */
  keyFlags?: Record<string, string>;
}

export async function makePlanFromQuestion(
  ctx: CommandContext,
  session: Session,
  question: string,
  opts: { destroyer: boolean; onPhase?: (text: string) => void; providerFlags?: string[]; autostop?: AutostopPolicy } & AiFlags,
): Promise<Plan> {
  const plan = await makeOnePlan(ctx, session, question, opts);
  return opts.autostop ? withAutostop(session, plan, opts.autostop, opts.destroyer) : plan;
}

/**
 * `--autostop`: the watcher added to every instance the plan creates (engine/autostop/add-to-plan.ts),
 * reusing the account's watcher script when it has this one; the result is validated like any plan.
 */
async function withAutostop(session: Session, plan: Plan, policy: AutostopPolicy, destroyer: boolean): Promise<Plan> {
  if (plan.provider !== 'gpucloud' && !(Array.isArray(plan.provider) && plan.provider.includes('gpucloud'))) {
    throw new UsageError('--autostop is for gpucloud instances', { hint: 'ask for a gpucloud instance, or leave --autostop out' });
  }
  const [scripts] = await readPlan(session, listPlan(findKind('scripts')!));
  const out = addAutostop(plan, policy, Array.isArray(scripts) ? (scripts as ExistingScript[]) : []);
  const v = validatePlan(out, { providers: session.providers, destroyer, predefined: Object.keys(session.predefined) });
  if (!v.ok) throw new OperationError('internal', `the plan with auto-stop added is invalid: ${v.problems.map((p) => p.message).join('; ')}`);
  return out;
}

async function makeOnePlan(
  ctx: CommandContext,
  session: Session,
  question: string,
  opts: { destroyer: boolean; onPhase?: (text: string) => void; providerFlags?: string[] } & AiFlags,
): Promise<Plan> {
  const route = routeQuestion(question, { flags: opts.providerFlags, config: session.config });
  if (route.providers.length > 1 || route.providers[0] !== 'gpucloud') requireMakerProvider(route.providers);
  // In the sandbox, with no AI configured, the deterministic built-in planner answers.
  const profileName = profileForCommand(opts.aiProfile, ctx.globals.sandbox, session.config.ai);
  const provider = resolveAiProvider({
    aiConfig: session.config.ai,
    profileName,
    modelOverrides: opts.modelOverrides,
    keyFlags: opts.keyFlags,
    env: ctx.env,
    debug: ctx.globals.debug ? (line) => ctx.io.stderr.write(`debug: ${line}\n`) : undefined,
  });

  if (route.providers[0] === 'cloud_a') return makeCloudAPlan(session, question, provider, opts);

  opts.onPhase?.('reading the gpucloud catalogue');
  const names = Object.keys(CONTEXT_KINDS);
  const read: Plan = { version: 1, provider: 'gpucloud', commands: names.flatMap((n) => listPlan(findKind(CONTEXT_KINDS[n]!)!).commands) };
  const reads = await readPlan(session, read);
  const data = Object.fromEntries(names.map((n, i) => [n, Array.isArray(reads[i]) ? (reads[i] as unknown[]) : []]));

  const predefined = Object.keys(session.predefined);
  opts.onPhase?.(provider.name === 'builtin' ? 'writing the plan' : `asking ${provider.describe()} for a plan`);
  return makePlan({
    provider,
    question,
    catalogue: data,
    lookup: { instances: data.instances as never, clusters: data.clusters as never, volumes: data.volumes as never },
    defaults: session.predefined,
    destroyer: opts.destroyer,
    validate: (plan, o) => validatePlan(plan, { providers: session.providers, destroyer: o.destroyer, predefined }),
    onAttempt: ({ attempt }) => opts.onPhase?.(`the plan had problems; asking again (attempt ${attempt + 1})`),
    signal: ctx.signal,
  });
}

/** The maker writes a plan for one provider, and for gpucloud and cloud_a only (cloud_b/cloud_c plans are written by hand). */
function requireMakerProvider(providers: string[]): void {
  if (providers.length > 1) {
    throw new UsageError(`the maker writes a plan for one provider at a time; this request was routed to ${providers.join(' and ')}`, {
      hint: 'ask for each provider separately (e.g. with --gpucloud or --cloud-a); `assistant ask --route-only "<request>"` shows the routing',
    });
  }
  if (providers[0] !== 'cloud_a') {
    throw new ProviderNotIntegratedError(`the maker writes gpucloud and cloud_a plans; this request was routed to ${providers[0]}`, {
      hint: `write the ${providers[0]} plan by hand (README "Other clouds") and run it with \`assistant ask --apply\``,
    });
  }
}

/**
 * A cloud_a plan: the built-in planner (reading the instances first when the request names one by its
 * Name tag), or the AI with cloud_a's step schema, rules and current instances and buckets.
 */
async function makeCloudAPlan(session: Session, question: string, provider: AiProvider, opts: { destroyer: boolean; onPhase?: (text: string) => void }): Promise<Plan> {
  let builtin: () => Plan;
  let current: Record<string, unknown[] | string> = {};
  if (provider.name === 'builtin') {
    const needs = cloudANeeds(question);
    let instances: CloudAInstance[] | undefined;
    if (needs.instancesNamed) {
      opts.onPhase?.('reading the cloud_a instances');
      instances = instancesOf((await readPlan(session, instanceLookupPlan(needs.instancesNamed, needs.region)))[0]);
    }
    builtin = () => planCloudA(question, instances);
  } else {
    opts.onPhase?.('reading the cloud_a instances and buckets');
    const reads: [string, string[], (data: unknown) => unknown[]][] = [
      ['instances', ['aws', 'ec2', 'describe-instances'], (d) => instancesOf(d)],
      ['buckets', ['aws', 's3api', 'list-buckets'], (d) => (d as { Buckets?: unknown[] } | null)?.Buckets ?? []],
    ];
    // The model can still plan (discovery first) when a read fails; it is told why the data is missing.
    current = Object.fromEntries(
      await Promise.all(
        reads.map(async ([key, args, pick]) => {
          try {
            const [data] = await readPlan(session, { version: 1, provider: 'cloud_a', commands: [{ args, reason: `read the ${key}` }] });
            return [key, pick(data)] as const;
          } catch (err) {
            return [key, `(could not be read: ${(err as Error).message})`] as const;
          }
        }),
      ),
    );
    builtin = () => planCloudA(question);
  }
  opts.onPhase?.(provider.name === 'builtin' ? 'writing the plan' : `asking ${provider.describe()} for a plan`);
  return makePlan({
    provider,
    question,
    catalogue: {},
    defaults: {},
    destroyer: opts.destroyer,
    validate: (plan, o) => validatePlan(plan, { providers: session.providers, destroyer: o.destroyer, predefined: [] }),
    signal: session.runContext().signal,
    target: { system: cloudAMakerPrompt({ destroyer: opts.destroyer, current }), builtin },
  });
}
