/**
 * `ask --maker "<request>"`: the AI (or the built-in planner) writes a plan; only the plan JSON goes to
 * stdout. The catalogue and current resources it needs are read with a read-only plan through the same
 * executor, and the result passes the same validator and destroyer gate as any plan.
 */
import { makePlan } from '../engine/producers/ai/maker.js';
import { OperationError, UsageError } from '../engine/core/errors.js';
import { addAutostop, type ExistingScript } from '../engine/producers/autostop/add-to-plan.js';
import type { AutostopPolicy } from '../engine/producers/autostop/policy.js';
import { routeQuestion } from '../engine/core/routing/route.js';
import { PROVIDERS, providerRoutings, providersWith } from '../engine/providers/index.js';
import { ProviderNotIntegratedError } from '../machines/ask.js';
import { profileForCommand, resolveAiProvider } from '../engine/producers/ai/resolve.js';
import { validatePlan } from '../engine/core/plan/validate.js';
import type { Plan } from '../schemas/plan.js';
import type { CommandContext } from './context.js';
import { readPlan } from '../machines/apply/reads.js';
import { findKind } from '../engine/providers/gpucloud/catalogue.js';
import { listPlan } from '../engine/providers/gpucloud/static-plans.js';
import type { Session } from './session.js';

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
 * `--autostop`: the watcher added to every instance the plan creates (engine/producers/autostop/add-to-plan.ts),
 * reusing the account's watcher script when it has this one; the result is validated like any plan.
 */
async function withAutostop(session: Session, plan: Plan, policy: AutostopPolicy, destroyer: boolean): Promise<Plan> {
  if (plan.provider !== 'gpucloud' && !(Array.isArray(plan.provider) && plan.provider.includes('gpucloud'))) {
    throw new UsageError('--autostop is for gpucloud instances', { hint: 'ask for a gpucloud instance, or leave --autostop out' });
  }
  const [scripts] = await readPlan(session, listPlan(findKind('scripts')!));
  const out = addAutostop(plan, policy, Array.isArray(scripts) ? (scripts as ExistingScript[]) : []);
  const v = validatePlan(out, { providers: await session.providers.forPlan(out), destroyer, predefined: Object.keys(session.predefined) });
  if (!v.ok) throw new OperationError('internal', `the plan with auto-stop added is invalid: ${v.problems.map((p) => p.message).join('; ')}`);
  return out;
}

async function makeOnePlan(
  ctx: CommandContext,
  session: Session,
  question: string,
  opts: { destroyer: boolean; onPhase?: (text: string) => void; providerFlags?: string[] } & AiFlags,
): Promise<Plan> {
  const route = routeQuestion(question, { flags: opts.providerFlags, config: session.config, routings: await providerRoutings() });
  requireMakerProvider(route.providers);
  // In the sandbox, with no AI configured, the deterministic built-in planner answers.
  const profileName = profileForCommand(opts.aiProfile, ctx.globals.sandbox, session.config.ai);
  const provider = resolveAiProvider({
    aiConfig: session.config.ai,
    profileName,
    modelOverrides: opts.modelOverrides,
    keyFlags: opts.keyFlags,
    env: ctx.env,
    debug: ctx.debug.callback,
  });

  const [target] = route.providers;
  const maker = (await providersWith('maker')).find((p) => p.name === target)!.capabilities.maker;
  const input = await maker.prepare(question, {
    read: (plan) => readPlan(session, plan),
    config: session.config,
    predefined: session.predefined,
    builtin: provider.name === 'builtin',
    destroyer: opts.destroyer,
    onPhase: opts.onPhase,
  });
  const predefined = Object.keys(session.predefined);
  opts.onPhase?.(provider.name === 'builtin' ? 'writing the plan' : `asking ${provider.describe()} for a plan`);
  return makePlan({
    ...input,
    provider,
    question,
    destroyer: opts.destroyer,
    validate: async (plan, o) => validatePlan(plan, { providers: await session.providers.forPlan(plan), destroyer: o.destroyer, predefined }),
    onAttempt: ({ attempt }) => opts.onPhase?.(`the plan had problems; asking again (attempt ${attempt + 1})`),
    signal: ctx.signal,
  });
}

/** The maker writes a plan for one provider at a time, and only for providers with a maker capability. */
function requireMakerProvider(providers: string[]): void {
  if (providers.length > 1) {
    throw new UsageError(`the maker writes a plan for one provider at a time; this request was routed to ${providers.join(' and ')}`, {
      hint: 'ask for each provider separately (e.g. with --gpucloud or --cloud-a); `assistant ask --route-only "<request>"` shows the routing',
    });
  }
  // The manifest names the makers: no provider is loaded to say who can make plans.
  const makers = PROVIDERS.namesWith('maker');
  if (!makers.includes(providers[0]!)) {
    throw new ProviderNotIntegratedError(`the maker writes ${makers.join(' and ')} plans; this request was routed to ${providers[0]}`, {
      hint: `write the ${providers[0]} plan by hand (README "Other clouds") and run it with \`assistant ask --apply\``,
    });
  }
}
