/**
 * `assistant backend serve`: the credential backend as one object that starts and stops cleanly.
 * PGlite (the default) lives in `<data-dir>/pgdata`, guarded by `<data-dir>/backend.lock` and served to
 * admin commands on `<data-dir>/admin.sock`; `database` switches to a real PostgreSQL server.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { listenError } from '../engine/core/listen.js';
import { OperationError } from '../engine/core/errors.js';
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

export function adminSocketPath(dataDir: string): string {
  const inside = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  // A Unix socket path has at most 107 bytes: a deep data directory gets its socket in a per-user 0700
  // directory under /tmp, named by a hash of the data directory (the admin commands compute the same).
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(existsSync('/tmp') ? '/tmp' : tmpdir(), `assistant-backend-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof uid === 'number' && st.uid !== uid) || (st.mode & 0o077) !== 0) return inside;
  return join(dir, `${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24)}.sock`);
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
  const socket = adminSocketPath(opts.dataDir);
  try {
    api = await startApiServer({ host: opts.host, port: opts.port, store, storage: storageKind, tls: opts.tls, log: opts.log });
    if (!opts.database) {
      rmSync(socket, { force: true });
      admin = createAdminServer(store, opts.log);
      try {
        await listen(admin, 0, undefined, socket);
        chmodSync(socket, 0o600);
      } catch (err) {
        admin = undefined;
        opts.log?.(`admin socket ${socket} unavailable (${(err as Error).message}): admin commands need this server stopped`);
      }
    }
  } catch (err) {
    await api?.stop(0);
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
          rmSync(socket, { force: true });
        }
        await store.close();
        lock?.release();
      })()),
  };
}
