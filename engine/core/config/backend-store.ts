/**
 * The client of the credential backend (`assistant backend serve`, backend/): which backend and key to
 * use (SPEC 2.5 `backend.*`) and its HTTP API. Each provider looks its own credentials up through it
 * (engine/core/kits/http/stored-credentials.ts, or its own look-up such as gpucloud's backend-lookup.ts).
 *
 * Settings, first set wins: the API key from ASSISTANT_BACKEND_API_KEY, then `backend.api_key`; the env
 * (namespace) from ASSISTANT_BACKEND_ENV, then `backend.env`, else production; the URL from
 * ASSISTANT_BACKEND_URL, then `backend.url`, then `backend.urls.<env>`, else the local default
 * http://127.0.0.1:8790.
 *
 * The key is sent only in the Authorization header, never over plain HTTP to a non-loopback address,
 * and never after a redirect to another origin (both refused before anything is sent there). What the
 * backend returns stays in memory: nothing fetched is written anywhere.
 */
import type { z } from 'zod';
import type { Config } from '../../../schemas/config.js';
import {
  BACKEND_ENVS,
  CredentialResponseSchema,
  DEFAULT_BACKEND_ENV,
  DEFAULT_BACKEND_URL,
  ErrorResponseSchema,
  HealthResponseSchema,
  ListResponseSchema,
  RunDetailSchema,
  RunListResponseSchema,
  RunPutResponseSchema,
  StoreResponseSchema,
  WhoamiResponseSchema,
  type BackendEnv,
  type CredentialRecord,
  type CredentialSummary,
  type RunDetail,
  type RunRecord,
  type RunSummary,
} from '../../../schemas/backend-api.js';
import { AssistantError, InvalidInputError, OperationError, UsageError, isAbortError } from '../errors.js';
import { registerSecret } from '../redact.js';
import { isLoopbackHost } from '../loopback.js';
import { secretFetch } from '../kits/http/secret-origins.js';
import { BACKEND_ENV_VARS } from './backend-env.js';

export { BACKEND_ENV_VARS };

export interface BackendSettings {
  apiKey?: string;
  /** Where the key came from (`ASSISTANT_BACKEND_API_KEY` or `backend.api_key in <file>`); never the key. */
  apiKeyFrom?: string;
  env: BackendEnv;
  url: string;
  urlFrom: string;
}

const nonEmpty = (v: string | undefined | null): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export function resolveBackendSettings(config: Config, env: Record<string, string | undefined>): BackendSettings {
  const b = config.backend ?? {};
  const apiKey = nonEmpty(env[BACKEND_ENV_VARS.apiKey]) ?? nonEmpty(b.api_key);
  const apiKeyFrom = nonEmpty(env[BACKEND_ENV_VARS.apiKey]) ? BACKEND_ENV_VARS.apiKey : apiKey ? 'backend.api_key' : undefined;
  registerSecret(apiKey);
  const envRaw = nonEmpty(env[BACKEND_ENV_VARS.env]);
  if (envRaw && !(BACKEND_ENVS as readonly string[]).includes(envRaw)) {
    throw new InvalidInputError('invalid_config', `${BACKEND_ENV_VARS.env} must be one of ${BACKEND_ENVS.join(', ')} (got "${envRaw}")`);
  }
  const backendEnv = (envRaw as BackendEnv | undefined) ?? b.env ?? DEFAULT_BACKEND_ENV;
  const candidates: Array<[string | undefined, string]> = [
    [env[BACKEND_ENV_VARS.url], BACKEND_ENV_VARS.url],
    [b.url, 'backend.url'],
    [b.urls?.[backendEnv], `backend.urls.${backendEnv}`],
  ];
  const [url, urlFrom] = candidates.map(([v, from]) => [nonEmpty(v), from] as const).find(([v]) => v) ?? [DEFAULT_BACKEND_URL, 'the local default'];
  return { apiKey, apiKeyFrom, env: backendEnv, url: checkBackendUrl(url!, urlFrom), urlFrom };
}

function checkBackendUrl(value: string, from: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InvalidInputError('invalid_config', `${from}: not a URL: "${value}"`, { hint: 'e.g. https://backend.example.com or http://127.0.0.1:8790' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidInputError('invalid_config', `${from}: expected an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** Refuses to send a key to `url` over plain HTTP unless it is this machine. */
export function assertSafeTransport(url: URL): void {
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new InvalidInputError('insecure_backend_url', `refusing to send the backend API key over plain HTTP to ${url.host}: anyone on the network could read it`, {
      hint: 'use https:// (run the backend with --tls-cert/--tls-key or behind a TLS proxy); plain http is allowed only to 127.0.0.1/localhost',
    });
  }
}

export interface BackendClientOptions {
  signal?: AbortSignal;
  /** Per request; 30 s by default. */
  timeoutMs?: number;
  debug?: (line: string) => void;
}

const MAX_REDIRECTS = 3;

export class BackendClient {
  readonly env: BackendEnv;
  readonly url: string;

  constructor(
    private readonly settings: BackendSettings & { apiKey: string },
    private readonly opts: BackendClientOptions = {},
  ) {
    this.env = settings.env;
    this.url = settings.url;
  }

  /** `backend <url> (env production)`, for messages. */
  describe(): string {
    return `backend ${this.url} (env ${this.env})`;
  }

  private path(provider: string, name: string, env = this.env): string {
    return `/v1/credentials/${encodeURIComponent(env)}/${encodeURIComponent(provider)}/${encodeURIComponent(name)}`;
  }

  async health(): Promise<z.infer<typeof HealthResponseSchema>> {
    return (await this.call('GET', '/v1/health', undefined, HealthResponseSchema, { auth: false }))!;
  }

  async whoami(): Promise<z.infer<typeof WhoamiResponseSchema>> {
    return (await this.call('GET', '/v1/whoami', undefined, WhoamiResponseSchema))!;
  }

  async list(env: BackendEnv | 'all' = this.env): Promise<CredentialSummary[]> {
    const q = env === 'all' ? '' : `?env=${env}`;
    return (await this.call('GET', `/v1/credentials${q}`, undefined, ListResponseSchema))!.credentials;
  }

  /** The stored fields, or undefined when nothing is stored under that name. */
  async get(provider: string, name: string): Promise<CredentialRecord | undefined> {
    const record = await this.call('GET', this.path(provider, name), undefined, CredentialResponseSchema, { notFound: true });
    for (const v of Object.values(record?.fields ?? {})) registerSecret(v);
    return record;
  }

  async put(provider: string, name: string, fields: Record<string, string>): Promise<z.infer<typeof StoreResponseSchema>> {
    return (await this.call('PUT', this.path(provider, name), { fields }, StoreResponseSchema))!;
  }

  /** false when nothing was stored under that name. */
  async delete(provider: string, name: string): Promise<boolean> {
    return (await this.call('DELETE', this.path(provider, name), undefined, undefined, { notFound: true })) !== undefined;
  }

  /** Stores a run in the history under its idempotency key (`created` false: it was already there). */
  async putRun(id: string, record: RunRecord, env: BackendEnv = this.env): Promise<{ id: string; created: boolean }> {
    return (await this.call('PUT', `/v1/runs/${encodeURIComponent(env)}/${encodeURIComponent(id)}`, record, RunPutResponseSchema))!;
  }

  /** The newest runs first; `env` 'all' for every env the key may use. */
  async listRuns(o: { env?: BackendEnv | 'all'; limit?: number; before?: string; plan?: string } = {}): Promise<RunSummary[]> {
    const q = new URLSearchParams();
    const env = o.env ?? this.env;
    if (env !== 'all') q.set('env', env);
    if (o.limit !== undefined) q.set('limit', String(o.limit));
    if (o.before) q.set('before', o.before);
    if (o.plan) q.set('plan', o.plan);
    return (await this.call('GET', `/v1/runs?${q}`, undefined, RunListResponseSchema))!.runs;
  }

  /** One run, or undefined when the history has none with that id. */
  async getRun(id: string): Promise<RunDetail | undefined> {
    return this.call('GET', `/v1/runs/${encodeURIComponent(id)}`, undefined, RunDetailSchema, { notFound: 'run_not_found' });
  }

  private async call<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T> | undefined,
    o: { auth?: boolean; notFound?: boolean | string } = {},
  ): Promise<T | undefined> {
    let url = new URL(this.url + path);
    const origin = url.origin;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, timeout]) : timeout;
    for (let hop = 0; ; hop++) {
      if (o.auth !== false) assertSafeTransport(url);
      // The key goes only to the backend's own origin (checked above to be TLS or this machine).
      const send = o.auth !== false ? secretFetch({ what: 'the backend API key', origins: [origin] }) : fetch;
      const started = Date.now();
      let res: Response;
      try {
        res = await send(url, {
          method,
          redirect: 'manual',
          signal,
          headers: {
            accept: 'application/json',
            ...(o.auth !== false ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        if (this.opts.signal?.aborted) throw this.opts.signal.reason ?? err;
        if (timeout.aborted || isAbortError(err)) {
          throw new OperationError('backend_timeout', `the credential backend at ${this.url} did not answer within ${(this.opts.timeoutMs ?? 30_000) / 1000} s`);
        }
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new OperationError('backend_unreachable', `cannot reach the credential backend at ${this.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, {
          hint: `start it with 'assistant backend serve', or check ${this.settings.urlFrom === 'the local default' ? `${BACKEND_ENV_VARS.url} / backend.url` : this.settings.urlFrom}`,
          cause: err,
        });
      }
      this.opts.debug?.(`backend ${method} ${url.origin}${url.pathname} → ${res.status} (${Date.now() - started} ms)`);
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel();
        const next = new URL(res.headers.get('location')!, url);
        if (next.origin !== origin) {
          throw new OperationError('backend_redirect_refused', `the credential backend at ${origin} redirected to another origin (${next.origin}); the API key is not sent there`, {
            hint: 'point backend.url (or ASSISTANT_BACKEND_URL) at the final address yourself if you trust it',
          });
        }
        if (hop >= MAX_REDIRECTS) throw new OperationError('backend_redirect_loop', `the credential backend redirected more than ${MAX_REDIRECTS} times`);
        url = next;
        continue;
      }
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      if (res.ok) {
        if (!schema) return json as T;
        const parsed = schema.safeParse(json);
        if (!parsed.success) throw new OperationError('backend_bad_response', `the credential backend at ${this.url} answered ${method} ${url.pathname} with an unexpected body`);
        return parsed.data;
      }
      if (res.status === 404 && o.notFound && ErrorResponseSchema.safeParse(json).data?.error.code === (o.notFound === true ? 'credential_not_found' : o.notFound)) return undefined;
      throw this.errorFor(res.status, json, res.headers.get('retry-after'));
    }
  }

  private errorFor(status: number, json: unknown, retryAfter: string | null): AssistantError {
    const e = ErrorResponseSchema.safeParse(json).data?.error ?? { code: `http_${status}`, message: `HTTP ${status}` };
    const where = `credential backend ${this.url}`;
    if (status === 401) {
      return new OperationError('backend_unauthorized', `the ${where} refused the API key: ${e.message}`, {
        hint: `check ${this.settings.apiKeyFrom ?? BACKEND_ENV_VARS.apiKey}; an administrator creates keys with 'assistant backend keys create --tenant <team>'`,
      });
    }
    if (status === 429) return new OperationError('backend_throttled', `the ${where} is slowing down this address after failed authentications: ${e.message}`, { hint: `wait ${retryAfter ?? 'a minute'} s and check the API key` });
    if (status === 400 || status === 413 || status === 415) return new InvalidInputError(e.code, `the ${where} refused the request: ${e.message}`);
    return new OperationError(e.code, `the ${where} failed: ${e.message}`, { hint: status >= 500 ? 'the server log says more' : undefined });
  }
}

/** A client for the configured backend; a usage error when no API key is configured. */
export function backendClient(config: Config, env: Record<string, string | undefined>, opts: BackendClientOptions = {}): BackendClient {
  const settings = resolveBackendSettings(config, env);
  if (!settings.apiKey) {
    throw new UsageError('no backend API key configured', {
      hint: `set ${BACKEND_ENV_VARS.apiKey} or backend.api_key in ~/.assistant.yaml (an administrator creates one with 'assistant backend keys create --tenant <team>')`,
    });
  }
  return new BackendClient({ ...settings, apiKey: settings.apiKey }, opts);
}

/** The name a provider's credentials are stored under when `credentials store <provider>` is given no --name. */
export const DEFAULT_CREDENTIAL_NAME = 'default';
