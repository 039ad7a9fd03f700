/**
 * When a server stops: Ctrl-C (the command's signal) or SIGTERM, which is how systemd, docker and
 * container platforms stop a process. The process-wide SIGTERM listener lives here for as long as the
 * server serves; it replaces the default "die at once" so in-flight requests can finish.
 *
 * SIGTERM always ends the server: once stopping has begun, a second SIGTERM ends the process at once,
 * and so does `mustEndWithin` when a graceful stop hangs (a database that will not close, a stuck
 * handle), so a supervisor never has to reach for SIGKILL.
 */
export function whenStopped(signal: AbortSignal): { stopped: Promise<'SIGTERM' | 'interrupt'>; dispose(): void } {
  let onTerm: () => void = () => undefined;
  let onAbort: () => void = () => undefined;
  let terms = 0;
  const stopped = new Promise<'SIGTERM' | 'interrupt'>((resolve) => {
    onTerm = () => {
      // A second SIGTERM while the first one's graceful stop runs: the supervisor means it.
      if (++terms > 1) process.exit(143);
      resolve('SIGTERM');
    };
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

/**
 * Ends the process `ms` after a stop began if it is still alive by then (the timer does not itself keep
 * it alive): the last resort that makes SIGTERM final. `log` says why before it happens.
 */
export function mustEndWithin(ms: number, log: (line: string) => void): void {
  const timer = setTimeout(() => {
    log(`did not stop within ${Math.round(ms / 1000)} s; exiting`);
    process.exit(1);
  }, ms);
  timer.unref();
}
