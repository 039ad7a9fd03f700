/**
 * An exclusive lock between the processes of this machine (and of a home shared across hosts), as one
 * small file that exists only while it is held (issue 40). It replaces proper-lockfile on the paths a
 * command takes at every run (the run journal, name reservations, the shared rate-limit record): that
 * library loads 13 CommonJS modules (graceful-fs patches `fs`), keeps the lock as a directory beside a
 * separate owner file, and stats and touches it on every take — about 40 ms of a `gpucloud list`.
 *
 * Taking the lock is one atomic step: the owner (pid, host, start, label) is written to a private
 * temp file which is then hard-linked to the lock's name; link(2) fails with EEXIST when the name
 * exists, so exactly one process wins, and a reader never sees a lock without its owner (a lock file
 * made with open(O_EXCL) and written after would be empty for a moment, and a waiting process could
 * not tell a live holder from a dead one).
 *
 * A lock is stale, and taken over, when its holder's process is gone (same host: asked at once, so a
 * run killed with -9 blocks nobody) or when it was not refreshed for `staleMs` (another host sharing the
 * home, or a holder stalled that long). Holders of long locks refresh them (`refreshMs`: one timer for
 * every lock of the process touches their mtime) and notice when they lost one. A lock left by an older
 * `assistant` (proper-lockfile's directory) is taken over by the same mtime rule.
 */
import { closeSync, fstatSync, linkSync, openSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { processAlive } from './probe.js';

export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** What the holder is doing (a reservation names its plan). */
  label?: string;
  /**
   * The run journal of the holder, when it is a plan's run: a process that takes over the lock of a
   * holder that died reads there what it had in flight (a reservation's create may still be made).
   */
  journal?: string;
}

export interface LockFileOptions {
  /** A lock not refreshed for this long counts as abandoned (its holder on another host died or hung). */
  staleMs: number;
  /** Refresh the lock's mtime this often while it is held (long locks); none for a lock held for a moment. */
  refreshMs?: number;
  label?: string;
  journal?: string;
}

export interface HeldLockFile {
  readonly path: string;
  /** The lock file's inode: how a holder knows a lock is still its own. */
  readonly ino: number;
  /** Lets go (a lock another process took over is left alone). */
  release(): void;
  /** Why the lock is no longer this process's (taken over after a stall, removed), or undefined while held. */
  lost(): string | undefined;
  /** Not let go and not lost. */
  held(): boolean;
}

/** The lock (and the holder it was taken over from, when that one had died), or who holds it. */
export type TakeResult = { held: HeldLockFile; tookOverFrom?: LockOwner } | { busy: LockOwner | undefined };

let seq = 0;
const HOST = hostname();

/** The owner written in a lock file, or undefined (no file, a directory, unreadable or torn). */
export function readLockOwner(path: string): LockOwner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return o && typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the owner's process is known to be gone (only a process on this host can be asked). */
export function ownerDead(owner: LockOwner): boolean {
  return owner.host === HOST && !processAlive(owner.pid);
}

/** One attempt: the lock, or who holds it (a stale lock is taken over on the way). */
export function tryLockFile(path: string, opts: LockFileOptions): TakeResult {
  const owner: LockOwner = {
    pid: process.pid,
    host: HOST,
    started_at: new Date().toISOString(),
    ...(opts.label ? { label: opts.label } : {}),
    ...(opts.journal ? { journal: opts.journal } : {}),
  };
  const tmp = `${path}.${process.pid}.${++seq}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  let ino: number;
  try {
    writeSync(fd, JSON.stringify(owner) + '\n');
    ino = fstatSync(fd).ino; // the lock's own inode once linked: how a holder knows the lock is still its own
  } finally {
    closeSync(fd);
  }
  try {
    return linkLock(tmp, ino, path, opts);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

/**
 * Links the owner file `from` (inode `ino`) to the lock's name: the lock, or who holds it (a stale
 * lock is taken over on the way). Throws ENOENT when `from` is gone.
 */
function linkLock(from: string, ino: number, path: string, opts: LockFileOptions): TakeResult {
  {
    let stale: LockOwner | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(from, path);
        return { held: hold(path, ino, opts), ...(stale ? { tookOverFrom: stale } : {}) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let seen: Stats;
      try {
        seen = statSync(path);
      } catch {
        continue; // released meanwhile: try again
      }
      const holder = readLockOwner(path);
      const abandoned = (holder !== undefined && ownerDead(holder)) || Date.now() - seen.mtimeMs > opts.staleMs;
      if (!abandoned) return { busy: holder };
      removeIfSame(path, seen.ino);
      stale = holder;
    }
    return { busy: readLockOwner(path) };
  }
}

/**
 * Removes an abandoned lock, only if it is still the one judged (its inode): a lock released and taken
 * again by a live process meanwhile stays. The check and the removal are made under a second, short
 * lock (`<lock>.takeover`): without it, two processes taking over the same dead lock could both pass
 * the check, one remove the lock and take it, and the other then remove that fresh lock and take it
 * too — two holders, a run of one plan twice (kill -9, then two resumes at once).
 */
function removeIfSame(path: string, ino: number): void {
  const guard = takeoverGuard(path);
  if (!guard) return; // another process is taking it over right now: the caller's next attempt sees the result
  try {
    const now = statSync(path);
    if (now.ino !== ino) return;
    // proper-lockfile's lock directory, left by an older version.
    if (now.isDirectory()) rmSync(path, { recursive: true, force: true });
    else unlinkSync(path);
  } catch {
    // gone already
  } finally {
    guard();
  }
}

/** The takeover lock is held for two system calls; one older than this was left by a process killed in between. */
const TAKEOVER_STALE_MS = 2_000;
const TAKEOVER_TRIES = 50;

/**
 * Takes `<lock>.takeover` (O_EXCL, our pid in it), waiting a few ms while another process holds it;
 * returns its release, or undefined when it stays busy. One left by a dead process (same host) or older
 * than TAKEOVER_STALE_MS is removed by inode, like the lock itself.
 */
function takeoverGuard(path: string): (() => void) | undefined {
  const guardPath = `${path}.takeover`;
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    try {
      const fd = openSync(guardPath, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: HOST, started_at: new Date().toISOString() }) + '\n');
      } finally {
        closeSync(fd);
      }
      return () => {
        try {
          unlinkSync(guardPath);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      const seen = statSync(guardPath);
      const holder = readLockOwner(guardPath);
      // An empty guard is one being written (open, then write): only its age can call it abandoned.
      if ((holder !== undefined && ownerDead(holder)) || Date.now() - seen.mtimeMs > TAKEOVER_STALE_MS) {
        if (statSync(guardPath).ino === seen.ino) unlinkSync(guardPath);
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); // 2 ms: the holder is between two system calls
  }
  return undefined;
}

/** Held long locks, refreshed together by one timer. */
const refreshed = new Set<Held>();
let timer: NodeJS.Timeout | undefined;
let timerMs = Infinity;

class Held implements HeldLockFile {
  private why: string | undefined;
  private released = false;

  constructor(
    readonly path: string,
    readonly ino: number,
  ) {}

  /** `touched`: the inodes refreshed in this round already (a run's names share one: one touch for all). */
  refresh(touched: Set<number>): void {
    if (this.released || this.why) return;
    try {
      if (statSync(this.path).ino !== this.ino) {
        this.why = 'another process took it over (this one was stalled longer than the lock is kept)';
        return;
      }
      if (touched.has(this.ino)) return;
      touched.add(this.ino);
      const now = new Date();
      utimesSync(this.path, now, now);
    } catch (err) {
      this.why = `it was removed (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
  }

  lost(): string | undefined {
    return this.why;
  }

  held(): boolean {
    return !this.released && !this.why;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    forget(this);
    if (this.why) return;
    try {
      // Only our own lock: one taken over meanwhile belongs to someone else now.
      if (statSync(this.path).ino === this.ino) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

function hold(path: string, ino: number, opts: LockFileOptions): Held {
  const h = new Held(path, ino);
  if (opts.refreshMs) {
    refreshed.add(h);
    if (!timer || opts.refreshMs < timerMs) {
      if (timer) clearInterval(timer);
      timerMs = opts.refreshMs;
      // Never keeps the process alive on its own.
      timer = setInterval(() => {
        const touched = new Set<number>();
        for (const x of refreshed) x.refresh(touched);
      }, timerMs).unref();
    }
  }
  return h;
}

function forget(h: Held): void {
  if (!refreshed.delete(h) || refreshed.size) return;
  if (timer) clearInterval(timer);
  timer = undefined;
  timerMs = Infinity;
}

/**
 * Takes the lock, waiting while someone else holds it: `attempts` tries at most, `delayMs(n)` apart.
 * Resolves with the lock or with the last holder seen (undefined: unknown) when it stays busy.
 */
export async function lockFileWaiting(path: string, opts: LockFileOptions, attempts: number, delayMs: (attempt: number) => number): Promise<TakeResult> {
  let last: TakeResult = { busy: undefined };
  for (let n = 0; n < attempts; n++) {
    last = tryLockFile(path, opts);
    if ('held' in last) return last;
    if (n + 1 < attempts) await new Promise((r) => setTimeout(r, delayMs(n)));
  }
  return last;
}
