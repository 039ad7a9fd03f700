/**
 * `ask --maker "<request>"`: the AI (or the built-in planner) writes a plan; only the plan JSON goes to
 * stdout. The catalogue and current resources it needs are read with a read-only plan through the same
 * executor, and the result passes the same validator and destroyer gate as any plan.
 */
import { makePlan } from '../engine/ai/maker.js';
import { profileForCommand, resolveAiProvider } from '../engine/ai/resolve.js';
import { findKind } from '../engine/gpucloud/catalogue.js';
import { listPlan } from '../engine/gpucloud/static-plans.js';
import { validatePlan } from '../engine/plan/validate.js';
import type { Plan } from '../schemas/plan.js';
import type { CommandContext } from './context.js';
import { runForResults } from '../machines/run-plan.js';
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
  opts: { destroyer: boolean; onPhase?: (text: string) => void } & AiFlags,
): Promise<Plan> {
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

  opts.onPhase?.('reading the gpucloud catalogue');
  const names = Object.keys(CONTEXT_KINDS);
  const read: Plan = { version: 1, provider: 'gpucloud', commands: names.flatMap((n) => listPlan(findKind(CONTEXT_KINDS[n]!)!).commands) };
  const reads = await runForResults(session, read);
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
