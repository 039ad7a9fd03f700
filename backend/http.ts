/**
 * The HTTP JSON API (`/v1/...`) over node:http or node:https, and the admin API on a Unix socket.
 *
 * Limits: bodies at most MAX_BODY_BYTES (413 before parsing), JSON only (415), MAX_IN_FLIGHT requests
 * at once (503 beyond); from the serve kit (engine/core/kits/serve/): headers within 15 s, a whole
 * request within 30 s, slow connections without a valid key evicted first, query-string tokens,
 * foreign Host (on loopback) and foreign Origin refused, a graceful stop. Every /v1 route but health
 * needs `Authorization: Bearer <api key>`; an address that keeps failing is slowed down
 * (backend/throttle.ts). Errors are `{"error": {"code", "message"}}` and never echo a key or a value.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { z } from 'zod';
import { checkRequest, type GuardPolicy } from '../engine/core/kits/serve/guard.js';
import { serve, type Served } from '../engine/core/kits/serve/http.js';
import { bearerOf } from '../engine/core/kits/serve/token.js';
import { AssistantError } from '../engine/core/errors.js';
import { assistantVersion } from '../engine/core/version.js';
import {
  CredentialNameSchema,
  EnvSchema,
  MAX_BODY_BYTES,
  MAX_RUN_BODY_BYTES,
  ProviderNameSchema,
  RunIdSchema,
  RunRecordSchema,
  StoreRequestSchema,
  TenantSchema,
} from '../schemas/backend-api.js';
import { AuthThrottle } from './throttle.js';
import { RunHistory, type RunRetention } from './runs.js';
import { createConsole } from './console/index.js';
import type { LiveSettings } from './console/live.js';
import type { CredentialStore, Principal } from './store.js';
import { BodyTooLarge, closeIfBodyUnread, readRequestBody } from '../engine/core/request-body.js';

export const MAX_IN_FLIGHT = 128;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function clientAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text), ...closeIfBodyUnread(res), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'unsupported_media_type', 'send the body as application/json');
  let body: Buffer;
  try {
    body = await readRequestBody(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new HttpError(413, 'body_too_large', err.message);
    throw err;
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'the body is not valid JSON');
  }
}

/** A key reads and writes its own envs only: a testing key cannot read production. */
function inScope(who: Principal, env: string): string {
  if (!who.envs.includes(env)) throw new HttpError(403, 'env_forbidden', `this API key may use ${who.envs.join(', ')}, not ${env}`);
  return env;
}

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const at = issue.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new HttpError(400, 'invalid_request', `${what}${at}: ${issue.message}`);
}

/** Reads and drops a request's (small) body so the connection can serve the next request. */
function drain(req: IncomingMessage): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared <= MAX_BODY_BYTES && !req.headers['transfer-encoding']) req.resume();
}

interface ApiOptions {
  host: string;
  port: number;
  store: CredentialStore;
  storage: 'pglite' | 'postgres';
  tls?: { cert: Buffer; key: Buffer };
  log?: (line: string) => void;
  /** How many runs (and days of them) each tenant's history keeps. */
  runRetention: RunRetention;
  /** How long a console session lasts. */
  uiSessionSeconds: number;
  /** How the console's live page reaches the clouds. */
  live: LiveSettings;
}

/** Listens and serves the API; stop it with `stop()` (graceful, 10 s for requests in flight). */
export async function startApiServer(opts: ApiOptions): Promise<Served> {
  const throttle = new AuthThrottle();
  let inFlight = 0;
  const { store } = opts;
  const runs = new RunHistory(store.storage, opts.runRetention);
  const ui = createConsole({ store, runs, throttle, secure: Boolean(opts.tls), sessionSeconds: opts.uiSessionSeconds, live: opts.live });
  const policy: GuardPolicy = { host: opts.host, port: opts.port, hostCheck: 'loopback' };
  let served: Served | undefined;

  const authenticate = async (req: IncomingMessage, address: string): Promise<Principal> => {
    const wait = throttle.waitFor(address);
    if (wait > 0) {
      throw new HttpError(429, 'too_many_failures', `too many failed authentications from ${address}; try again in ${Math.ceil(wait / 1000)} s`, {
        'retry-after': String(Math.ceil(wait / 1000)),
      });
    }
    const key = bearerOf(req.headers.authorization);
    if (!key) {
      throw new HttpError(401, 'unauthorized', 'send the API key as "Authorization: Bearer <key>"', { 'www-authenticate': 'Bearer' });
    }
    const result = await store.authenticate(key);
    if (result.ok) {
      served?.prove(req);
      return result.principal;
    }
    throttle.failed(address);
    await store.authFailed(address, result.reason, result.prefix);
    const message = result.reason === 'revoked' ? 'this API key was revoked' : 'unknown API key';
    throw new HttpError(401, 'unauthorized', message, { 'www-authenticate': 'Bearer' });
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://backend');
    let parts: string[];
    try {
      parts = url.pathname.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
    } catch {
      throw new HttpError(400, 'invalid_request', 'the path is not valid percent-encoding');
    }
    const method = req.method ?? 'GET';
    const address = clientAddress(req);

    if (parts[0] === 'ui') return ui(req, res, url, parts, address);
    if (parts[0] !== 'v1') throw new HttpError(404, 'not_found', 'no such route; the API lives under /v1 and the console under /ui');
    if (parts[1] === 'health' && parts.length === 2) {
      if (method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'use GET');
      await store.storage.query('SELECT 1');
      return send(res, 200, { status: 'ok', version: assistantVersion(), storage: opts.storage });
    }
    if (method !== 'PUT') drain(req);
    const who = await authenticate(req, address);
    const actor = { ...who, address };

    if (parts[1] === 'whoami' && parts.length === 2) return send(res, 200, { tenant: who.tenant, key_prefix: who.prefix });
    if (parts[1] === 'runs') return routeRuns(req, res, url, parts, who);
    if (parts[1] !== 'credentials') throw new HttpError(404, 'not_found', `no such route: ${url.pathname}`);
    if (parts.length === 2) {
      if (method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'use GET');
      const env = url.searchParams.get('env') ?? undefined;
      if (env !== undefined) inScope(who, check(EnvSchema, env, 'env'));
      const listed = await store.list(actor, env);
      return send(res, 200, { credentials: listed.filter((c) => who.envs.includes(c.env)) });
    }
    if (parts.length !== 5) throw new HttpError(404, 'not_found', 'credentials live at /v1/credentials/<env>/<provider>/<name>');
    const id = {
      tenant: who.tenant,
      env: inScope(who, check(EnvSchema, parts[2], 'env')),
      provider: check(ProviderNameSchema, parts[3], 'provider'),
      name: check(CredentialNameSchema, parts[4], 'name'),
    };
    switch (method) {
      case 'PUT': {
        const body = check(StoreRequestSchema, await readBody(req), 'body');
        const stored = await store.put(actor, id, body.fields);
        return send(res, stored.created ? 201 : 200, stored);
      }
      case 'GET': {
        const found = await store.get(actor, id);
        if (!found) throw new HttpError(404, 'credential_not_found', `no ${id.provider}/${id.name} credential stored for ${id.env}`);
        return send(res, 200, found);
      }
      case 'DELETE': {
        if (!(await store.delete(actor, id))) throw new HttpError(404, 'credential_not_found', `no ${id.provider}/${id.name} credential stored for ${id.env}`);
        return send(res, 200, { deleted: true, env: id.env, provider: id.provider, name: id.name });
      }
      default:
        throw new HttpError(405, 'method_not_allowed', 'use GET, PUT or DELETE');
    }
  };

  /** The run history: PUT /v1/runs/<env>/<id> (idempotent), GET /v1/runs[?env&limit&before&plan], GET /v1/runs/<id>. */
  const routeRuns = async (req: IncomingMessage, res: ServerResponse, url: URL, parts: string[], who: Principal): Promise<void> => {
    const method = req.method ?? 'GET';
    if (parts.length === 2) {
      if (method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'use GET');
      const env = url.searchParams.get('env') ?? undefined;
      if (env !== undefined) inScope(who, check(EnvSchema, env, 'env'));
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const before = url.searchParams.get('before') ?? undefined;
      if (before !== undefined && Number.isNaN(Date.parse(before))) throw new HttpError(400, 'invalid_request', 'before: expected an ISO 8601 time');
      const listed = await runs.list(who.tenant, who.envs, { env, limit: Number.isFinite(limit) ? limit : 50, before, planHash: url.searchParams.get('plan') ?? undefined });
      return send(res, 200, { runs: listed });
    }
    if (parts.length === 3) {
      if (method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'use GET');
      const found = await runs.get(who.tenant, who.envs, check(RunIdSchema, parts[2], 'run id'));
      if (!found) throw new HttpError(404, 'run_not_found', `no run ${parts[2]} in this tenant's history (envs ${who.envs.join(', ')})`);
      return send(res, 200, found);
    }
    if (parts.length !== 4) throw new HttpError(404, 'not_found', 'runs live at /v1/runs/<env>/<id>');
    if (method !== 'PUT') throw new HttpError(405, 'method_not_allowed', 'use PUT');
    const env = inScope(who, check(EnvSchema, parts[2], 'env'));
    const id = check(RunIdSchema, parts[3], 'run id');
    const record = check(RunRecordSchema, await readBody(req, MAX_RUN_BODY_BYTES), 'run');
    const stored = await runs.put(who, env, id, record);
    return send(res, stored.created ? 201 : 200, stored);
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const verdict = checkRequest(req.headers, req.url ?? '/', policy);
    if (!verdict.ok) {
      drain(req);
      return send(res, verdict.status, { error: { code: verdict.code, message: verdict.message } }, { connection: 'close' });
    }
    if (inFlight >= MAX_IN_FLIGHT) {
      drain(req);
      return send(res, 503, { error: { code: 'busy', message: 'the server is at its limit of concurrent requests; retry shortly' } }, { 'retry-after': '1' });
    }
    inFlight++;
    res.once('close', () => inFlight--);
    route(req, res).catch((err: unknown) => {
      drain(req);
      if (err instanceof HttpError) return send(res, err.status, { error: { code: err.code, message: err.message } }, err.headers);
      if (err instanceof AssistantError) {
        opts.log?.(`${req.method} ${req.url}: ${err.code}: ${err.message}`);
        return send(res, 500, { error: { code: err.code, message: err.message } });
      }
      opts.log?.(`${req.method} ${req.url}: internal error: ${(err as Error)?.message ?? String(err)}`);
      return send(res, 500, { error: { code: 'internal', message: 'internal server error' } });
    });
  };

  served = await serve({ host: opts.host, port: opts.port, tls: opts.tls, log: opts.log, handler, limits: { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, maxConnections: 512 } });
  policy.port = served.port;
  return served;
}

/**
 * The admin API on a Unix socket inside the data directory (mode 0700): how `backend keys …`,
 * `backend audit` and `backend rotate-master-key` reach a running PGlite server, which alone may open
 * its data directory. Whoever can open the socket can read the data directory anyway.
 */
export function createAdminServer(store: CredentialStore, log?: (line: string) => void): Server {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://admin');
    const method = req.method ?? 'GET';
    const body = method === 'POST' ? ((await readBody(req)) as Record<string, unknown>) : {};
    if (method !== 'POST') drain(req);
    switch (`${method} ${url.pathname}`) {
      case 'POST /admin/keys': {
        const tenant = check(TenantSchema, body.tenant, 'tenant');
        const envs = check(EnvSchema.array(), body.envs ?? [], 'envs');
        return send(res, 201, await store.createKey(tenant, typeof body.label === 'string' ? body.label.slice(0, 200) : '', envs, 'admin socket'));
      }
      case 'GET /admin/keys':
        return send(res, 200, { keys: await store.listKeys(url.searchParams.get('tenant') ?? undefined) });
      case 'POST /admin/keys/revoke':
        return send(res, 200, await store.revokeKey(String(body.prefix ?? ''), 'admin socket'));
      case 'GET /admin/audit':
        return send(res, 200, {
          entries: await store.audit({ tenant: url.searchParams.get('tenant') ?? undefined, limit: Number(url.searchParams.get('limit') ?? 100) || 100 }),
        });
      case 'POST /admin/rotate-master-key':
        return send(res, 200, await store.rotateMasterKey('admin socket'));
      default:
        throw new HttpError(404, 'not_found', `no admin route ${method} ${url.pathname}`);
    }
  };
  return createHttpServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      drain(req);
      if (err instanceof HttpError) return send(res, err.status, { error: { code: err.code, message: err.message } });
      if (err instanceof AssistantError) return send(res, err.exitCode === 2 ? 400 : 500, { error: { code: err.code, message: err.message, hint: err.hint } });
      log?.(`admin ${req.method} ${req.url}: ${(err as Error)?.message ?? String(err)}`);
      return send(res, 500, { error: { code: 'internal', message: (err as Error)?.message ?? 'internal error' } });
    });
  });
}
