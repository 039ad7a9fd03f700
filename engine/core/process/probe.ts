/** Questions about processes and executables on this host, asked without side effects. */
import { accessSync, constants, statSync } from 'node:fs';

/** Whether a process with this ID exists on this host; one owned by another user (EPERM) exists too. */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An executable regular file at `path`. */
export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
