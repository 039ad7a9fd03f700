/**
 * The shared rate-limit record of one machine: `~/.assistant/ratelimit/<hash of origin + project>.json`,
 * read and rewritten under a `proper-lockfile` lock (a `.lock` directory whose mtime is refreshed while
 * held, so a process killed while holding the lock stops blocking others after `stale` ms).
 *
 * The lock is held only for read → prune → decide → write (a few ms); waiting for room happens outside it.
 * Writes go to a temp file renamed over the record, so a kill mid-write leaves the old record, never half
 * of one; an unreadable record counts as empty (the worst case is one window of over-admission, which the
 * 429 handling absorbs).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { decide, type AcquireRequest, type AcquireResult, type SharedLimitStore } from './store.js';

interface KeyRecord {
  /** holder → time the slot stops counting (ms since the epoch). */
  slots: Record<string, number>;
  blockedUntil?: number;
}

interface FileRecord {
  v: 1;
  keys: Record<string, KeyRecord>;
}

const LOCK_OPTIONS = {
  realpath: false,
  // A holder that died is taken over after 5 s; the mtime is refreshed every 2.5 s while a lock is held.
  stale: 5_000,
  retries: { retries: 2_000, minTimeout: 1, maxTimeout: 15, factor: 1.3, randomize: true },
  // A lock judged stale because this process stalled: the record write that follows is still whole
  // (rename), so carry on instead of crashing the run.
  onCompromised: () => undefined,
} as const;

/**
 * A slot still in flight whose process has died (kill -9) cannot be received by the server any more
 * (its socket died with it), so it counts for one window from now instead of for the rest of its lease.
 * Holders are `<pid>.<random>.<n>` (shared.ts); a pid reused by another process just keeps the lease.
 */
function forgetDeadHolders(k: KeyRecord, now: number, windowMs: number, alive: Map<number, boolean>): void {
  for (const [holder, until] of Object.entries(k.slots)) {
    if (until <= now + windowMs) continue; // released already, or about to expire anyway
    const pid = Number.parseInt(holder, 10);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    let isAlive = alive.get(pid);
    if (isAlive === undefined) {
      isAlive = processAlive(pid);
      alive.set(pid, isAlive);
    }
    if (!isAlive) k.slots[holder] = now + windowMs;
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

export class FileLimitStore implements SharedLimitStore {
  readonly kind = 'file' as const;

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    } catch {
      // An unwritable home surfaces at the first lock, where the caller warns and limits this process only.
    }
  }

  tryAcquire(req: AcquireRequest): Promise<AcquireResult> {
    return this.update((rec, now) => {
      const used: number[] = [];
      let retryInMs = 0;
      const alive = new Map<number, boolean>();
      for (const { key, limit } of req.keys) {
        const k = (rec.keys[key] ??= { slots: {} });
        forgetDeadHolders(k, now, req.windowMs, alive);
        const d = decide(Object.values(k.slots), k.blockedUntil ?? 0, limit, now);
        used.push(d.used);
        retryInMs = Math.max(retryInMs, d.retryInMs);
      }
      if (retryInMs > 0) return { admitted: false, retryInMs, used };
      for (const { key } of req.keys) rec.keys[key]!.slots[req.holder] = now + req.leaseMs;
      return { admitted: true, retryInMs: 0, used };
    });
  }

  async release(holder: string, keys: string[], windowMs: number, arrivedAt: number): Promise<void> {
    await this.update((rec, now) => {
      for (const key of keys) {
        const k = rec.keys[key];
        if (k && holder in k.slots) k.slots[holder] = Math.min(now, arrivedAt) + windowMs;
      }
    });
  }

  async block(key: string, forMs: number): Promise<void> {
    await this.update((rec, now) => {
      const k = (rec.keys[key] ??= { slots: {} });
      k.blockedUntil = Math.max(k.blockedUntil ?? 0, now + forMs);
    });
  }

  async close(): Promise<void> {
    // Nothing is held between calls.
  }

  /** Lock, read, prune expired slots, apply `fn`, write, unlock. */
  private async update<T>(fn: (rec: FileRecord, now: number) => T): Promise<T> {
    const unlock = await lockfile.lock(this.file, LOCK_OPTIONS);
    try {
      const now = this.now();
      const rec = this.read();
      for (const [key, k] of Object.entries(rec.keys)) {
        for (const [holder, until] of Object.entries(k.slots)) if (!(until > now)) delete k.slots[holder];
        if (k.blockedUntil !== undefined && k.blockedUntil <= now) delete k.blockedUntil;
        if (Object.keys(k.slots).length === 0 && k.blockedUntil === undefined) delete rec.keys[key];
      }
      const out = fn(rec, now);
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(rec), { mode: 0o600 });
      renameSync(tmp, this.file);
      return out;
    } finally {
      await unlock().catch(() => undefined);
    }
  }

  private read(): FileRecord {
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as FileRecord;
      if (data && data.v === 1 && typeof data.keys === 'object' && data.keys) return data;
    } catch {
      // missing or unreadable: start empty
    }
    return { v: 1, keys: {} };
  }
}
