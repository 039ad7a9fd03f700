/**
 * One process at a time per PGlite data directory (two would corrupt it): `<data-dir>/backend.lock`
 * holds the owner's pid, created exclusively. A lock whose process is gone (kill -9) is taken over.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive as alive } from '../engine/core/process/probe.js';

export interface DataDirLock {
  release(): void;
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'backend.lock');
}


/** The pid holding the data directory, when a live process does. */
export function lockHolder(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock, or returns the live holder's pid. */
export function acquireLock(dataDir: string): DataDirLock | { heldBy: number } {
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          if (lockHolder(dataDir) === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(dataDir);
      if (holder !== undefined) return { heldBy: holder };
      // Stale (its process died): move it aside under a unique name, so two takers cannot both remove it.
      try {
        renameSync(path, `${path}.stale.${process.pid}.${attempt}`);
        rmSync(`${path}.stale.${process.pid}.${attempt}`, { force: true });
      } catch {
        // Someone else took it over first; try again.
      }
    }
  }
  throw new Error(`cannot take the lock ${path}`);
}
