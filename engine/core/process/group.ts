/**
 * Child processes that can be stopped as a whole. A CLI may start helpers of its own (a shell script's
 * `sleep`, git's transport helpers) that inherit its stdout: killing only the child leaves them holding
 * the pipe, so its 'close' never comes and a `--timeout` or Ctrl-C waits for the helpers to finish.
 * Spawned `detached`, the child leads its own process group, and the whole group is signalled.
 */
import type { ChildProcess } from 'node:child_process';

/** Spawn options that make the child lead its own process group (see killGroup). */
export const OWN_GROUP = { detached: true } as const;

/**
 * Children whose processes a signal to their group does not reach, and how to stop them instead: a
 * sandbox (engine/core/process/contain.ts) runs its program in a PID namespace and a session of its own.
 */
const stoppers = new WeakMap<ChildProcess, (signal: NodeJS.Signals) => void>();

/** Says how this child is stopped: killGroup calls `stop` instead of signalling the group. */
export function stopsWith(child: ChildProcess, stop: (signal: NodeJS.Signals) => void): void {
  stoppers.set(child, stop);
}

/** Signals the child's process group (falling back to the child alone if the group is gone). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const stop = stoppers.get(child);
  if (stop) return stop(signal);
  signalGroup(child, signal);
}

/** The signal to the group itself, whatever stopper the child has. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}
