/**
 * `ask --maker "<request>"`: the AI (or the built-in planner) writes a plan; only the plan JSON goes to
 * stdout. The catalogue and current resources it needs are read with a read-only plan through the same
 * executor, and the result passes the same validator and destroyer gate as any plan.
 */
import { fromPromise } from 'xstate';
import type { MakerInput } from '../../engine/core/capabilities.js';
import { routeQuestion, type RouteDecision } from '../../engine/core/routing/route.js';
import { chooseModelActor } from '../ask/ask-actors.js';
import type { AskContext } from '../ask/ask-flow.js';
import { draftActor, validateWith } from './maker-actors.js';
import { makerFlowMachine, runMakerFlow, type MakerRouteInput, type PrepareInput } from './maker-flow.js';
import { OperationError, UsageError } from '../../engine/core/errors.js';
import { addAutostop, type ExistingScript } from '../../engine/producers/autostop/add-to-plan.js';
import type { AutostopPolicy } from '../../engine/producers/autostop/policy.js';
import { PROVIDERS, providerRoutings, providersWith } from '../../engine/providers/index.js';
import { ProviderNotIntegratedError } from '../ask/ask.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { withNotes } from '../../engine/core/plan/notes.js';
import type { Plan } from '../../schemas/plan.js';
import type { CommandContext } from '../../commands/context.js';
import { readPlan } from '../apply/reads.js';
import { findKind } from '../../engine/providers/gpucloud/catalogue.js';
import { listPlan } from '../../engine/providers/gpucloud/static-plans.js';
import type { Session } from '../../commands/session.js';

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
  const made = await makeOnePlan(ctx, session, question, opts);
  const plan = await withStatedDefaults(made);
  return opts.autostop ? withAutostop(session, plan, opts.autostop, opts.destroyer) : plan;
}

/** The plan with its maker's notes on sizes it leaves to the API that cost money (MakerCapability.statedDefaults). */
async function withStatedDefaults(plan: Plan): Promise<Plan> {
  const names = new Set(Array.isArray(plan.provider) ? plan.provider : [plan.provider]);
  const notes = (await providersWith('maker')).filter((p) => names.has(p.name)).flatMap((p) => p.capabilities.maker.statedDefaults?.(plan) ?? []);
  return withNotes(plan, notes);
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

/**
 * One plan through the maker flow (machines/make/maker-flow.ts): the request is routed (one provider with a
 * maker), the AI provider chosen, the maker's catalogue read through the executor, then drafts are
 * validated and repaired. Its progress drives `onPhase` (the spinner); its debug lines `--debug`.
 */
async function makeOnePlan(
  ctx: CommandContext,
  session: Session,
  question: string,
  opts: { destroyer: boolean; onPhase?: (text: string) => void; providerFlags?: string[] } & AiFlags,
): Promise<Plan> {
  const predefined = Object.keys(session.predefined);
  const machine = makerFlowMachine.provide({
    actors: {
      route: fromPromise<RouteDecision, MakerRouteInput>(async ({ input }) => {
        const route = routeQuestion(input.question, { flags: input.providers, config: session.config, routings: await providerRoutings() });
        requireMakerProvider(route.providers);
        return route;
      }),
      // In the sandbox, with no AI configured, the deterministic built-in planner answers.
      chooseModel: chooseModelActor,
      prepare: fromPromise<MakerInput, PrepareInput>(async ({ input }) => {
        const [target] = input.route.providers;
        const maker = (await providersWith('maker')).find((p) => p.name === target)!.capabilities.maker;
        return maker.prepare(input.question, {
          read: (plan) => readPlan(session, plan),
          config: session.config,
          predefined: session.predefined,
          builtin: input.provider.name === 'builtin',
          destroyer: input.destroyer,
          onPhase: (text) => input.notify({ type: 'ask.progress', text }),
        });
      }),
      draft: draftActor,
      validate: validateWith(async (plan, o) => validatePlan(plan, { providers: await session.providers.forPlan(plan), destroyer: o.destroyer, predefined })),
    },
  });
  const context: AskContext = {
    backend: session,
    home: ctx.home,
    env: ctx.env,
    signal: ctx.signal,
    sandbox: ctx.globals.sandbox,
    ai: { profile: opts.aiProfile, modelOverrides: opts.modelOverrides, keyFlags: opts.keyFlags },
  };
  const debug = ctx.debug.callback;
  return runMakerFlow(machine, { question, providers: opts.providerFlags, destroyer: opts.destroyer, context }, (event) => {
    if (event.type === 'ask.progress') opts.onPhase?.(event.text);
    else if (event.type === 'ask.debug') debug?.(event.line);
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
