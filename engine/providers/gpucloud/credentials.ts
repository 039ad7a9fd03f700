/**
 * Where the gpucloud OAuth client credentials come from (SPEC.md §5), and the other values the
 * gpucloud client derives from configuration: API origin, token URL, rate limits, predefined
 * plan bindings (DESIGN.md §2, §3).
 *
 * Resolution order, first complete source wins:
 *   1. the `gpucloud` block of the config file (client_id AND client_secret),
 *   2. GPUCLOUD_CLIENT_ID + GPUCLOUD_CLIENT_SECRET (+ GPUCLOUD_PROJECT_ID),
 *   3. `~/.gpucloud/credentials` (INI, profile from GPUCLOUD_PROFILE, else gpucloud.profile, else `default`),
 *   4. the backend credential store (backend-lookup.ts, through engine/core/config/backend-store.ts), only when a backend API key is
 *      configured, and only when none of the above holds a complete pair: it never overrides a local
 *      source. Asynchronous (an HTTP call): `resolveGpuCloudCredentialsWithBackend`.
 * A half-set source (an id without a secret, or the reverse) never matches; it is named in the
 * `no_credentials` error and in `warnings` when a later source is used instead.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import { RATE_LIMIT_DEFAULTS } from '../../../schemas/config-defaults.js';
import { AssistantError, ExitCode, InvalidInputError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { defaultConfigPath } from '../../core/config/load.js';
import type { GpuCloudCredentialSource, ResolveGpuCloudCredentialsOptions, SearchedPlace } from './credential-types.js';

export type { GpuCloudCredentialSource, ResolveGpuCloudCredentialsOptions, SearchedPlace };

export interface GpuCloudCredentials {
  clientId: string;
  clientSecret: string;
  projectId?: string;
}

export interface RateLimitSettings {
  /** Requests per window for the whole project (SPEC 8: 500). */
  perProject: number;
  /** Requests per window per method + concrete path without query (SPEC 8: 60). */
  perPath: number;
  /** Window length in milliseconds (60000). */
  windowMs: number;
}

export const DEFAULT_GPUCLOUD_BASE_URL = 'https://api.verda.com';
export const GPUCLOUD_TOKEN_PATH = '/v1/oauth2/token';
export const GPUCLOUD_ENV = {
  clientId: 'GPUCLOUD_CLIENT_ID',
  clientSecret: 'GPUCLOUD_CLIENT_SECRET',
  projectId: 'GPUCLOUD_PROJECT_ID',
  profile: 'GPUCLOUD_PROFILE',
  baseUrl: 'GPUCLOUD_BASE_URL',
  authUrl: 'GPUCLOUD_AUTH_URL',
} as const;


/** Credentials as resolved from config, environment or the credentials file: the client's, plus where they point and came from. */
export interface ResolvedGpuCloudCredentials extends GpuCloudCredentials {
  /** API origin without a trailing `/` or `/v1`; plan paths carry `/v1` themselves. */
  baseUrl: string;
  authUrl: string;
  source: GpuCloudCredentialSource;
  /** Human-readable origin, e.g. `config file /home/me/.assistant.yaml (gpucloud.client_id, gpucloud.client_secret)`. */
  sourceDetail: string;
  /** Half-set sources that were skipped, or an over-permissive credentials file. */
  warnings: string[];
}

/** No source held a complete client id + secret pair (exit 2: nothing was sent). */
export class NoCredentialsError extends AssistantError {
  readonly searched: SearchedPlace[];

  constructor(searched: SearchedPlace[], configPath: string) {
    const list = searched.map((p, i) => `(${i + 1}) ${p.where}: ${p.outcome}`).join('; ');
    super('no_credentials', `no gpucloud credentials found; looked at ${list}`, ExitCode.invalidInput, {
      hint:
        // Written so the redactor (which masks anything after "client_secret:") leaves the advice readable.
        `put client_id <CLIENT_ID> and client_secret <CLIENT_SECRET> under "gpucloud:" in ${configPath} ` +
        `(see examples/assistant.example.yaml), ` +
        `or export ${GPUCLOUD_ENV.clientId} and ${GPUCLOUD_ENV.clientSecret}, ` +
        `or run with --sandbox to try assistant against the local emulator`,
      details: searched,
    });
    this.searched = searched;
  }
}

/** SPEC.md §5 item 4: asks the backend credential store (backend-lookup.ts). */
export type BackendCredentialStoreLookup = (
  options: ResolveGpuCloudCredentialsOptions & { signal?: AbortSignal; debug?: (line: string) => void },
) => Promise<{ clientId: string; clientSecret: string; projectId?: string; sourceDetail: string } | SearchedPlace>;

export interface ResolveWithBackendOptions extends ResolveGpuCloudCredentialsOptions {
  signal?: AbortSignal;
  debug?: (line: string) => void;
  /** Only the backend (`credentials test` of what is stored): the local sources are not consulted. */
  backendOnly?: boolean;
}

/**
 * The full SPEC.md §5 order: the three local sources first (resolveGpuCloudCredentials), then the
 * backend credential store when a backend API key is configured. The backend never overrides a local
 * source; what it returns lives in memory only (and is registered for redaction).
 */
export async function resolveGpuCloudCredentialsWithBackend(
  options: ResolveWithBackendOptions,
  lookup?: BackendCredentialStoreLookup,
): Promise<ResolvedGpuCloudCredentials> {
  let searched: SearchedPlace[] = [];
  if (!options.backendOnly) {
    try {
      return await resolveGpuCloudCredentials(options);
    } catch (err) {
      if (!(err instanceof NoCredentialsError)) throw err;
      searched = err.searched;
    }
  }
  const ask = lookup ?? (await import('./backend-lookup.js')).lookupGpuCloudInBackend;
  const found = await ask(options);
  const configPath = options.configPath ?? defaultConfigPath(options.home);
  if ('where' in found) throw new NoCredentialsError([...searched, found], configPath);
  const { sourceDetail, ...creds } = found;
  const projectId = creds.projectId ?? nonEmpty(options.config.gpucloud?.default_project_id) ?? nonEmpty(options.env[GPUCLOUD_ENV.projectId]);
  return finishCredentials(options, { ...creds, projectId, source: 'backend', sourceDetail, warnings: [] });
}

export function gpucloudCredentialsFilePath(home: string): string {
  return join(home, '.gpucloud', 'credentials');
}

/** The three local sources, in order. Asynchronous only because the INI parser is imported when the file is read. */
export async function resolveGpuCloudCredentials(options: ResolveGpuCloudCredentialsOptions): Promise<ResolvedGpuCloudCredentials> {
  const { config, env, home } = options;
  const configPath = options.configPath ?? defaultConfigPath(home);
  const g = config.gpucloud ?? {};
  const searched: SearchedPlace[] = [];
  const warnings: string[] = [];

  // 1. config file
  {
    const id = nonEmpty(g.client_id);
    const secret = nonEmpty(g.client_secret);
    const where = `config file ${configPath} (gpucloud.client_id, gpucloud.client_secret)`;
    if (id && secret) {
      return finishCredentials(options, {
        clientId: id,
        clientSecret: secret,
        projectId: nonEmpty(g.default_project_id) ?? nonEmpty(env[GPUCLOUD_ENV.projectId]),
        source: 'config',
        sourceDetail: where,
        warnings,
      });
    }
    const outcome = halfSet(id, secret, 'gpucloud.client_id', 'gpucloud.client_secret');
    searched.push({ source: 'config', where, outcome });
    if (id || secret) warnings.push(`ignored ${where}: ${outcome}`);
  }

  // 2. environment
  {
    const id = nonEmpty(env[GPUCLOUD_ENV.clientId]);
    const secret = nonEmpty(env[GPUCLOUD_ENV.clientSecret]);
    const where = `environment (${GPUCLOUD_ENV.clientId}, ${GPUCLOUD_ENV.clientSecret})`;
    if (id && secret) {
      return finishCredentials(options, {
        clientId: id,
        clientSecret: secret,
        projectId: nonEmpty(env[GPUCLOUD_ENV.projectId]) ?? nonEmpty(g.default_project_id),
        source: 'env',
        sourceDetail: `environment ${GPUCLOUD_ENV.clientId}, ${GPUCLOUD_ENV.clientSecret}`,
        warnings,
      });
    }
    const outcome = halfSet(id, secret, GPUCLOUD_ENV.clientId, GPUCLOUD_ENV.clientSecret);
    searched.push({ source: 'env', where, outcome });
    if (id || secret) warnings.push(`ignored ${where}: ${outcome}`);
  }

  // 3. ~/.gpucloud/credentials
  {
    const file = gpucloudCredentialsFilePath(home);
    const profile = nonEmpty(env[GPUCLOUD_ENV.profile]) ?? nonEmpty(g.profile) ?? 'default';
    const profileOrigin = nonEmpty(env[GPUCLOUD_ENV.profile]) ? ` from ${GPUCLOUD_ENV.profile}` : nonEmpty(g.profile) ? ' from gpucloud.profile' : '';
    const where = `credentials file ${file} (profile [${profile}]${profileOrigin}: client_id, client_secret)`;
    const read = await readCredentialsProfile(file, profile);
    if (read.kind === 'found') {
      const id = read.values.client_id;
      const secret = read.values.client_secret;
      if (id && secret) {
        const permission = permissionWarning(file);
        if (permission) warnings.push(permission);
        return finishCredentials(
          options,
          {
            clientId: id,
            clientSecret: secret,
            projectId: read.values.project_id ?? nonEmpty(g.default_project_id) ?? nonEmpty(env[GPUCLOUD_ENV.projectId]),
            source: 'credentials-file',
            sourceDetail: `credentials file ${file} [${profile}]`,
            warnings,
          },
          { fileBaseUrl: read.values.base_url, fileAuthUrl: read.values.auth_url },
        );
      }
      searched.push({ source: 'credentials-file', where, outcome: halfSet(id, secret, 'client_id', 'client_secret') });
    } else {
      searched.push({ source: 'credentials-file', where, outcome: read.outcome });
    }
  }

  // 4. backend credential store: see BackendCredentialStoreLookup.
  throw new NoCredentialsError(searched, configPath);
}

/**
 * Completes a found client id/secret with the API origin and token URL, and registers the secret.
 * baseUrl: GPUCLOUD_BASE_URL > gpucloud.base_url > the credentials file's base_url (only when the
 * credentials came from that file: its base_url belongs to its credentials) > https://api.verda.com.
 * authUrl: GPUCLOUD_AUTH_URL > gpucloud.auth_url > the file's auth_url (same rule) > <baseUrl>/v1/oauth2/token.
 */
export function finishCredentials(
  options: ResolveGpuCloudCredentialsOptions,
  found: Omit<ResolvedGpuCloudCredentials, 'baseUrl' | 'authUrl'>,
  fromFile: { fileBaseUrl?: string; fileAuthUrl?: string } = {},
): ResolvedGpuCloudCredentials {
  registerSecret(found.clientSecret);
  const { baseUrl, authUrl } = resolveGpuCloudUrls(options.config, options.env, fromFile);
  const result: ResolvedGpuCloudCredentials = { ...found, baseUrl, authUrl };
  if (result.projectId === undefined) delete result.projectId;
  return result;
}

/** The API origin and token URL alone (also usable without credentials, e.g. for `config show`). */
export function resolveGpuCloudUrls(
  config: Config,
  env: NodeJS.ProcessEnv,
  fromFile: { fileBaseUrl?: string; fileAuthUrl?: string } = {},
): { baseUrl: string; authUrl: string } {
  const g = config.gpucloud ?? {};
  const [baseRaw, baseFrom] = firstSet(
    [env[GPUCLOUD_ENV.baseUrl], GPUCLOUD_ENV.baseUrl],
    [g.base_url, 'gpucloud.base_url'],
    [fromFile.fileBaseUrl, 'base_url in ~/.gpucloud/credentials'],
  ) ?? [DEFAULT_GPUCLOUD_BASE_URL, 'default'];
  const baseUrl = normaliseBaseUrl(checkUrl(baseRaw, baseFrom));
  const auth = firstSet(
    [env[GPUCLOUD_ENV.authUrl], GPUCLOUD_ENV.authUrl],
    [g.auth_url, 'gpucloud.auth_url'],
    [fromFile.fileAuthUrl, 'auth_url in ~/.gpucloud/credentials'],
  );
  const authUrl = auth ? checkUrl(auth[0], auth[1]) : `${baseUrl}${GPUCLOUD_TOKEN_PATH}`;
  return { baseUrl, authUrl };
}

/** `https://x/v1/` → `https://x`: trailing slashes and one trailing `/v1` are dropped. */
export function normaliseBaseUrl(url: string): string {
  let out = url.trim().replace(/\/+$/, '');
  if (/\/v1$/i.test(out)) out = out.slice(0, -3).replace(/\/+$/, '');
  return out;
}

export interface RateLimit extends RateLimitSettings {
  /** Shared across machines through Redis when set (ASSISTANT_REDIS_URL, then `gpucloud.rate_limit.redis_url`). */
  redisUrl?: string;
}

/** SPEC.md §8 limits, overridable with `gpucloud.rate_limit.*` (DESIGN.md §2). */
export function resolveRateLimit(config: Config, env: NodeJS.ProcessEnv = {}): RateLimit {
  const r = config.gpucloud?.rate_limit ?? {};
  const redisUrl = nonEmpty(env.ASSISTANT_REDIS_URL) ?? nonEmpty(r.redis_url);
  return {
    perProject: r.per_project ?? RATE_LIMIT_DEFAULTS.per_project,
    perPath: r.per_path ?? RATE_LIMIT_DEFAULTS.per_path,
    windowMs: r.window_ms ?? RATE_LIMIT_DEFAULTS.window_ms,
    ...(redisUrl ? { redisUrl } : {}),
  };
}

/** Plan bindings predefined from configuration (DESIGN.md §3); only the ones that are set. */
export function predefinedBindings(config: Config, env: NodeJS.ProcessEnv): Record<string, string> {
  const g = config.gpucloud ?? {};
  const out: Record<string, string> = {};
  const sshKey = nonEmpty(g.default_ssh_key_id);
  const location = nonEmpty(g.default_location);
  const project = nonEmpty(g.default_project_id) ?? nonEmpty(env[GPUCLOUD_ENV.projectId]);
  if (sshKey) out.DEFAULT_SSH_KEY_ID = sshKey;
  if (location) out.DEFAULT_LOCATION = location;
  if (project) out.PROJECT_ID = project;
  return out;
}

// ---------------------------------------------------------------------------------------------

interface CredentialsProfileValues {
  client_id?: string;
  client_secret?: string;
  base_url?: string;
  auth_url?: string;
  project_id?: string;
}

type ProfileRead = { kind: 'found'; values: CredentialsProfileValues } | { kind: 'missing'; outcome: string };

/**
 * Reads one profile of the INI credentials file. Sections are `[name]` (also `[profile name]`);
 * keys are `client_id`, `client_secret`, `base_url`, `auth_url`, `project_id`, each also accepted
 * with a `gpucloud_` prefix. Keys before any section count as the `default` profile.
 */
async function readCredentialsProfile(file: string, profile: string): Promise<ProfileRead> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { kind: 'missing', outcome: code === 'ENOENT' ? 'file not found' : `cannot read (${code ?? (err as Error).message})` };
  }
  let parsed: Record<string, unknown>;
  try {
    // ini loads only when an INI credentials file is read.
    parsed = (await import('ini')).parse(text) as Record<string, unknown>;
  } catch (err) {
    return { kind: 'missing', outcome: `not a valid INI file (${(err as Error).message})` };
  }
  const sections = listSections(parsed);
  let section = sections.get(profile) ?? sections.get(`profile ${profile}`);
  if (!section && profile === 'default') {
    const topLevel = Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v !== 'object' || v === null));
    if (Object.keys(topLevel).length > 0) section = topLevel;
  }
  if (!section) {
    const names = [...sections.keys()];
    return {
      kind: 'missing',
      outcome: `no [${profile}] profile` + (names.length ? ` (profiles: ${names.join(', ')})` : ' (the file has no profiles)'),
    };
  }
  const pick = (key: keyof CredentialsProfileValues): string | undefined =>
    nonEmpty(asString(section![key])) ?? nonEmpty(asString(section![`gpucloud_${key}`]));
  const values: CredentialsProfileValues = {
    client_id: pick('client_id'),
    client_secret: pick('client_secret'),
    base_url: pick('base_url'),
    auth_url: pick('auth_url'),
    project_id: pick('project_id'),
  };
  registerSecret(values.client_secret);
  return { kind: 'found', values };
}

/** ini nests `[a.b]` as {a: {b: …}}; flatten back to dotted section names. */
function listSections(parsed: Record<string, unknown>, prefix = ''): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const [name, value] of Object.entries(parsed)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const full = prefix ? `${prefix}.${name}` : name;
    const record = value as Record<string, unknown>;
    const scalars = Object.fromEntries(Object.entries(record).filter(([, v]) => typeof v !== 'object' || v === null));
    if (Object.keys(scalars).length > 0 || Object.keys(record).length === 0) out.set(full, scalars);
    for (const [k, v] of listSections(record, full)) out.set(k, v);
  }
  return out;
}

function permissionWarning(file: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    if ((statSync(file).mode & 0o077) !== 0) return `${file} is readable by other users and holds secrets; run chmod 600 ${file}`;
  } catch {
    // Already read successfully; nothing useful to add.
  }
  return undefined;
}

function halfSet(id: string | undefined, secret: string | undefined, idName: string, secretName: string): string {
  if (id && !secret) return `${idName} is set but ${secretName} is missing`;
  if (!id && secret) return `${secretName} is set but ${idName} is missing`;
  return 'not set';
}

function nonEmpty(value: string | undefined | null): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function firstSet(...candidates: Array<[string | undefined, string]>): [string, string] | undefined {
  for (const [value, origin] of candidates) {
    const v = nonEmpty(value);
    if (v) return [v, origin];
  }
  return undefined;
}

function checkUrl(value: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError('invalid_config', `${origin}: not a URL: "${value}"`, {
      hint: 'use an http(s) URL such as https://api.verda.com',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInputError('invalid_config', `${origin}: expected an http(s) URL, got "${value}"`, {
      hint: 'use an http(s) URL such as https://api.verda.com',
    });
  }
  return value;
}
