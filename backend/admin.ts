/**
 * What the admin commands (`backend keys …`, `backend audit`, `backend rotate-master-key`) work
 * through: the database directly, or, when a PGlite server holds the data directory, that server's
 * admin socket (one process per PGlite directory). Both offer the same operations.
 */
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { AssistantError, ExitCode, OperationError } from '../engine/core/errors.js';
import { lockHolder } from './lock.js';
import { adminSocketPath, openBackendStore, socketTempRoot, type BackendServerOptions } from './server.js';
import type { ApiKeyInfo, AuditEntry } from './store.js';

export interface AdminOps {
  /** How the operations reach the data, for messages. */
  via: string;
  createKey(tenant: string, label: string, envs: readonly string[]): Promise<{ key: string; prefix: string; envs: string[] }>;
  listKeys(tenant?: string): Promise<ApiKeyInfo[]>;
  revokeKey(prefix: string): Promise<{ revoked: boolean; tenant?: string; already?: boolean }>;
  audit(filter: { tenant?: string; limit?: number }): Promise<AuditEntry[]>;
  rotateMasterKey(): Promise<{ from: string[]; to: string; rewrapped: number }>;
  close(): Promise<void>;
}

export async function openAdmin(opts: Pick<BackendServerOptions, 'dataDir' | 'database' | 'keyFile' | 'env'>): Promise<AdminOps> {
  if (!opts.database) {
    const holder = lockHolder(opts.dataDir);
    if (holder !== undefined) {
      const where = adminSocketPath(opts.dataDir, socketTempRoot(opts.env));
      if ('problem' in where) throw new OperationError('admin_socket_unsafe', `no private place for the admin socket: ${where.problem}`);
      const socket = where.path;
      // A server that is still starting (opening its database) has the lock but no socket yet.
      for (let i = 0; i < 300 && !existsSync(socket) && lockHolder(opts.dataDir) !== undefined; i++) await new Promise((r) => setTimeout(r, 100));
      if (!existsSync(socket)) {
        throw new OperationError('data_dir_in_use', `the backend server (process ${holder}) holds ${opts.dataDir} and offers no admin socket`, {
          hint: 'stop the server, run the admin command, start it again',
        });
      }
      return socketAdmin(socket, holder);
    }
  }
  const { store, lock } = await openBackendStore(opts);
  return {
    via: store.storage.where,
    createKey: (tenant, label, envs) => store.createKey(tenant, label, envs),
    listKeys: (tenant) => store.listKeys(tenant),
    revokeKey: (prefix) => store.revokeKey(prefix),
    audit: (filter) => store.audit(filter),
    rotateMasterKey: () => store.rotateMasterKey(),
    async close() {
      await store.close();
      lock?.release();
    },
  };
}

function socketAdmin(socketPath: string, pid: number): AdminOps {
  const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        { socketPath, method, path, headers: text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {} },
        (res) => {
          let data = '';
          res.setEncoding('utf8').on('data', (d: string) => (data += d));
          res.on('end', () => {
            let parsed: { error?: { code: string; message: string; hint?: string } } & Record<string, unknown>;
            try {
              parsed = JSON.parse(data);
            } catch {
              return reject(new OperationError('admin_failed', `the server's admin socket answered ${res.statusCode} with no JSON`));
            }
            if ((res.statusCode ?? 500) >= 400) {
              const e = parsed.error ?? { code: 'admin_failed', message: `HTTP ${res.statusCode}` };
              return reject(new AssistantError(e.code, e.message, res.statusCode === 400 ? ExitCode.invalidInput : ExitCode.failed, { hint: e.hint }));
            }
            resolve(parsed as T);
          });
        },
      );
      req.on('error', (err) =>
        reject(new OperationError('admin_failed', `cannot reach the running server's admin socket ${socketPath}: ${err.message}`, { hint: 'is the server still starting or stopping? Try again' })),
      );
      req.end(text);
    });
  return {
    via: `the running server (process ${pid})`,
    createKey: (tenant, label, envs) => call('POST', '/admin/keys', { tenant, label, envs }),
    listKeys: async (tenant) => (await call<{ keys: ApiKeyInfo[] }>('GET', `/admin/keys${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`)).keys,
    revokeKey: (prefix) => call('POST', '/admin/keys/revoke', { prefix }),
    audit: async (f) => {
      const q = new URLSearchParams();
      if (f.tenant) q.set('tenant', f.tenant);
      if (f.limit) q.set('limit', String(f.limit));
      return (await call<{ entries: AuditEntry[] }>('GET', `/admin/audit?${q}`)).entries;
    },
    rotateMasterKey: () => call('POST', '/admin/rotate-master-key', {}),
    close: async () => undefined,
  };
}
