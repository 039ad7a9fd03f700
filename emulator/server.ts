/**
 * The server. Request pipeline for /v1: record → fault (before) → bearer auth → rate limit →
 * body parse → lazy lifecycle/billing → route handler → fault (after) → reply → persist.
 * /__emulator/* is the unauthenticated, never rate-limited control surface (emulator/control.ts).
 *
 * The pipeline (`handle`) takes a plain request and answers a plain reply; it is reached over HTTP
 * (`listen`), or in process through `fetch` with no socket and no HTTP stack at all: the sandbox's way,
 * which is why node:http is imported only by `listen`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { raceSignal } from '../engine/core/deadline.js';
import { readRequestBody } from '../engine/core/request-body.js';
import type { FetchLike } from '../engine/core/provider.js';
import { accessTokenValid, bearer } from './auth.js';
import type { CapacitySetting } from './capacity.js';
import { handleControl } from './control.js';
import { FaultList, faultReply } from './faults.js';
import { seedState } from './fixtures.js';
import { ApiError, badRequest, errorReply, fromError, notFound, replyWire, sendReply, unauthorized, type Reply } from './http.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { Router, normalizePath, type Ctx } from './router.js';
import { ROUTES } from './routes/index.js';
import { Store } from './state.js';
import type { EmulatorStats, FaultSpec, RecordedRequest, ResolvedOptions } from './types.js';

const MAX_BODY = 10 * 1024 * 1024;
const TOKEN_PATH = '/v1/oauth2/token';

/** One request as the pipeline sees it, however it arrived. */
interface PlainRequest {
  method: string;
  /** Path and query, e.g. `/v1/instances?status=running`. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class EmulatorServer {
  readonly store: Store;
  readonly faults = new FaultList();
  private readonly limiter: SlidingWindowLimiter | undefined;
  private readonly router = new Router(ROUTES);
  private records: RecordedRequest[] = [];
  private byRoute: Record<string, number> = {};
  private status429 = 0;
  private server: Server | undefined;
  url = '';
  port = 0;

  constructor(readonly opts: ResolvedOptions) {
    this.store = new Store(opts, seedState);
    this.limiter = opts.rateLimit ? new SlidingWindowLimiter(opts.rateLimit) : undefined;
  }

  async listen(): Promise<void> {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      this.onRequest(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) sendReply(res, errorReply(500, 'server_error', 'Internal server error'));
        process.emitWarning(`gpucloud emulator: ${(err as Error)?.stack ?? String(err)}`);
      });
    });
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    this.port = addr.port;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.url = `http://${host}:${addr.port}`;
  }

  /** Without `listen`: answers through `fetch` only, at this made-up origin. */
  inProcess(): void {
    // Loopback (a credential may go there in clear: secret-origins.ts), on the discard port: were a
    // request ever sent by socket instead of through `fetch` below, it would not leave this machine.
    this.url = 'http://127.0.0.1:9';
    this.port = 0;
  }

  /**
   * `fetch` for a client in this process: the same pipeline as over HTTP, with no socket. A request the
   * pipeline answers by dropping the connection fails as a reset connection would.
   */
  readonly fetch: FetchLike = async (url, init) => {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.headers)) headers[k.toLowerCase()] = v;
    // A pending promise does not keep a process alive; the request in progress must (faults sleep unref'd).
    const alive = setInterval(() => undefined, 1 << 30);
    try {
      const handled = this.handle({ method: init.method, url: u.pathname + u.search, headers, body: init.body ?? '' });
      const reply = await (init.signal ? raceAbort(handled, init.signal) : handled);
      if (reply === 'reset') throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      const wire = replyWire(reply);
      return {
        status: reply.status,
        headers: { forEach: (fn: (value: string, key: string) => void) => Object.entries(wire.headers).forEach(([k, v]) => fn(v, k.toLowerCase())) },
        text: async () => wire.body,
      };
    } finally {
      clearInterval(alive);
    }
  };

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // A read changes nothing that the next start would not compute again (lifecycles and billing are
    // computed from time): the state file is written only when something happened.
    if (this.store.dirty) this.store.save();
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  // ------------------------------------------------------------ controls

  addFault(f: FaultSpec): void {
    this.faults.add(f);
  }

  requests(): RecordedRequest[] {
    return this.records.map((r) => ({ ...r }));
  }

  stats(): EmulatorStats {
    return {
      requests: this.records.length,
      tokenRequests: this.records.filter((r) => r.path === TOKEN_PATH).length,
      status429: this.status429,
      byRoute: { ...this.byRoute },
    };
  }

  setCapacity(setting: CapacitySetting): void {
    this.store.capacity.set(setting);
  }

  setBalance(amount: number): void {
    this.store.advance(this.opts.clock());
    this.store.data.balance = amount;
    this.store.save();
  }

  reset(): void {
    this.store.reseed();
    this.faults.clear();
    this.limiter?.reset();
    this.records = [];
    this.byRoute = {};
    this.status429 = 0;
  }

  /** Every route template, for tests. */
  routes(): string[] {
    return this.router.paths();
  }

  // ------------------------------------------------------------ pipeline

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw: string;
    try {
      raw = (await readRequestBody(req, MAX_BODY)).toString('utf8');
    } catch {
      sendReply(res, errorReply(413, 'invalid_request', 'Request body too large'));
      return;
    }
    const reply = await this.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: raw });
    if (res.destroyed) return;
    if (reply === 'reset') {
      req.socket.destroy();
      return;
    }
    sendReply(res, reply);
  }

  /** The whole pipeline for one request: the reply, or 'reset' for a dropped connection. */
  private async handle(req: PlainRequest): Promise<Reply | 'reset'> {
    const method = req.method.toUpperCase();
    const url = new URL(req.url, 'http://emulator.local');
    const path = normalizePath(url.pathname);
    const raw = req.body;

    if (path === '/__emulator' || path.startsWith('/__emulator/')) return handleControl(this, method, path, raw);
    if (path !== '/v1' && !path.startsWith('/v1/')) return errorReply(404, 'not_found', `Cannot ${method} ${path}`);

    const rec: RecordedRequest = { method, path, query: url.search.replace(/^\?/, ''), status: 0, at: Date.now() };
    if (raw !== '') rec.body = path === TOKEN_PATH ? redactTokenBody(raw, contentType(req)) : raw;
    this.records.push(rec);
    const match = this.router.match(method, path);
    const routeKey = `${method} ${match ? match.route.path : '(unmatched)'}`;
    this.byRoute[routeKey] = (this.byRoute[routeKey] ?? 0) + 1;

    const fault = this.faults.take(method, path);
    // With afterHandler the delay comes after the real handler: the change is made, its answer is late.
    if (fault?.delayMs && !fault.afterHandler) await sleep(fault.delayMs);
    if (fault?.until) await fault.until.catch(() => undefined);
    if (fault && !fault.afterHandler) {
      const fr = faultReply(fault);
      if (fr !== undefined) return this.finish(rec, fr);
    }

    const reply = await this.dispatch(req, method, path, url.searchParams, raw, match);
    if (fault?.afterHandler) {
      if (fault.delayMs) await sleep(fault.delayMs);
      return this.finish(rec, faultReply(fault) ?? reply);
    }
    return this.finish(rec, reply);
  }

  private finish(rec: RecordedRequest, reply: Reply | 'reset'): Reply | 'reset' {
    rec.status = reply === 'reset' ? 0 : reply.status;
    if (reply !== 'reset' && reply.status === 429) this.status429++;
    return reply;
  }

  private async dispatch(
    req: PlainRequest,
    method: string,
    path: string,
    query: URLSearchParams,
    raw: string,
    match: ReturnType<Router['match']>,
  ): Promise<Reply> {
    const now = this.opts.clock();
    let handlerRan = false;
    try {
      if (!match || match.route.auth !== false) {
        const token = bearer(req.headers.authorization);
        if (!token || !accessTokenValid(this.store, token, now)) throw unauthorized();
        if (this.limiter) {
          const lim = this.limiter.check(method, path, now);
          if (!lim.ok) throw new ApiError(429, 'rate_limit_exceeded', lim.message, { 'Retry-After': String(lim.retryAfterSec) });
        }
      }
      if (!match) throw notFound(`Cannot ${method} ${path}`);
      const body = parseBody(raw, contentType(req));
      this.store.advance(now);
      const ctx: Ctx = { method, path, query, params: match.params, body, headers: req.headers, now, store: this.store, opts: this.opts };
      handlerRan = true;
      return await match.route.handler(ctx);
    } catch (err) {
      if (err instanceof ApiError) return fromError(err);
      process.emitWarning(`gpucloud emulator: ${method} ${path}: ${(err as Error)?.stack ?? String(err)}`);
      return errorReply(500, 'server_error', 'Internal server error');
    } finally {
      if (handlerRan && method !== 'GET') this.store.save();
    }
  }
}

function contentType(req: Pick<PlainRequest, 'headers'>): string {
  return String(req.headers['content-type'] ?? '').toLowerCase();
}

function parseBody(raw: string, type: string): unknown {
  if (raw.trim() === '') return undefined;
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest('Malformed JSON in request body');
  }
}

/** Token request bodies are recorded without the client secret or refresh token. */
function redactTokenBody(raw: string, type: string): string {
  const SECRET_FIELDS = ['client_secret', 'refresh_token'];
  if (type.includes('application/x-www-form-urlencoded')) {
    const p = new URLSearchParams(raw);
    for (const f of SECRET_FIELDS) if (p.has(f)) p.set(f, '[REDACTED]');
    return p.toString();
  }
  try {
    const obj = JSON.parse(raw) as Record<string, unknown>;
    if (typeof obj === 'object' && obj !== null) {
      for (const f of SECRET_FIELDS) if (f in obj) obj[f] = '[REDACTED]';
      return JSON.stringify(obj);
    }
  } catch {
    /* fall through */
  }
  return '[unparsable body]';
}

// Unref'd: an injected delay (tests use minutes, to mean "never answers") must not keep a closed
// emulator's process alive.
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Rejects as Node's fetch does when the caller gives up (the handler itself runs on). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceSignal(p, signal, () => new DOMException('This operation was aborted', 'AbortError'));
}
