/**
 * One run per plan at a time (issue 9 §1): a run holds an exclusive lock on its journal, so a second
 * `--apply`/`--resume` of the same plan (or a second MCP call) cannot run the remaining steps again.
 *
 * proper-lockfile keeps the lock as a directory whose mtime the holder refreshes every `update` ms; a
 * lock not refreshed for `stale` ms (its holder was killed with -9) is taken over by the library itself.
 * Beside it, `<journal>.owner` names the holder (pid, host, start) so a refusal can say which run holds
 * it, and so a waiting process can tell a dead holder (wait for the lock to go stale) from a live one
 * (refuse at once). The owner file is only advice: taking over is always the library's stale rule.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import { OperationError, SafetyRefusal } from '../errors.js';

const require = createRequire(import.meta.url);
/** proper-lockfile (CommonJS, 13 modules with graceful-fs) loads at the first lock: a read that takes no lock never loads it. */
const lockfile = (): typeof Lockfile => require('proper-lockfile') as typeof Lockfile;

/** A holder that has not refreshed its lock for this long is dead (kill -9, power loss). */
const STALE_MS = 10_000;
const UPDATE_MS = 2_000;

export interface Owner {
  pid: number;
  host: string;
  started_at: string;
  /** What the holder is doing (a reservation names its plan). */
  label?: string;
}

export interface RunLock {
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
  /** Written beside the lock for a refusal to show. */
  label?: string;
}

/**
 * An exclusive lock on `path` across the processes of this machine (and of a shared home): taken at once,
 * refused when a live process holds it, waited out (at most STALE_MS) when its holder died. Used for run
 * journals and for name reservations (engine/core/plan/reservations.ts).
 */
export async function lockExclusive(path: string, opts: ExclusiveOptions): Promise<RunLock> {
  const journalPath = path;
  const refusal = opts.refusal;
  mkdirSync(dirname(journalPath), { recursive: true, mode: 0o700 });
  const ownerPath = `${journalPath}.owner`;
  let lost: Error | undefined;
  const options = (retries: Lockfile.LockOptions['retries']): Lockfile.LockOptions => ({
    realpath: false,
    lockfilePath: `${journalPath}.lock`,
    stale: STALE_MS,
    update: UPDATE_MS,
    retries,
    onCompromised: (err) => {
      lost = err;
    },
  });
  let release: () => Promise<void>;
  try {
    release = await lockfile().lock(journalPath, options(0));
  } catch (err) {
    if ((err as { code?: string }).code !== 'ELOCKED') throw err;
    const owner = readOwner(ownerPath);
    if (owner && !isDead(owner)) throw refusal(owner);
    // The holder is gone (or unknown): its lock goes stale within STALE_MS and the library takes it over.
    opts.onWait?.(`waiting up to ${STALE_MS / 1000} s for ${opts.what}${owner ? ` (pid ${owner.pid}, no longer running)` : ''} to expire`, STALE_MS);
    try {
      release = await lockfile().lock(journalPath, options({ retries: Math.ceil((STALE_MS + 5_000) / 500), factor: 1, minTimeout: 500, maxTimeout: 500 }));
    } catch (again) {
      if ((again as { code?: string }).code !== 'ELOCKED') throw again;
      throw refusal(readOwner(ownerPath));
    }
  }
  const owner: Owner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), ...(opts.label ? { label: opts.label } : {}) };
  writeFileSync(ownerPath, JSON.stringify(owner) + '\n', { mode: 0o600 });
  return {
    async release() {
      rmSync(ownerPath, { force: true });
      await release().catch(() => undefined); // a compromised lock is already gone
    },
    assertHeld() {
      if (lost) {
        throw new OperationError('lock_lost', `the lock on this plan's run journal was lost (${lost.message}); stopping rather than risk running steps twice`, {
          hint: 'check that no other run of this plan is active, then continue with --resume',
        });
      }
    },
  };
}

export function readOwner(path: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Only a process on this host can be checked; elsewhere (a shared home) the holder counts as alive. */
export function isDead(owner: Owner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'ESRCH';
  }
}

function refusal(owner: Owner | undefined): SafetyRefusal {
  const who = owner ? ` (pid ${owner.pid} on ${owner.host}, started ${owner.started_at})` : '';
  return new SafetyRefusal(`another run of this plan is in progress${who}; running it twice at once could create everything twice`, {
    hint: 'wait for that run to finish (or stop it), then continue with --resume if it did not finish',
  });
}
