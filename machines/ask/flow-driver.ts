/**
 * What the flow machines (the ask flow, the maker flow) share: their placeholder actors, what every
 * actor gets, how an actor's notice reaches the observer, and how a flow is run to its end.
 *
 * Running one: every emitted event goes to one observer, in order; an observer that throws (a closed
 * pipe) ends the flow with its error, like any failure; the signal aborting sends `ask.abort` with its
 * reason (Ctrl-C: the interrupt; `--timeout`: its error), which stops the running actor. Resolves with the machine's output, or throws the error
 * that failed it.
 */
import { createActor, fromPromise, type AnyStateMachine, type PromiseActorLogic } from 'xstate';
import { redactText } from '../../engine/core/redact.js';
import { AssistantError, InterruptedError } from '../../engine/core/errors.js';

/** A placeholder: the machine names the actor, the caller provides it (`<machine>.provide({ actors })`). */
export function placeholderActor<O, I>(flow: string, machine: string, name: string): PromiseActorLogic<O, I> {
  return fromPromise<O, I>(async () => {
    throw new Error(`${flow}: no "${name}" actor was provided (${machine}.provide({ actors }))`);
  });
}

/** What every actor gets: the question, the context object, and `notify`, which sends to the machine while it still runs (a late token after an abort is dropped). */
export function actorInput<C, N>(input: { question: string; context: C }, self: { send(event: N): void; getSnapshot(): { status: string } }): { question: string; context: C; notify: (notice: N) => void } {
  return {
    question: input.question,
    context: input.context,
    notify: (notice) => {
      if (self.getSnapshot().status === 'active') self.send(notice);
    },
  };
}

/** An actor's notice as the observer hears it: a debug line redacted, anything else as it was sent. */
export function heardNotice<T extends { type: string }>(notice: T): T {
  return notice.type === 'ask.debug' ? { ...notice, line: redactText((notice as { line?: string }).line ?? '') } : notice;
}

/** What ended a flow because its signal aborted. */
function abortError(signal: AbortSignal | undefined): AssistantError {
  return signal?.reason instanceof AssistantError ? signal.reason : new InterruptedError();
}

export async function driveFlow<Output>(machine: AnyStateMachine, input: unknown, observe: (event: never) => void, signal: AbortSignal | undefined): Promise<Output> {
  if (signal?.aborted) throw abortError(signal);
  const actor = createActor(machine, { input });
  let observerError: { error: unknown } | undefined;
  actor.on('*', (event) => {
    if (observerError) return;
    try {
      observe(event as never);
    } catch (error) {
      observerError = { error };
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'ask.abort', error });
    }
  });
  const finished = new Promise<void>((resolve) => {
    actor.subscribe({ complete: () => resolve(), error: () => resolve() });
  });
  const onAbort = () => {
    if (actor.getSnapshot().status === 'active') actor.send({ type: 'ask.abort', error: abortError(signal) });
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    actor.start();
    await finished;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const snapshot = actor.getSnapshot();
  if (snapshot.status === 'error') throw snapshot.error;
  if (observerError) throw observerError.error;
  if (snapshot.value === 'failed') throw snapshot.context.error;
  return snapshot.output as Output;
}
