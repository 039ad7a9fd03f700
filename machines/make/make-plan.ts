/**
 * The make use case (`ask --maker "<request>"`, talk's plans, a box's plans): the AI (or the built-in
 * planner) writes a plan. The catalogue and current resources it needs are read with a read-only plan
 * through the same executor, and the result passes the same validator and destroyer gate as any plan.
 * It takes an ask context (its plan backend, home, env, signal, AI choice), not a command's: the CLI,
 * talk and the box each build one and render the plan their own way.
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
import type { AutostopPolicy } from '../../engine/core/kits/autostop/policy.js';
import { PROVIDERS, providerRoutings, providersWith, providerWith } from '../../engine/providers/index.js';
import { ProviderNotIntegratedError } from '../ask/ask.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { withNotes } from '../../engine/core/plan/notes.js';
import type { Plan } from '../../schemas/plan.js';
import { readPlan } from '../apply/reads.js';

export interface MakeOptions {
  /** `--destroyer`: destructive steps are allowed (and the model is told so). */
  destroyer: boolean;
  /** Provider flags (`--gpucloud`, `--cloud-a`, …); none: routed from the request. */
  providers?: string[];
  /** `--autostop`: a watcher added to every instance the plan creates. */
  autostop?: AutostopPolicy;
  /** What the maker is doing now (a spinner's text). */
  onPhase?: (text: string) => void;
  /** `--debug` lines. */
  onDebug?: (line: string) => void;
}

export async function makePlanFromQuestion(context: AskContext, question: string, opts: MakeOptions): Promise<Plan> {
  const made = await makeOnePlan(context, question, opts);
  const plan = await withStatedDefaults(made);
  return opts.autostop ? withAutostop(context, plan, opts.autostop, opts.destroyer) : plan;
}

/** The plan with its maker's notes on sizes it leaves to the API that cost money (MakerCapability.statedDefaults). */
async function withStatedDefaults(plan: Plan): Promise<Plan> {
  const names = new Set(Array.isArray(plan.provider) ? plan.provider : [plan.provider]);
  const notes = (await providersWith('maker')).filter((p) => names.has(p.name)).flatMap((p) => p.capabilities.maker.statedDefaults?.(plan) ?? []);
  return withNotes(plan, notes);
}

/**
 * `--autostop`: the watcher added to every instance the plan creates (engine/producers/autostop/add-to-plan.ts),
 * reusing the account's watcher script when it has this one (read with the plan its maker names:
 * MakerCapability.autostopScripts); the result is validated like any plan.
 */
async function withAutostop(context: AskContext, plan: Plan, policy: AutostopPolicy, destroyer: boolean): Promise<Plan> {
  const backend = context.backend;
  const scriptsPlan = await autostopScriptsPlan(plan);
  const [scripts] = await readPlan(backend, scriptsPlan);
  const out = addAutostop(plan, policy, Array.isArray(scripts) ? (scripts as ExistingScript[]) : []);
  const v = validatePlan(out, { providers: await backend.providers.forPlan(out), destroyer, predefined: Object.keys(backend.predefined) });
  if (!v.ok) throw new OperationError('internal', `the plan with auto-stop added is invalid: ${v.problems.map((p) => p.message).join('; ')}`);
  return out;
}

/** The read of the account's scripts, from the maker of one of the plan's providers that can add a watcher; refused for any other plan. */
async function autostopScriptsPlan(plan: Plan): Promise<Plan> {
  for (const name of Array.isArray(plan.provider) ? plan.provider : [plan.provider]) {
    const scripts = (await providerWith('maker', name))?.capabilities.maker.autostopScripts;
    if (scripts) return scripts();
  }
  const watchers = (await providersWith('maker')).filter((p) => p.capabilities.maker.autostopScripts).map((p) => p.name);
  throw new UsageError(`--autostop is for ${watchers.join(' and ')} instances`, { hint: `ask for a ${watchers.join(' or ')} instance, or leave --autostop out` });
}

/**
 * One plan through the maker flow (machines/make/maker-flow.ts): the request is routed (one provider with a
 * maker), the AI provider chosen, the maker's catalogue read through the executor, then drafts are
 * validated and repaired. Its progress drives `onPhase` (the spinner); its debug lines `onDebug`.
 */
async function makeOnePlan(context: AskContext, question: string, opts: MakeOptions): Promise<Plan> {
  const backend = context.backend;
  const predefined = Object.keys(backend.predefined);
  const machine = makerFlowMachine.provide({
    actors: {
      route: fromPromise<RouteDecision, MakerRouteInput>(async ({ input }) => {
        const route = routeQuestion(input.question, { flags: input.providers, config: backend.config, routings: await providerRoutings() });
        requireMakerProvider(route.providers);
        return route;
      }),
      // In the sandbox, with no AI configured, the deterministic built-in planner answers.
      chooseModel: chooseModelActor,
      prepare: fromPromise<MakerInput, PrepareInput>(async ({ input }) => {
        const [target] = input.route.providers;
        const maker = (await providersWith('maker')).find((p) => p.name === target)!.capabilities.maker;
        return maker.prepare(input.question, {
          read: (plan) => readPlan(backend, plan),
          config: backend.config,
          predefined: backend.predefined,
          builtin: input.provider.name === 'builtin',
          destroyer: input.destroyer,
          onPhase: (text) => input.notify({ type: 'ask.progress', text }),
        });
      }),
      draft: draftActor,
      validate: validateWith(async (plan, o) => validatePlan(plan, { providers: await backend.providers.forPlan(plan), destroyer: o.destroyer, predefined })),
    },
  });
  return runMakerFlow(machine, { question, providers: opts.providers, destroyer: opts.destroyer, context }, (event) => {
    if (event.type === 'ask.progress') opts.onPhase?.(event.text);
    else if (event.type === 'ask.debug') opts.onDebug?.(event.line);
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
