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
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SafetyRefusal } from '../errors.js';
import { releaseLocks } from '../process/lock-file.js';
import { isDead, lockExclusive, type Owner, type RunLock } from './run-lock.js';

/** One name a plan is about to create. */
export interface NameKey {
  provider: string;
  /** The project or account the name lives in (names are unique per project, not worldwide). */
  scope: string;
  kind: string;
  name: string;
}

export interface Reservation {
  release(): Promise<void>;
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
  /** Releases every reservation of this run still held (at its end): on this machine, one stat for all its names and one unlink each. */
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

export function reservationId(key: NameKey): string {
  return createHash('sha256').update([key.provider, key.scope, key.kind, foldName(key.name)].join('\u0000')).digest('hex').slice(0, 40);
}

function heldBy(key: NameKey, owner: Pick<Owner, 'pid' | 'host' | 'started_at' | 'label'> | undefined): SafetyRefusal {
  const who = owner ? ` by ${owner.label ?? 'another run'} (pid ${owner.pid} on ${owner.host}, since ${owner.started_at})` : ' by another run';
  return new SafetyRefusal(`${key.kind} "${key.name}" is being created right now${who}; creating it here too would make two; nothing was sent`, {
    hint: 'wait for that run to finish; if it created the name, this plan would duplicate it (rename it here, or --allow-duplicate-names on purpose)',
    details: { reserved: key, holder: owner && { pid: owner.pid, host: owner.host, started_at: owner.started_at, label: owner.label } },
  });
}

/**
 * This machine's store: one lock per name, taken over when its holder died (kill -9). A run's locks
 * are hard links to one file holding the run's owner record: the first name costs the file, each further
 * name one link, and one refresh of that file keeps every name of the run fresh.
 */
export function fileReservations(home: string): ReservationStore {
  const dir = join(home, '.assistant', 'reservations');
  return {
    forRun(run) {
      const held = new Set<RunLock>();
      return {
        async reserve(key, onWait) {
          let sharing: RunLock | undefined;
          for (const l of held) if (l.file.held()) sharing = l;
          const lock: RunLock = await lockExclusive(join(dir, reservationId(key)), {
            what: `the reservation of ${key.kind} "${key.name}" by a run that died`,
            label: run.label,
            journal: run.journal,
            sharing,
            onWait,
            refusal: (owner) => heldBy(key, owner),
          });
          held.add(lock);
          return {
            ...(lock.tookOverFrom ? { tookOverFrom: lock.tookOverFrom } : {}),
            release: async () => {
              held.delete(lock);
              await lock.release();
            },
          };
        },
        async releaseAll() {
          const all = [...held];
          held.clear();
          releaseLocks(all.map((l) => l.file));
        },
      };
    },
  };
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
      return {
        async releaseAll() {
          const all = [...releases];
          releases.clear();
          await Promise.all([...all.map((r) => r()), fallback.releaseAll()]);
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
          return { ...(tookOverFrom ? { tookOverFrom } : {}), release };
        },
      };
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
