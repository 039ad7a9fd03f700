/**
 * The shared rate-limit record of one machine: `~/.assistant/ratelimit/<hash of origin + project>.json`,
 * read and rewritten under a lock file (engine/core/process/lock-file.ts: taken in one atomic link, and
 * taken over at once when its holder's process is gone, or after `stale` ms when it cannot be asked).
 *
 * The record is compact (record.ts): per key one entry per holder and the responses as counts per expiry
 * group, so it stays a few hundred bytes per key however many requests go through it. Processes lease
 * slots in batches (shared.ts), so the lock is taken once per batch, not per request; it is held only for
 * read → prune → grant → write (about a millisecond), and waiting for room happens outside it.
 * Writes go to a temp file renamed over the record, so a kill mid-write leaves the old record, never half
 * of one; an unreadable record counts as empty (the worst case is one window of over-admission, which the
 * 429 handling absorbs). A record of another format version (an older `assistant`) counts as empty too.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { emptyKeyRecord, forgetDeadHolders, grantable, isEmpty, prune, recordDone, setHeld, type KeyLease, type KeyRecord } from './record.js';
import { acquireOne, releaseOne, type AcquireRequest, type AcquireResult, type LeaseGrant, type LeaseRequest, type SharedLimitStore } from './store.js';
import { lockFileWaiting } from '../../../core/process/lock-file.js';
import { processAlive } from '../../../core/process/probe.js';

interface FileRecord {
  v: 2;
  keys: Record<string, KeyRecord>;
}

// The lock is held for read → prune → grant → write (about a millisecond), so it is never refreshed: a
// holder stalled longer than `staleMs` (or dead, which is seen at once) is taken over. The record write
// that follows a takeover is still whole (rename), so the stalled one carries on.
const LOCK = { staleMs: 5_000 };
const LOCK_ATTEMPTS = 2_000;
/** 1 ms growing to 15 ms between attempts, randomised so that waiting processes do not move in step. */
const lockDelay = (attempt: number) => Math.min(15, 1.3 ** attempt) * (1 + Math.random());

/** Whether a pid is alive, asked once per pid per record update. */
function aliveCache(): (pid: number) => boolean {
  const alive = new Map<number, boolean>();
  return (pid) => {
    let a = alive.get(pid);
    if (a === undefined) alive.set(pid, (a = processAlive(pid)));
    return a;
  };
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

  lease(req: LeaseRequest): Promise<LeaseGrant[]> {
    return this.update((rec, now) => {
      const isAlive = aliveCache();
      for (const k of req.keys) if (rec.keys[k.key]) forgetDeadHolders(rec.keys[k.key]!, now, req.windowMs, isAlive);
      const leases = req.keys.map((k): [KeyRecord, KeyLease] => [
        (rec.keys[k.key] ??= emptyKeyRecord()),
        {
          holder: req.holder,
          limit: Math.floor(k.limit),
          want: k.want,
          keep: k.keep,
          doneExpiries: k.doneAgoMs.map((ago) => now - ago + req.windowMs),
          until: now + req.leaseMs,
          demandUntil: now + req.demandMs,
          windowMs: req.windowMs,
        },
      ]);
      for (const [k, l] of leases) recordDone(k, l, now);
      let held = leases.map(([k, l]) => grantable(k, l, now));
      // One request needing every key: all or nothing beyond what is kept.
      if (req.atomic && held.some((h, i) => h < leases[i]![1].want)) held = leases.map(([, l]) => l.keep);
      return leases.map(([k, l], i) => setHeld(k, l, held[i]!, now));
    });
  }

  tryAcquire(req: AcquireRequest): Promise<AcquireResult> {
    return acquireOne(this, req);
  }

  async release(holder: string, keys: string[], windowMs: number, arrivedAt: number): Promise<void> {
    await releaseOne(this, holder, keys, windowMs, this.now() - arrivedAt);
  }

  async block(key: string, forMs: number): Promise<void> {
    await this.update((rec, now) => {
      const k = (rec.keys[key] ??= emptyKeyRecord());
      k.b = Math.max(k.b ?? 0, now + forMs);
    });
  }

  async close(): Promise<void> {
    // Nothing is held between calls.
  }

  /** Lock, read, prune expired entries, apply `fn`, drop empty keys, write, unlock. */
  private async update<T>(fn: (rec: FileRecord, now: number) => T): Promise<T> {
    const taken = await lockFileWaiting(`${this.file}.lock`, LOCK, LOCK_ATTEMPTS, lockDelay);
    if (!('held' in taken)) throw Object.assign(new Error(`the lock of ${this.file} stayed busy${taken.busy ? ` (pid ${taken.busy.pid})` : ''}`), { code: 'ELOCKED' });
    const lock = taken.held;
    try {
      const now = this.now();
      const rec = this.read();
      for (const k of Object.values(rec.keys)) prune(k, now);
      const out = fn(rec, now);
      for (const [key, k] of Object.entries(rec.keys)) if (isEmpty(k)) delete rec.keys[key];
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(rec), { mode: 0o600 });
      renameSync(tmp, this.file);
      return out;
    } finally {
      lock.release();
    }
  }

  private read(): FileRecord {
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as FileRecord;
      if (data && data.v === 2 && typeof data.keys === 'object' && data.keys && wellFormed(data.keys)) return data;
    } catch {
      // missing or unreadable: start empty
    }
    return { v: 2, keys: {} };
  }
}

/** A record someone edited by hand (or a bug wrote) is not trusted piecemeal: it counts as empty. */
function wellFormed(keys: Record<string, unknown>): boolean {
  for (const k of Object.values(keys)) {
    const r = k as Partial<KeyRecord> | null;
    if (!r || typeof r !== 'object' || typeof r.h !== 'object' || r.h === null || !Array.isArray(r.d)) return false;
    // Counts below zero would hide others' slots: such a record is not trusted at all.
    const count = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
    for (const e of Object.values(r.h)) if (!Array.isArray(e) || e.length !== 4 || !e.every(count)) return false;
    for (const g of r.d) if (!Array.isArray(g) || g.length !== 2 || !g.every(count)) return false;
    if (r.b !== undefined && !Number.isFinite(r.b)) return false;
  }
  return true;
}
