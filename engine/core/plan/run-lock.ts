/**
 * One run per plan at a time (issue 9 §1): a run holds an exclusive lock on its journal, so a second
 * `--apply`/`--resume` of the same plan (or a second MCP call) cannot run the remaining steps again.
 *
 * The lock is a lock file (engine/core/process/lock-file.ts) that names its holder (pid, host, start,
 * label), taken in one atomic step, so a refusal can always say which run holds it and a second process
 * never mistakes a live holder for a dead one. A holder whose process is gone (kill -9) is taken over at
 * once; one on another host sharing the home is refused, and its lock expires when it stops refreshing it
 * (every UPDATE_MS) for STALE_MS.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { OperationError, SafetyRefusal } from '../errors.js';
import { lockFileWaiting, ownerDead, tryLockFile, type HeldLockFile, type LockOwner } from '../process/lock-file.js';

/** A holder that has not refreshed its lock for this long is dead (kill -9 on another host, power loss). */
export const STALE_MS = 10_000;
export const UPDATE_MS = 2_000;

export type Owner = LockOwner;

export interface RunLock {
  /** The lock file. */
  readonly file: HeldLockFile;
  /** The holder whose lock this one took over because its process had died (kill -9). */
  readonly tookOverFrom?: Owner;
  release(): Promise<void>;
  /** Throws when the lock was lost (another process took it over after this one stalled). */
  assertHeld(): void;
}

export interface LockOptions {
  /** Told once when the lock of a dead run is being waited out. */
  onWait?: (message: string, waitMs: number) => void;
}

/** The lock of one plan's run journal: a second run of the same plan is refused while the first lives. */
export function lockRun(journalPath: string, opts: LockOptions = {}): Promise<RunLock> {
  return lockExclusive(journalPath, { ...opts, what: 'the lock of an earlier run', refusal });
}

export interface ExclusiveOptions extends LockOptions {
  /** What is waited for, in the wait notice (`the lock of an earlier run`). */
  what: string;
  /** The refusal when a live process holds the lock. */
  refusal: (owner: Owner | undefined) => Error;
  /** Written in the lock for a refusal to show. */
  label?: string;
  /** The run journal of the holder, written in the lock (LockOwner.journal). */
  journal?: string;
}

/**
 * An exclusive lock on `path` across the processes of this machine (and of a shared home): taken at once,
 * refused when a live process holds it, waited out (at most STALE_MS) when its holder cannot be known (a
 * lock left by an older version). Used for run journals, budget checks and auto-stop's records.
 */
export async function lockExclusive(path: string, opts: ExclusiveOptions): Promise<RunLock> {
  const lockPath = `${path}.lock`;
  const options = { staleMs: STALE_MS, refreshMs: UPDATE_MS, label: opts.label, journal: opts.journal };
  let taken;
  try {
    taken = tryLockFile(lockPath, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // The first lock under this home: its directory is made once, not by every run.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    taken = tryLockFile(lockPath, options);
  }
  if (!('held' in taken)) {
    // A named holder that is not known to be dead is live (or on another host): refuse at once.
    if (taken.busy) throw opts.refusal(taken.busy);
    opts.onWait?.(`waiting up to ${STALE_MS / 1000} s for ${opts.what} to expire`, STALE_MS);
    taken = await lockFileWaiting(lockPath, options, Math.ceil((STALE_MS + 5_000) / 500), () => 500);
    if (!('held' in taken)) throw opts.refusal(taken.busy);
  }
  if (taken.tookOverFrom) opts.onWait?.(`took over ${opts.what} (pid ${taken.tookOverFrom.pid}, no longer running)`, 0);
  const held: HeldLockFile = taken.held;
  return {
    file: held,
    ...(taken.tookOverFrom ? { tookOverFrom: taken.tookOverFrom } : {}),
    async release() {
      held.release();
    },
    assertHeld() {
      const why = held.lost();
      if (why) {
        throw new OperationError('lock_lost', `the lock on this plan's run journal was lost (${why}); stopping rather than risk running steps twice`, {
          hint: 'check that no other run of this plan is active, then continue with --resume',
        });
      }
    },
  };
}

/** Only a process on this host can be checked; elsewhere (a shared home) the holder counts as alive. */
export function isDead(owner: Owner): boolean {
  return ownerDead(owner);
}

function refusal(owner: Owner | undefined): SafetyRefusal {
  const who = owner ? ` (pid ${owner.pid} on ${owner.host}, started ${owner.started_at})` : '';
  return new SafetyRefusal(`another run of this plan is in progress${who}; running it twice at once could create everything twice`, {
    hint: 'wait for that run to finish (or stop it), then continue with --resume if it did not finish',
  });
}
