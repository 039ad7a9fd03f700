/**
 * `ask --maker` as explicit states, its work done by actors the caller provides (issue 23, item 3),
 * like the ask flow (machines/ask/ask-flow.ts):
 *
 *   routing (route → chooseModel) → preparing → drafting → validating → done
 *                                                   ↑            ↓
 *                                                   └─ repairing ┘        (any state) → failed
 *
 * The machine names its actors and holds only placeholders: a caller provides them with
 * `makerFlowMachine.provide({ actors })` (machines/make/maker-actors.ts has the common ones, machines/make/make-plan.ts
 * the routing and the reads, tests their own). The rules of a draft (its prompt, how it is judged, what
 * follows a rejection and the repair message) are the maker's (engine/producers/ai/maker.ts); the machine
 * runs them: at most `maxAttempts` drafts (default 3, repairs included).
 *
 * It tells what happens with the ask flow's event types (`ask.phase`, `ask.progress`, `ask.debug`,
 * `ask.failed`) plus `maker.rejected` (a draft went back) and `maker.plan` (the result), to one observer.
 * The context signal aborting ends the flow in `failed` (Ctrl-C: the interrupt; `--timeout`: its
 * error), the running actor stopped (its own signal aborts: a held model request is cancelled).
 */
import { assign, emit, enqueueActions, setup, type PromiseActorLogic } from 'xstate';
import type { MakerInput } from '../../engine/core/capabilities.js';
import type { RouteDecision } from '../../engine/core/routing/route.js';
import { afterRejection, draftSystemPrompt, requestMessage, type DraftVerdict, type ValidationProblem } from '../../engine/producers/ai/maker.js';
import type { AiProvider, ChatMessage } from '../../engine/producers/ai/provider.js';
import type { Plan } from '../../schemas/plan.js';
import type { AskActorInput, AskContext, AskNotice, ChooseModelInput } from '../ask/ask-flow.js';
import { actorInput, driveFlow, heardNotice, placeholderActor } from '../ask/flow-driver.js';
import { endStates, routingState } from '../ask/flow-states.js';

export type MakerPhase = 'routing' | 'preparing' | 'drafting' | 'validating' | 'repairing' | 'done' | 'failed';

/** What the flow tells its observer, in the order it happens. */
export type MakerEvent =
  | { type: 'ask.phase'; from: MakerPhase | 'start'; to: MakerPhase }
  /** What the spinner says: "reading the gpucloud catalogue", "asking openai (gpt-x) for a plan". */
  | { type: 'ask.progress'; text: string }
  /** A diagnostic line; redacted. */
  | { type: 'ask.debug'; line: string }
  /** A draft was rejected (`attempt` drafts made so far) and goes back to the model, or ends the flow. */
  | { type: 'maker.rejected'; attempt: number; problems: ValidationProblem[] }
  | { type: 'maker.plan'; plan: Plan }
  | { type: 'ask.failed'; error: unknown };

export type MakerObserver = (event: MakerEvent) => void;

export interface MakerFlowInput {
  /** The request ("create a 1V100.6V called train-1 …"). */
  question: string;
  /** Provider flags (`--gpucloud`, `--cloud-a`); none: inferred from the request. */
  providers?: string[];
  /** Destructive steps are allowed (`--destroyer`). */
  destroyer: boolean;
  /** Drafts in total, repairs included (default 3). */
  maxAttempts?: number;
  context: AskContext;
}

export interface MakerRouteInput extends AskActorInput {
  providers?: string[];
}
export interface PrepareInput extends AskActorInput {
  route: RouteDecision;
  provider: AiProvider;
  destroyer: boolean;
}
export interface DraftInput extends AskActorInput {
  provider: AiProvider;
  prepared: MakerInput;
  /** The conversation so far: the request, then each rejected draft and its repair message. */
  system: string;
  messages: ChatMessage[];
  /** This draft's number, from 1. */
  attempt: number;
}
/** A model's answer (text), or the built-in planner's plan. */
export type Drafted = { text: string } | { plan: Plan };
export interface ValidateInput extends AskActorInput {
  draft: Drafted;
  prepared: MakerInput;
  destroyer: boolean;
}

/** The actors the machine invokes; every one is provided by the caller. */
export interface MakerActors {
  /** Where the request goes; throws for a request no maker can plan (several providers, one without a maker). */
  route: PromiseActorLogic<RouteDecision, MakerRouteInput>;
  /** The AI provider (the ask flow's chooseModel fits). */
  chooseModel: PromiseActorLogic<AiProvider, ChooseModelInput>;
  /** What the maker plans against, read through the executor (the provider's maker capability). */
  prepare: PromiseActorLogic<MakerInput, PrepareInput>;
  /** One model call, or the built-in planner. */
  draft: PromiseActorLogic<Drafted, DraftInput>;
  /** Judges a draft (engine/producers/ai/maker.ts judgeDraft / judgeBuiltin). */
  validate: PromiseActorLogic<DraftVerdict, ValidateInput>;
}

interface FlowContext {
  input: MakerFlowInput;
  phase: MakerPhase | 'start';
  maxAttempts: number;
  route?: RouteDecision;
  provider?: AiProvider;
  prepared?: MakerInput;
  system: string;
  messages: ChatMessage[];
  attempt: number;
  askedToAvoidDestructive: boolean;
  draft?: Drafted;
  verdict?: DraftVerdict;
  plan?: Plan;
  error?: unknown;
}

type FlowEvent = AskNotice | { type: 'ask.abort'; error: unknown };

const missing = <O, I>(name: keyof MakerActors) => placeholderActor<O, I>('maker flow', 'makerFlowMachine', name);

const isBuiltin = (ctx: FlowContext) => ctx.provider?.name === 'builtin';

/** What follows the rejected draft in context (the maker's rule). */
function next(ctx: FlowContext) {
  return afterRejection(ctx.verdict!, {
    attempt: ctx.attempt,
    maxAttempts: ctx.maxAttempts,
    destroyer: ctx.input.destroyer,
    askedToAvoidDestructive: ctx.askedToAvoidDestructive,
    builtin: isBuiltin(ctx),
    provider: ctx.provider!,
  });
}

export const makerFlowMachine = setup({
  types: { context: {} as FlowContext, input: {} as MakerFlowInput, output: {} as { plan: Plan }, events: {} as FlowEvent, emitted: {} as MakerEvent },
  actors: {
    route: missing<RouteDecision, MakerRouteInput>('route'),
    chooseModel: missing<AiProvider, ChooseModelInput>('chooseModel'),
    prepare: missing<MakerInput, PrepareInput>('prepare'),
    draft: missing<Drafted, DraftInput>('draft'),
    validate: missing<DraftVerdict, ValidateInput>('validate'),
  },
  guards: {
    accepted: ({ context }) => context.verdict!.ok,
    repairable: ({ context }) => next(context).kind === 'repair',
  },
  actions: {
    enter: enqueueActions(({ context, enqueue }, params: { phase: MakerPhase }) => {
      enqueue.emit({ type: 'ask.phase', from: context.phase, to: params.phase });
      enqueue.assign({ phase: params.phase });
    }),
    fail: assign({ error: ({ event }) => (event as { error?: unknown }).error }),
    forward: emit(({ event }) => heardNotice(event as AskNotice) as MakerEvent),
  },
}).createMachine({
  id: 'makerFlow',
  context: ({ input }) => ({
    input,
    phase: 'start',
    maxAttempts: Math.max(1, input.maxAttempts ?? 3),
    system: '',
    messages: [],
    attempt: 0,
    askedToAvoidDestructive: false,
  }),
  on: {
    'ask.progress': { actions: 'forward' },
    'ask.debug': { actions: 'forward' },
    'ask.abort': { target: '.failed', actions: 'fail' },
  },
  initial: 'routing',
  states: {
    routing: routingState<FlowContext, FlowEvent, RouteDecision>({
      flow: 'makerFlow',
      routed: (route) => ({ route }),
      next: '#makerFlow.preparing',
    }),
    preparing: {
      entry: { type: 'enter', params: { phase: 'preparing' } },
      invoke: {
        src: 'prepare',
        input: ({ context, self }) => ({ ...base(context, self), route: context.route!, provider: context.provider!, destroyer: context.input.destroyer }),
        onDone: {
          target: 'drafting',
          actions: [
            assign(({ context, event }) => ({
              prepared: event.output,
              system: draftSystemPrompt(event.output, context.input.destroyer),
              messages: [requestMessage(context.input.question)],
            })),
            emit(({ context }) => ({
              type: 'ask.progress' as const,
              text: isBuiltin(context) ? 'writing the plan' : `asking ${context.provider!.describe()} for a plan`,
            })),
          ],
        },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    drafting: {
      entry: [{ type: 'enter', params: { phase: 'drafting' } }, assign({ attempt: ({ context }) => context.attempt + 1 })],
      invoke: {
        src: 'draft',
        input: ({ context, self }) => ({
          ...base(context, self),
          provider: context.provider!,
          prepared: context.prepared!,
          system: context.system,
          messages: context.messages,
          attempt: context.attempt,
        }),
        onDone: { target: 'validating', actions: assign({ draft: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    validating: {
      entry: { type: 'enter', params: { phase: 'validating' } },
      invoke: {
        src: 'validate',
        input: ({ context, self }) => ({ ...base(context, self), draft: context.draft!, prepared: context.prepared!, destroyer: context.input.destroyer }),
        onDone: { target: 'judging', actions: assign({ verdict: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    // Not a phase: the verdict chooses between done, another draft and failing.
    judging: {
      always: [
        { guard: 'accepted', target: 'done', actions: assign({ plan: ({ context }) => context.verdict!.candidate as Plan }) },
        { guard: 'repairable', target: 'repairing' },
        {
          target: 'failed',
          actions: enqueueActions(({ context, enqueue }) => {
            // A model's last draft was rejected too (the built-in planner's verdict is only the error).
            if (!isBuiltin(context)) enqueue.emit({ type: 'maker.rejected', attempt: context.attempt, problems: context.verdict!.problems });
            enqueue.assign({ error: (next(context) as { error: Error }).error });
          }),
        },
      ],
    },
    repairing: {
      entry: [
        { type: 'enter', params: { phase: 'repairing' } },
        emit(({ context }) => ({ type: 'maker.rejected' as const, attempt: context.attempt, problems: context.verdict!.problems })),
        emit(({ context }) => ({ type: 'ask.progress' as const, text: `the plan had problems; asking again (attempt ${context.attempt + 1})` })),
        assign(({ context }) => {
          const repair = next(context) as Extract<ReturnType<typeof next>, { kind: 'repair' }>;
          const draft = context.draft as { text: string };
          return {
            askedToAvoidDestructive: repair.askedToAvoidDestructive,
            messages: [...context.messages, { role: 'assistant' as const, content: draft.text }, repair.message],
          };
        }),
      ],
      always: { target: 'drafting' },
    },
    ...endStates<FlowContext, FlowEvent, MakerEvent>(emit(({ context }) => ({ type: 'maker.plan' as const, plan: context.plan! }))),
  },
  output: ({ context }) => ({ plan: context.plan! }),
});

export type MakerFlowMachine = typeof makerFlowMachine;

const base = (context: FlowContext, self: { send(event: FlowEvent): void; getSnapshot(): { status: string } }) => actorInput(context.input, self);

/**
 * Runs a provided maker flow to its end, telling `observe` every event in order. Resolves with the
 * plan, or throws the error that failed it (the signal's reason when it was aborted).
 */
export async function runMakerFlow(machine: MakerFlowMachine, input: MakerFlowInput, observe: MakerObserver = () => undefined): Promise<Plan> {
  return (await driveFlow<{ plan: Plan }>(machine, input, observe, input.context.signal)).plan;
}
