/**
 * Where a postgres connection's settings and password come from. The config names the server
 * (`postgres.connections.<name>`: host, port, database, username) and never holds a password; the
 * password comes, in this order, from PGPASSWORD, the password file (PGPASSFILE or ~/.pgpass, libpq's
 * format and rules: ignored when others can read it), then the backend credential store
 * (`credentials store postgres --name <connection> --password -`). None is fine: trust or peer
 * authentication needs no password, and the server says so when it wants one.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import { AssistantError, UsageError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import type { CredentialSource, SourceInput } from '../../core/capabilities.js';
import { configKey, envSet, fileExists, markUsed, tidyPath } from '../../core/credential-sources.js';

export interface ConnectionSettings {
  /** The connection's name in the config (`main`). */
  name: string;
  host: string;
  port: number;
  database: string;
  user: string;
}

export interface ResolvedConnection extends ConnectionSettings {
  password?: string;
  /** Where the password came from (never its value): `PGPASSWORD`, `~/.pgpass line 3`, `backend …`, or none. */
  passwordSource: string;
}

type Env = Record<string, string | undefined>;

/** The settings of a named connection; unknown names are a usage error naming the configured ones. */
export function connectionSettings(config: Config, env: Env, connection: string): ConnectionSettings {
  const all = config.postgres?.connections ?? {};
  const c = Object.hasOwn(all, connection) ? all[connection] : undefined;
  if (!c) {
    const known = Object.keys(all);
    throw new UsageError(
      known.length ? `the postgres connection "${connection}" is not in the config (configured: ${known.join(', ')})` : `no postgres connection is configured (asked for "${connection}")`,
      { hint: 'add postgres.connections.<name> (host, port, database, username) to ~/.assistant.yaml; the password goes in ~/.pgpass or PGPASSWORD' },
    );
  }
  return {
    name: connection,
    host: c.host ?? env.PGHOST ?? 'localhost',
    port: c.port ?? (Number(env.PGPORT) || 5432),
    database: c.database ?? env.PGDATABASE ?? 'postgres',
    user: c.username ?? env.PGUSER ?? 'postgres',
  };
}

export function passFilePath(env: Env, home: string): string {
  return env.PGPASSFILE || join(home, '.pgpass');
}

/** One `hostname:port:database:username:password` line split on unescaped colons (`\:` and `\\` escape). */
function fields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) cur += line[++i];
    else if (ch === ':' && out.length < 4) (out.push(cur), (cur = ''));
    else cur += ch;
  }
  out.push(cur);
  return out;
}

/**
 * The password file's entry for these settings, as libpq reads it: the first matching line wins, `*`
 * matches anything, and a file that group or others can read is ignored (with a warning).
 */
export function passFileLookup(path: string, s: ConnectionSettings, warn?: (message: string) => void): { password: string; line: number } | undefined {
  let content: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) return undefined;
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      warn?.(`postgres: the password file ${path} is readable by others (mode ${(st.mode & 0o777).toString(8)}) and was ignored, as libpq does; chmod 600 it`);
      return undefined;
    }
    content = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  // A host that is a socket directory matches "localhost" in the file, as in libpq.
  const host = s.host.startsWith('/') ? 'localhost' : s.host;
  const want = [host, String(s.port), s.database, s.user];
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.startsWith('#')) continue;
    const f = fields(line);
    if (f.length < 5) continue;
    if (want.every((w, k) => f[k] === '*' || f[k] === w)) return { password: f[4]!, line: i + 1 };
  }
  return undefined;
}

export type BackendPasswordLookup = (connection: string) => Promise<string | undefined>;

/** The connection with its password, from the first source that has one. */
export async function resolveConnection(
  config: Config,
  env: Env,
  home: string,
  connection: string,
  opts: { warn?: (message: string) => void; backend?: BackendPasswordLookup; backendOnly?: boolean } = {},
): Promise<ResolvedConnection> {
  const s = connectionSettings(config, env, connection);
  const found = (password: string, passwordSource: string): ResolvedConnection => (registerSecret(password), { ...s, password, passwordSource });
  if (!opts.backendOnly) {
    if (env.PGPASSWORD) return found(env.PGPASSWORD, 'PGPASSWORD');
    const file = passFilePath(env, home);
    const hit = passFileLookup(file, s, opts.warn);
    if (hit) return found(hit.password, `${env.PGPASSFILE ? 'PGPASSFILE' : '~/.pgpass'} line ${hit.line}`);
  }
  const stored = await opts.backend?.(connection);
  if (stored) return found(stored, `the backend credential store (postgres/${connection})`);
  if (opts.backendOnly) throw new UsageError(`nothing is stored in the backend for postgres/${connection}`, { hint: `assistant credentials store postgres --name ${connection} --password -` });
  return { ...s, passwordSource: 'none (trust or peer authentication)' };
}

/** The password kept in the backend store under postgres/<connection>, when a backend API key is configured. */
export function backendPasswordLookup(config: Config, env: Env, signal?: AbortSignal): BackendPasswordLookup {
  return async (connection) => {
    const { resolveBackendSettings, BackendClient } = await import('../../core/config/backend-store.js');
    const settings = resolveBackendSettings(config, env);
    if (!settings.apiKey) return undefined;
    try {
      const record = await new BackendClient({ ...settings, apiKey: settings.apiKey }, { signal }).get('postgres', connection);
      return record?.fields.password || undefined;
    } catch (err) {
      // The deadline ends the command; an unreachable store is one more place without a password.
      if (signal?.aborted) throw err;
      if (err instanceof AssistantError && err.code !== 'insecure_backend_url' && err.code !== 'decrypt_failed') return undefined;
      throw err;
    }
  };
}

/** The sources `credentials` and onboarding list, in order (names and paths, never values). */
export function postgresSources(input: SourceInput): CredentialSource[] {
  const { env, home } = input;
  const conns = Object.keys(input.config.postgres?.connections ?? {});
  const passFile = env.PGPASSFILE || (input.os === 'windows' ? join(env.APPDATA ?? home, 'postgresql', 'pgpass.conf') : join(home, '.pgpass'));
  return markUsed(
    [
      { kind: 'config', where: configKey(input, ['postgres.connections']), present: conns.length > 0, ...(conns.length ? { note: `connections: ${conns.join(', ')} (no password in the config)` } : {}) },
      { kind: 'env', where: 'PGPASSWORD', present: envSet(env, 'PGPASSWORD') },
      { kind: 'file', where: `${tidyPath(passFile, home)}${env.PGPASSFILE ? ' (PGPASSFILE)' : ''}`, present: fileExists(passFile) },
    ],
    (s) => s.kind !== 'config',
  );
}
