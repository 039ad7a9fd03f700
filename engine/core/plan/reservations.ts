/**
 * Cross-process name reservations (issue 22 §3): before a create is sent, its (provider, scope, kind,
 * case-folded name) is reserved, so two processes applying *different* plans that create the same name
 * cannot both create it. The one that reserves second is refused (exit 3, naming the holder) before it
 * sends anything, or — when the name is only known at run time — finds the first one's resource when it
 * lists the kind after reserving. A run's reservations are released together at its end (a created name
 * stays reserved until then: its holder is named to another plan creating it), or when its process dies.
 *
 * Two stores, the same two as the shared rate limits: a lock file per name on this machine
 * (`~/.assistant/reservations/`, the run journal's lock: engine/core/plan/run-lock.ts), or Redis when one is
 * configured (`SET NX PX` with a heartbeat), so processes on several machines sharing a project see
 * each other. Redis unreachable falls back to this machine's files with a warning.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { OperationError, SafetyRefusal } from '../errors.js';
import { lockFileWaiting, ownerDead, tryLockFile, type HeldLockFile, type TakeResult } from '../process/lock-file.js';
import { isDead, STALE_MS, UPDATE_MS, type Owner } from './run-lock.js';

/** One name a plan is about to create. */
export interface NameKey {
  provider: string;
  /** The project or account the name lives in (names are unique per project, not worldwide). */
  scope: string;
  kind: string;
  name: string;
}

/** A name reserved for a run until the run's end (RunReservations.releaseAll). */
export interface Reservation {
  /**
   * The run whose reservation of this name was taken over because its process had died (kill -9): its
   * create of the name may still be in flight (its journal, `journal`, says), so the name is looked for
   * until that create's window passed before it is created here (machines/apply/index.ts).
   */
  tookOverFrom?: Owner;
}

/** Who reserves: one run of one plan. */
export interface ReservingRun {
  /** Shown to a run refused for a name this one holds (`a run of "<summary>"`). */
  label: string;
  /** The run's journal, written in each reservation for a process that takes over after a kill -9. */
  journal: string;
}

/** The reservations of one run: its names share one holder record (on this machine, one file linked under each name). */
export interface RunReservations {
  /** Reserves `key` for this run, or throws a SafetyRefusal naming the live holder. */
  reserve(key: NameKey, onWait?: (message: string, waitMs: number) => void): Promise<Reservation>;
  /** Reserves every key (in their order), or throws a SafetyRefusal naming the first live holder; on this machine, in one write. */
  reserveMany(keys: readonly NameKey[], onWait?: (message: string, waitMs: number) => void): Promise<Reservation[]>;
  /** Releases every reservation of this run still held (at its end): on this machine, one unlink for all its names. */
  releaseAll(): Promise<void>;
}

export interface ReservationStore {
  forRun(run: ReservingRun): RunReservations;
  close?(): Promise<void>;
}

/** Names are compared the way the cloud and people compare them: `SEED-A` and `seed-a` are one name. */
export function foldName(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/**
 * The ids this process made, by the key's fields as written: a run asks for a name's id when it
 * reserves the plan's names, when the store writes its set and again before each create (issue 40: three
 * SHA-256s per create, ~4 µs each). The id is a function of those fields alone, so remembering it cannot
 * change an answer; at most ID_MEMO_MAX are kept, then it starts over.
 */
const idMemo = new Map<string, string>();
const ID_MEMO_MAX = 4096;

export function reservationId(key: NameKey): string {
  const written = `${key.provider}\u0000${key.scope}\u0000${key.kind}\u0000${key.name}`;
  let id = idMemo.get(written);
  if (id === undefined) {
    id = createHash('sha256').update([key.provider, key.scope, key.kind, foldName(key.name)].join('\u0000')).digest('hex').slice(0, 40);
    if (idMemo.size >= ID_MEMO_MAX) idMemo.clear();
    idMemo.set(written, id);
  }
  return id;
}

function heldBy(key: NameKey, owner: Pick<Owner, 'pid' | 'host' | 'started_at' | 'label'> | undefined): SafetyRefusal {
  const who = owner ? ` by ${owner.label ?? 'another run'} (pid ${owner.pid} on ${owner.host}, since ${owner.started_at})` : ' by another run';
  return new SafetyRefusal(`${key.kind} "${key.name}" is being created right now${who}; creating it here too would make two; nothing was sent`, {
    hint: 'wait for that run to finish; if it created the name, this plan would duplicate it (rename it here, or --allow-duplicate-names on purpose)',
    details: { reserved: key, holder: owner && { pid: owner.pid, host: owner.host, started_at: owner.started_at, label: owner.label } },
  });
}

/**
 * This machine's store: one file per run holding the set of names it reserved (`<pid>-<n>.names` in
 * `~/.assistant/reservations/`), written in one step (a temp file renamed over it) however many names
 * the plan creates. Its check and its write are made under a directory guard (`.guard.lock`, a lock
 * file held for those few calls: engine/core/process/lock-file.ts), so two runs cannot both find a
 * name free: the guard taken, the other runs' sets are read, a name a live run holds is refused, the
 * names of a run that died (kill -9) are taken over (its set rewritten without them, `tookOverFrom`
 * naming it and its journal), this run's set is written, the guard let go. A 50-create plan reserves
 * its names in about a dozen file calls instead of a link each, and lets them go in one unlink (issue
 * 40: on a slow file system every call shows). A run's set is refreshed (mtime) while it lives, so a
 * home shared across hosts sees a holder on another host as gone once it stops refreshing.
 */
export function fileReservations(home: string): ReservationStore {
  const dir = join(home, '.assistant', 'reservations');
  return { forRun: (run) => new RunNameSet(dir, run) };
}

/** The guard file is still the one this run linked (not taken over and replaced after a stall). */
function guardStillHeld(guard: HeldLockFile): boolean {
  try {
    return statSync(guard.path).ino === guard.ino;
  } catch {
    return false;
  }
}

/** A set of a run that died is deleted once this long passed since it was last refreshed: any create it had in flight has appeared by then (IN_FLIGHT_SETTLE_MS, engine/core/plan/names.ts). */
const DEAD_SET_KEPT_MS = 60_000;
/**
 * The guard is held for a few file calls; one whose holder is gone (same host) is taken over at once,
 * and one of a holder on another host sharing the home once it is this old (a live holder never is).
 */
const GUARD_STALE_MS = STALE_MS;
const SET_SUFFIX = '.names';
let setSeq = 0;

interface NameSetRecord extends Owner {
  /** Reservation IDs (reservationId) of the names the run holds. */
  names: string[];
}

function readSet(path: string): NameSetRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as NameSetRecord;
    return r && typeof r.pid === 'number' && Array.isArray(r.names) ? r : undefined;
  } catch {
    return undefined; // gone meanwhile, or torn (never: sets are renamed into place)
  }
}

/** Milliseconds since the set at `path` was last refreshed (0 when it is gone meanwhile). */
function msSinceRefresh(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Writes a set in one step: a private temp file renamed over the set's name. */
function writeSet(path: string, record: NameSetRecord): void {
  const tmp = `${path}.${process.pid}.${++setSeq}.tmp`;
  writeFileSync(tmp, JSON.stringify(record) + '\n', { mode: 0o600 });
  renameSync(tmp, path);
}

class RunNameSet implements RunReservations {
  /** Reservation IDs of the names this run holds. */
  private readonly held = new Set<string>();
  private readonly path: string;
  private readonly owner: Owner;
  private written = false;
  private refresh: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    run: ReservingRun,
  ) {
    this.path = join(dir, `${process.pid}-${Date.now().toString(36)}-${++setSeq}${SET_SUFFIX}`);
    this.owner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), label: run.label, journal: run.journal };
  }

  async reserve(key: NameKey, onWait?: (message: string, waitMs: number) => void): Promise<Reservation> {
    return (await this.reserveMany([key], onWait))[0]!;
  }

  async reserveMany(keys: readonly NameKey[], onWait?: (message: string, waitMs: number) => void): Promise<Reservation[]> {
    const wanted = new Map<string, NameKey>();
    for (const k of keys) {
      const id = reservationId(k);
      if (!this.held.has(id)) wanted.set(id, k);
    }
    const tookOver = new Map<string, Owner>();
    if (wanted.size) {
      const guard = await this.guard(onWait);
      try {
        this.takeFromOthers(wanted, tookOver);
        for (const id of wanted.keys()) this.held.add(id);
        this.write();
        // A holder stalled past the guard's staleness (SIGSTOP, a frozen VM) may have lost the guard to a
        // run that read the sets before ours was written; once ours is written, checking that the guard is
        // still ours closes that window (a run taking it over from now on reads our set).
        if (!guardStillHeld(guard)) throw new OperationError('reservations_busy', 'this run stalled while reserving its names and another run went ahead; nothing was sent', { hint: 'try again' });
      } catch (err) {
        for (const id of wanted.keys()) this.held.delete(id);
        if (this.written) this.held.size ? this.write() : this.unlinkSet();
        throw err;
      } finally {
        guard.release();
      }
    }
    for (const [id, from] of tookOver) {
      const k = wanted.get(id)!;
      onWait?.(`took over the reservation of ${k.kind} "${k.name}" by a run that died (pid ${from.pid}, no longer running)`, 0);
    }
    return keys.map((k) => {
      const id = reservationId(k);
      const from = tookOver.get(id);
      return from ? { tookOverFrom: from } : {};
    });
  }

  /**
   * Under the guard: refuses a name a live run holds; takes over (and strikes from its set) one of a run
   * that died. Every set is judged before any is rewritten, so a refusal leaves the dead runs' sets as
   * they were: whoever takes their names over later still waits for their creates.
   */
  private takeFromOthers(wanted: Map<string, NameKey>, tookOver: Map<string, Owner>): void {
    let files: string[];
    try {
      files = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const mine = basename(this.path);
    const fromDead: { path: string; set: NameSetRecord; overlap: string[] }[] = [];
    for (const f of files) {
      if (!f.endsWith(SET_SUFFIX) || f === mine) continue;
      const path = join(this.dir, f);
      const set = readSet(path);
      if (!set) continue;
      const overlap = set.names.filter((id) => wanted.has(id));
      // Another host's holder is asked by its refreshes (a stat only then); one here by its pid.
      let age: number | undefined;
      const ageMs = () => (age ??= msSinceRefresh(path));
      const dead = ownerDead(set) || (set.host !== this.owner.host && ageMs() > STALE_MS);
      if (!overlap.length) {
        if (dead && ageMs() > DEAD_SET_KEPT_MS) rmSync(path, { force: true });
        continue;
      }
      if (!dead) throw heldBy(wanted.get(overlap[0]!)!, set);
      fromDead.push({ path, set, overlap });
    }
    for (const { path, set, overlap } of fromDead) {
      for (const id of overlap) tookOver.set(id, set);
      // The dead run's other names stay its own: whoever takes them over next waits for its create too.
      const rest = set.names.filter((id) => !wanted.has(id));
      if (rest.length) writeSet(path, { ...set, names: rest });
      else rmSync(path, { force: true });
    }
  }

  private write(): void {
    const record: NameSetRecord = { ...this.owner, names: [...this.held] };
    try {
      writeSet(this.path, record);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeSet(this.path, record);
    }
    this.written = true;
    if (!this.refresh) {
      // Never keeps the process alive on its own.
      this.refresh = setInterval(() => {
        try {
          const now = new Date();
          utimesSync(this.path, now, now);
        } catch {
          // released meanwhile
        }
      }, UPDATE_MS).unref();
    }
  }

  /** The directory guard: taken at once, waited for while another run checks its names (a few file calls). */
  private async guard(onWait?: (message: string, waitMs: number) => void): Promise<HeldLockFile> {
    const path = join(this.dir, '.guard.lock');
    const opts = { staleMs: GUARD_STALE_MS };
    let taken: TakeResult;
    try {
      taken = tryLockFile(path, opts);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      taken = tryLockFile(path, opts);
    }
    // Another run is checking its names (a few file calls): a few ms, or until its guard is stale.
    if (!('held' in taken)) taken = await lockFileWaiting(path, opts, Math.ceil((GUARD_STALE_MS + 5_000) / 5), () => 5);
    if (!('held' in taken)) {
      onWait?.('name reservations stayed busy', 0);
      throw new OperationError('reservations_busy', 'the name reservations of this home stayed busy; nothing was sent', { hint: 'try again; if it persists, check for a stuck assistant process' });
    }
    return taken.held;
  }

  async releaseAll(): Promise<void> {
    this.held.clear();
    this.unlinkSet();
  }

  private unlinkSet(): void {
    if (this.refresh) clearInterval(this.refresh);
    this.refresh = undefined;
    if (!this.written) return;
    this.written = false;
    // unlink, not rmSync: rmSync stats the path first (a file call more on the run's last step).
    try {
      unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** Minimal surface of the Redis client used here (ioredis). */
interface RedisLike {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<string | null>;
  get(key: string): Promise<string | null>;
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
}

const TTL_MS = 15_000;
const HEARTBEAT_MS = 5_000;
/** Extends or deletes the key only while it still holds our value. */
const EXTEND = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Reservations in Redis, for processes on several machines: a key per name set with NX and a TTL that
 * a heartbeat extends while the holder lives, so a killed holder's reservation lapses within TTL_MS.
 * A holder on this host whose process is gone is taken over at once.
 */
export function redisReservations(url: string, opts: { warn?: (message: string) => void; fallback: ReservationStore }): ReservationStore {
  let client: Promise<RedisLike | undefined> | undefined;
  let warned = false;
  const connect = () =>
    (client ??= (async () => {
      const { Redis } = await import('ioredis');
      const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, enableOfflineQueue: false, retryStrategy: () => null }) as unknown as RedisLike & { connect(): Promise<void> };
      try {
        await r.connect();
        return r;
      } catch {
        r.disconnect();
        return undefined;
      }
    })());
  return {
    forRun(run) {
      const fallback = opts.fallback.forRun(run);
      const releases = new Set<() => Promise<void>>();
      const reservations: RunReservations = {
        async releaseAll() {
          const all = [...releases];
          releases.clear();
          await Promise.all([...all.map((r) => r()), fallback.releaseAll()]);
        },
        async reserveMany(keys, onWait) {
          // A key each, in order (SET NX is per key); one held already by this run is refused by nobody.
          const out: Reservation[] = [];
          for (const k of keys) out.push(await reservations.reserve(k, onWait));
          return out;
        },
        async reserve(key, onWait) {
          const r = await connect();
          if (!r) return degrade().reserve(key, onWait);
          const redisKey = `assistant:reservation:${reservationId(key)}`;
          const owner: Owner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), label: run.label, journal: run.journal };
          const value = JSON.stringify({ ...owner, nonce: Math.random().toString(36).slice(2) });
          let tookOverFrom: Owner | undefined;
          try {
            for (let attempt = 0; ; attempt++) {
              if ((await r.set(redisKey, value, 'PX', TTL_MS, 'NX')) === 'OK') break;
              const held = parseOwner(await r.get(redisKey));
              if (held && held.host === hostname() && isDead(held) && attempt === 0) {
                await r.eval(RELEASE, 1, redisKey, (await r.get(redisKey)) ?? '');
                tookOverFrom = held;
                continue;
              }
              if (held || attempt > 0) throw heldBy(key, held);
            }
          } catch (err) {
            if (err instanceof SafetyRefusal) throw err;
            return degrade().reserve(key, onWait);
          }
          const beat = setInterval(() => void r.eval(EXTEND, 1, redisKey, value, String(TTL_MS)).catch(() => undefined), HEARTBEAT_MS);
          beat.unref();
          const release = async () => {
            releases.delete(release);
            clearInterval(beat);
            await r.eval(RELEASE, 1, redisKey, value).catch(() => undefined);
          };
          releases.add(release);
          return tookOverFrom ? { tookOverFrom } : {};
        },
      };
      return reservations;
      function degrade(): RunReservations {
        if (!warned) opts.warn?.(`redis at ${redactUrl(url)} unreachable; reserving names on this machine only`);
        warned = true;
        return fallback;
      }
    },
    async close() {
      const r = await client;
      await r?.quit().catch(() => r.disconnect());
    },
  };
}

function parseOwner(text: string | null): Owner | undefined {
  try {
    const o = JSON.parse(text ?? '') as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
