/**
 * The HTTP server. Request pipeline for /v1: record → fault (before) → bearer auth → rate limit →
 * body parse → lazy lifecycle/billing → route handler → fault (after) → reply → persist.
 * /__emulator/* is the unauthenticated, never rate-limited control surface (emulator/control.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessTokenValid, bearer } from './auth.js';
import type { CapacitySetting } from './capacity.js';
import { handleControl } from './control.js';
import { FaultList, faultReply } from './faults.js';
import { seedState } from './fixtures.js';
import { ApiError, badRequest, errorReply, fromError, notFound, sendReply, unauthorized, type Reply } from './http.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { Router, normalizePath, type Ctx } from './router.js';
import { ROUTES } from './routes/index.js';
import { Store } from './state.js';
import type { EmulatorStats, FaultSpec, RecordedRequest, ResolvedOptions } from './types.js';

const MAX_BODY = 10 * 1024 * 1024;
const TOKEN_PATH = '/v1/oauth2/token';

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

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.store.save();
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
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://emulator.local');
    const path = normalizePath(url.pathname);
    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      sendReply(res, errorReply(413, 'invalid_request', 'Request body too large'));
      return;
    }

    if (path === '/__emulator' || path.startsWith('/__emulator/')) {
      sendReply(res, await handleControl(this, method, path, raw));
      return;
    }
    if (path !== '/v1' && !path.startsWith('/v1/')) {
      sendReply(res, errorReply(404, 'not_found', `Cannot ${method} ${path}`));
      return;
    }

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
      if (fr !== undefined) {
        this.finish(req, res, rec, fr);
        return;
      }
    }

    const reply = await this.dispatch(req, method, path, url.searchParams, raw, match);
    if (fault?.afterHandler) {
      if (fault.delayMs) await sleep(fault.delayMs);
      this.finish(req, res, rec, faultReply(fault) ?? reply);
      return;
    }
    this.finish(req, res, rec, reply);
  }

  private finish(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, reply: Reply | 'reset'): void {
    if (res.destroyed) return;
    if (reply === 'reset') {
      rec.status = 0;
      req.socket.destroy();
      return;
    }
    rec.status = reply.status;
    if (reply.status === 429) this.status429++;
    sendReply(res, reply);
  }

  private async dispatch(
    req: IncomingMessage,
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

function contentType(req: IncomingMessage): string {
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Unref'd: an injected delay (tests use minutes, to mean "never answers") must not keep a closed
// emulator's process alive.
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
