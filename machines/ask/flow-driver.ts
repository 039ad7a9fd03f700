/**
 * Runs a flow machine (the ask flow, the maker flow) to its end, for both: every emitted event to one
 * observer in order; an observer that throws (a closed pipe) ends the flow with its error, like any
 * failure; the signal aborting sends `ask.abort` with its reason (Ctrl-C: the interrupt; `--timeout`:
 * its error), which stops the running actor. Resolves with the machine's output, or throws the error
 * that failed it.
 */
import { createActor, type AnyStateMachine } from 'xstate';
import { AssistantError, InterruptedError } from '../../engine/core/errors.js';

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
