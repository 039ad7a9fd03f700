/**
 * The actors every maker flow provides the same way (machines/make/maker-flow.ts): a draft (one model call
 * with the plan JSON Schema as structured output, or the built-in planner) and its judging with a plan
 * validator. `makePlan` runs the flow for a caller that already has the AI provider and the catalogue
 * (tests, anything without a session): routing and preparing hand back what it was given.
 */
import { fromPromise } from 'xstate';
import type { MakerInput } from '../../engine/core/capabilities.js';
import type { RouteDecision } from '../../engine/core/routing/route.js';
import { judgeBuiltin, judgeDraft, type PlanValidator, type ValidationProblem } from '../../engine/producers/ai/maker.js';
import { planSchemaBody } from '../../schemas/plan-json-schema.js';
import type { AiProvider } from '../../engine/producers/ai/provider.js';
import { planBuiltin } from '../../engine/producers/planner/builtin.js';
import type { Plan } from '../../schemas/plan.js';
import { actorSignal } from '../ask/ask-actors.js';
import type { AskContext, ChooseModelInput } from '../ask/ask-flow.js';
import { makerFlowMachine, runMakerFlow, type DraftInput, type Drafted, type MakerActors, type MakerObserver, type MakerRouteInput, type PrepareInput, type ValidateInput } from './maker-flow.js';

/** One draft: the model answers the conversation so far (JSON, temperature 0); the built-in planner plans without one. */
export const draftActor: MakerActors['draft'] = fromPromise<Drafted, DraftInput>(async ({ input, signal }) => {
  const { provider, prepared, question } = input;
  if (provider.name === 'builtin') {
    return { plan: prepared.target ? prepared.target.builtin() : planBuiltin(question, { lookup: prepared.lookup, catalogue: prepared.catalogue, defaults: prepared.defaults }) };
  }
  const { text } = await provider.chat({
    system: input.system,
    messages: input.messages,
    json: { schema: planSchemaBody(), name: 'plan' },
    temperature: 0,
    signal: actorSignal(input.context, signal),
  });
  return { text };
});

/** Judges each draft with `validate` (plus, for a model's gpucloud plan, the live catalogue). */
export function validateWith(validate: PlanValidator): MakerActors['validate'] {
  return fromPromise(async ({ input }: { input: ValidateInput }) => {
    const { draft, destroyer, prepared } = input;
    if ('plan' in draft) return judgeBuiltin(draft.plan, { destroyer, validate });
    return judgeDraft(draft.text, { question: input.question, destroyer, validate, catalogue: prepared.catalogue, defaults: prepared.defaults, target: prepared.target });
  });
}

export interface MakePlanOptions extends MakerInput {
  provider: AiProvider;
  question: string;
  destroyer: boolean;
  validate: PlanValidator;
  signal?: AbortSignal;
  /** Drafts in total, repairs included (default 3). */
  maxAttempts?: number;
  /** Called after each rejected draft of a model. */
  onAttempt?: (event: { attempt: number; problems: ValidationProblem[] }) => void;
  /** Every event of the flow (phases, progress, debug). */
  observe?: MakerObserver;
}

/** A plan for `question` from `provider` against the given catalogue, through the maker flow. */
export function makePlan(options: MakePlanOptions): Promise<Plan> {
  const { provider, catalogue, defaults, lookup, target } = options;
  const machine = makerFlowMachine.provide({
    actors: {
      route: fromPromise<RouteDecision, MakerRouteInput>(async () => ({ providers: ['gpucloud'], reasons: [], kinds: [], defaulted: true })),
      chooseModel: fromPromise<AiProvider, ChooseModelInput>(async () => provider),
      prepare: fromPromise<MakerInput, PrepareInput>(async () => ({ catalogue, defaults, lookup, target })),
      draft: draftActor,
      validate: validateWith(options.validate),
    },
  });
  // Routing and preparing are given, so nothing reads the context beyond its signal.
  const context = { env: {}, home: '', signal: options.signal } as AskContext;
  return runMakerFlow(machine, { question: options.question, destroyer: options.destroyer, maxAttempts: options.maxAttempts, context }, (event) => {
    if (event.type === 'maker.rejected') options.onAttempt?.({ attempt: event.attempt, problems: event.problems });
    options.observe?.(event);
  });
}
