/**
 * The states the flow machines (the ask flow, the maker flow) build alike, written once:
 *
 *   routing: deciding (route) → choosingModel (chooseModel) → [the flow's own sub-states] → its next phase
 *   done / failed: final, each entered as a phase and telling the observer its last event
 *
 * The states name actors and actions by string: the machine's `setup` defines them (its `route` and
 * `chooseModel` actors, its `enter` and `fail` actions), so a name that is missing fails to compile where
 * the states are used. What the flows do differently is passed in: what a route's output assigns, where
 * the flow goes once the model is chosen, and the event the `done` state emits.
 */
import { assign, emit, type ActionFunction, type DoneActorEvent, type EventObject, type MachineContext } from 'xstate';
import type { RouteDecision } from '../../engine/core/routing/route.js';
import type { AiProvider } from '../../engine/producers/ai/provider.js';
import { actorInput } from './flow-driver.js';

/** What routing reads from a flow's context and writes to it. */
export interface RoutingContext extends MachineContext {
  input: { question: string; providers?: string[]; context: unknown };
  route?: RouteDecision;
  provider?: AiProvider;
  error?: unknown;
}

/** The machine itself, as an actor's input sees it: it takes the actors' notices while it runs. */
export interface FlowSelf<E> {
  send(event: E): void;
  getSnapshot(): { status: string };
}

/** An action run on a state's event, typed by that event (an actor's done event carries its output); it starts no actor and raises nothing. */
type ActionOn<C extends MachineContext, X extends EventObject, E extends EventObject, Emitted extends EventObject = never> = ActionFunction<
  C,
  X,
  E,
  undefined,
  never,
  never,
  never,
  never,
  Emitted
>;

/** What every actor of a flow gets: the question, the context object and `notify`. */
export function flowActorInput<C extends RoutingContext, E>({ context, self }: { context: C; self: FlowSelf<E> }) {
  return actorInput(context.input as { question: string; context: C['input']['context'] }, self);
}

/**
 * The routing phase: the route actor decides where the request goes (`routed`: what of its output the context keeps), then
 * chooseModel picks the AI provider; `next` is where the flow goes after that (an id like `#askFlow.gathering`,
 * or one of `more`, the flow's own sub-states that follow). Either actor failing fails the flow.
 */
export function routingState<C extends RoutingContext, E extends EventObject, R, const S extends object = object>(spec: {
  flow: string;
  routed(output: R): Partial<C>;
  next: string;
  more?: S;
}) {
  const failed = `#${spec.flow}.failed`;
  return {
    entry: { type: 'enter', params: { phase: 'routing' } },
    initial: 'deciding',
    states: {
      deciding: {
        invoke: {
          src: 'route',
          input: (args: { context: C; self: FlowSelf<E> }) => ({ ...flowActorInput(args), providers: args.context.input.providers }),
          onDone: { target: 'choosingModel', actions: assign<C, DoneActorEvent<R>, undefined, E, never>(({ event }) => spec.routed(event.output)) },
          onError: { target: failed, actions: 'fail' },
        },
      },
      choosingModel: {
        invoke: {
          src: 'chooseModel',
          input: (args: { context: C; self: FlowSelf<E> }) => ({ ...flowActorInput(args), route: args.context.route! }),
          onDone: { target: spec.next, actions: assign<C, DoneActorEvent<AiProvider>, undefined, E, never>(({ event }) => ({ provider: event.output }) as Partial<C>) },
          onError: { target: failed, actions: 'fail' },
        },
      },
      ...(spec.more ?? ({} as S)),
    },
  } as const;
}

/** The final states: `done` emits the flow's result (`result`), `failed` emits `ask.failed` with the error that ended it. */
export function endStates<C extends RoutingContext, E extends EventObject, Result extends EventObject>(result: ActionOn<C, E, E, Result>) {
  const failure = emit<C, E, undefined, E, { type: 'ask.failed'; error: unknown }>(({ context }) => ({ type: 'ask.failed', error: context.error }));
  return {
    done: { type: 'final', entry: [{ type: 'enter', params: { phase: 'done' } }, result] },
    failed: { type: 'final', entry: [{ type: 'enter', params: { phase: 'failed' } }, failure] },
  } as const;
}
