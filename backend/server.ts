/**
 * `assistant backend serve`: the credential backend as one object that starts and stops cleanly.
 * PGlite (the default) lives in `<data-dir>/pgdata`, guarded by `<data-dir>/backend.lock` and served to
 * admin commands on `<data-dir>/admin.sock`; `database` switches to a real PostgreSQL server.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { tempRoot } from '../engine/core/process/temp-root.js';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { listenError } from '../engine/core/listen.js';
import { OperationError } from '../engine/core/errors.js';
import { runRetentionFrom } from './runs.js';
import { sessionSecondsFrom } from './console/sessions.js';
import { driftPlansFrom } from './console/drift.js';
import { liveTimeoutMsFrom } from './console/live.js';
import type { Config } from '../schemas/config.js';
import { emptyConfigValue } from '../schemas/config-defaults.js';
import { createAdminServer, startApiServer } from './http.js';
import type { Served } from '../engine/core/kits/serve/http.js';
import { acquireLock, type DataDirLock } from './lock.js';
import { openPglite, openPostgres, type Storage } from './storage.js';
import { CredentialStore } from './store.js';

export interface BackendServerOptions {
  host: string;
  port: number;
  /** The embedded database's home (and the lock and admin socket); unused with `database`. */
  dataDir: string;
  /** `postgres://…`: a real PostgreSQL server instead of the embedded one. */
  database?: string;
  keyFile: string;
  env: Record<string, string | undefined>;
  /** The configuration the server runs with (the console's live page reaches the clouds' URLs it names) and its home. */
  config?: Config;
  home?: string;
  tls?: { cert: Buffer; key: Buffer };
  log?: (line: string) => void;
}

export interface RunningBackend {
  url: string;
  port: number;
  storage: 'pglite' | 'postgres';
  where: string;
  /** The master key file was created by this start (a new installation). */
  keyCreated: boolean;
  keySource: string;
  close(): Promise<void>;
}

/** Where a deep data directory's admin socket goes: /tmp (short), else the command's temp directory. */
export function socketTempRoot(env: Readonly<Record<string, string | undefined>>): string {
  return existsSync('/tmp') ? '/tmp' : tempRoot(env);
}

/**
 * Where the admin socket of a data directory lives: `<data-dir>/admin.sock`, the data directory being
 * 0700 and ours (made so when it is ours and wider), so the socket is out of other users' reach from the
 * moment it exists, before any chmod could run. A Unix socket path has at most 107 bytes: a deep data directory gets its
 * socket in a per-user 0700 directory under /tmp, named by a hash of the data directory (the admin
 * commands compute the same). When neither can be had safely, there is no socket: the caller refuses
 * (the kernel would otherwise truncate a long path and bind a socket somewhere nobody checked).
 */
export function adminSocketPath(dataDir: string, tmp: string): { path: string } | { problem: string } {
  const inside = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) {
    const why = privateDir(dirname(inside));
    return why ? { problem: why } : { path: inside };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmp, `assistant-backend-${uid}`);
  const why = privateDir(dir);
  if (why) return { problem: `the data directory's path is too long for a socket inside it (${Buffer.byteLength(inside)} bytes), and ${why}` };
  const path = join(dir, `${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24)}.sock`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return { problem: `the data directory's path is too long for a socket inside it, and so is ${path}` };
  return { path };
}

/** Makes `dir` a 0700 directory of this user (not a link); why not, when it cannot be one. */
function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    let st = lstatSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (!st.isDirectory()) return `${dir} is not a directory`;
    if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o077) !== 0) {
      chmodSync(dir, 0o700);
      st = lstatSync(dir);
      if ((st.mode & 0o077) !== 0) return `${dir} cannot be made private (mode ${(st.mode & 0o777).toString(8)})`;
    }
    return undefined;
  } catch (err) {
    return `${dir} cannot be used (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
}

const MAX_SOCKET_PATH = 100;

/** Opens the storage (taking the data directory's lock for PGlite) and the store over it. */
export async function openBackendStore(opts: Pick<BackendServerOptions, 'dataDir' | 'database' | 'keyFile' | 'env'>): Promise<{
  store: CredentialStore & { keyCreated: boolean };
  lock?: DataDirLock;
}> {
  let lock: DataDirLock | undefined;
  let storage: Storage;
  if (opts.database) {
    storage = await openPostgres(opts.database);
  } else {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    const taken = acquireLock(opts.dataDir);
    if ('heldBy' in taken) {
      throw new OperationError('data_dir_in_use', `the data directory ${opts.dataDir} is in use by process ${taken.heldBy}`, {
        hint: 'one process serves a data directory: stop that server, or use another --data-dir (or PostgreSQL with --database)',
      });
    }
    lock = taken;
    try {
      storage = await openPglite(opts.dataDir);
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  try {
    return { store: await CredentialStore.open({ storage, env: opts.env, keyFile: opts.keyFile }), lock };
  } catch (err) {
    await storage.close().catch(() => undefined);
    lock?.release();
    throw err;
  }
}

function listen(server: Server, port: number, host: string | undefined, path?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(path ? err : listenError(err, host!, port));
    server.once('error', onError);
    const done = () => {
      server.off('error', onError);
      resolve();
    };
    if (path) server.listen(path, done);
    else server.listen(port, host, done);
  });
}

export async function startBackend(opts: BackendServerOptions): Promise<RunningBackend> {
  const { store, lock } = await openBackendStore(opts);
  const storageKind = store.storage.kind;
  let api: Served | undefined;
  let admin: Server | undefined;
  let socket: string | undefined;
  try {
    if (!opts.database) {
      // The admin API mints keys: without a private socket the server does not start at all.
      const where = adminSocketPath(opts.dataDir, socketTempRoot(opts.env));
      if ('problem' in where) {
        throw new OperationError('admin_socket_unsafe', `no private place for the admin socket: ${where.problem}`, {
          hint: 'use a shorter --data-dir, or make the directory named above yours and 0700',
        });
      }
      socket = where.path;
      rmSync(socket, { force: true });
      admin = createAdminServer(store, opts.log);
      try {
        await listen(admin, 0, undefined, socket);
      } catch (err) {
        throw new OperationError('admin_socket_unavailable', `cannot listen on the admin socket ${socket}: ${(err as Error).message}`, { hint: 'is another backend using this data directory?', cause: err });
      }
      chmodSync(socket, 0o600);
    }
    api = await startApiServer({ host: opts.host, port: opts.port, store, storage: storageKind, tls: opts.tls, log: opts.log, runRetention: runRetentionFrom(opts.env), uiSessionSeconds: sessionSecondsFrom(opts.env),
      live: { config: opts.config ?? emptyConfigValue(), env: opts.env, home: opts.home ?? opts.dataDir, timeoutMs: liveTimeoutMsFrom(opts.env), driftPlans: driftPlansFrom(opts.env) },
    });
  } catch (err) {
    await api?.stop(0);
    if (admin?.listening) await new Promise<void>((resolve) => admin!.close(() => resolve()));
    if (socket) rmSync(socket, { force: true });
    await store.close().catch(() => undefined);
    lock?.release();
    throw err;
  }
  const served = api;
  let closing: Promise<void> | undefined;
  return {
    url: served.url,
    port: served.port,
    storage: storageKind,
    where: store.storage.where,
    keyCreated: store.keyCreated,
    keySource: opts.env.ASSISTANT_BACKEND_MASTER_KEY?.trim() ? 'ASSISTANT_BACKEND_MASTER_KEY' : opts.keyFile,
    close: () =>
      (closing ??= (async () => {
        // Graceful: stop accepting, let requests in flight finish (10 s at most), then release everything.
        await served.stop(10_000);
        if (admin) {
          const adminClosed = new Promise<void>((resolve) => admin!.close(() => resolve()));
          admin.closeAllConnections();
          await adminClosed;
          if (socket) rmSync(socket, { force: true });
        }
        await store.close();
        lock?.release();
      })()),
  };
}
