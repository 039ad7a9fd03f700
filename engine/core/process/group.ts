/**
 * Child processes that can be stopped as a whole. A CLI may start helpers of its own (a shell script's
 * `sleep`, git's transport helpers) that inherit its stdout: killing only the child leaves them holding
 * the pipe, so its 'close' never comes and a `--timeout` or Ctrl-C waits for the helpers to finish.
 * Spawned `detached`, the child leads its own process group, and the whole group is signalled.
 */
import type { ChildProcess } from 'node:child_process';

/** Spawn options that make the child lead its own process group (see killGroup). */
export const OWN_GROUP = { detached: true } as const;

/** Signals the child's process group (falling back to the child alone if the group is gone). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}
