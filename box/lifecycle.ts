/**
 * When a box stops: Ctrl-C (the command's signal) or SIGTERM, which is how container platforms stop a
 * replica. The process-wide SIGTERM listener lives here, in the server's module, for as long as the box
 * serves; it replaces the default "die at once" so in-flight answers can finish (box/server.ts close).
 */
export function whenStopped(signal: AbortSignal): { stopped: Promise<'SIGTERM' | 'interrupt'>; dispose(): void } {
  let onTerm: () => void = () => undefined;
  let onAbort: () => void = () => undefined;
  const stopped = new Promise<'SIGTERM' | 'interrupt'>((resolve) => {
    onTerm = () => resolve('SIGTERM');
    onAbort = () => resolve('interrupt');
    // `on`, not `once`: the listener must still be there while SIGTERM is dispatched. signal-exit (in
    // proper-lockfile, loaded at the first lock, after this) re-sends the signal to kill the process
    // when it finds itself the only listener left, which a `once` listener leaves it.
    process.on('SIGTERM', onTerm);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return {
    stopped,
    dispose: () => {
      process.removeListener('SIGTERM', onTerm);
      signal.removeEventListener('abort', onAbort);
    },
  };
}
