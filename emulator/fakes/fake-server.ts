/**
 * The one HTTP server every integration fake is built on (repohost, errtracker, issuetracker directly;
 * notes, appplatform, edge through json-fake.ts; vps_a, vps_b, cloud_d through fake-api-server.ts): a
 * `node:http` server on 127.0.0.1:0, a credential check, `429 + Retry-After` on demand, a recorded
 * request log, bounded request bodies, and the hostile modes tests attack the HTTP toolkit with. A
 * service supplies only its routes and its wire format (bodies, error shapes, paging); the fakes ship
 * with the product because they back `--sandbox`.
 *
 * Hostile modes: `slow` holds every request unanswered (until the client gives up or the fake
 * closes), `redirect` answers 302 to another origin, `html` answers 200 with a login page (a proxy in
 * the way, terminal escapes included); `huge` (oversized pages), `endless` (a next
 * page forever) and `offorigin` (a next-page link to another origin) are read by each service's
 * routes, since paging is its own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type HostileMode = 'none' | 'slow' | 'redirect' | 'huge' | 'endless' | 'offorigin' | 'html';

export interface FakeRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
  /** The fake's base URL (for Link headers). */
  base: string;
  hostile: HostileMode;
}

export interface FakeResponse {
  status: number;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RecordedFakeRequest {
  method: string;
  path: string;
  /** Whether a credential header came with it (never its value). */
  authorized: boolean;
  body?: string;
}

/** A request as the fake saw it, whole (for the service wrappers that record more than RecordedFakeRequest). */
export interface SeenFakeRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The credential it carried (`spec.credential`), if any. */
  credential: string | undefined;
}

export interface FakeService {
  url: string;
  /** The token the fake accepts. */
  token: string;
  requests(): RecordedFakeRequest[];
  /** Every request whole, in order. */
  seen(): SeenFakeRequest[];
  /** The next `count` requests answer 429 with `Retry-After: retryAfterS`. */
  rateLimitNext(count: number, retryAfterS?: number): void;
  hostile(mode: HostileMode): void;
  close(): Promise<void>;
}

export interface FakeServiceSpec {
  token: string;
  /** The credential the request carries (the token from its header), or undefined. */
  credential?(req: FakeRequest): string | undefined;
  /** Whether the request is let in; by default, when its credential is `token` (or `anonymous` allows it). */
  authorized?(req: FakeRequest): boolean;
  /** The service's own 401 answer (its error body). */
  unauthorized(req: FakeRequest): FakeResponse;
  /** The service's 429 answer (its error body); the fake adds Retry-After. */
  rateLimited(req: FakeRequest): FakeResponse;
  /** Requests that need no token (public repositories). */
  anonymous?(req: FakeRequest): boolean;
  route(req: FakeRequest): FakeResponse;
  /** Whether a pending 429 is answered before the credential is checked (default) or only to requests let in. */
  rateLimit?: 'before-auth' | 'after-auth';
  /** How `slow` holds a request: with nothing sent (default), or with headers and one byte sent first. */
  slow?: 'silent' | 'trickle';
  /** Most bytes of a request body read (default 1 MiB): a hostile client cannot fill the fake's memory either. */
  maxBody?: number;
}

export async function startFakeService(spec: FakeServiceSpec): Promise<FakeService> {
  const log: SeenFakeRequest[] = [];
  let limited = 0;
  let retryAfter = 1;
  let mode: HostileMode = 'none';
  const sockets = new Set<Socket>();
  let base = '';
  const maxBody = spec.maxBody ?? 1024 * 1024;
  const authorized =
    spec.authorized ??
    ((fr: FakeRequest) => {
      const credential = spec.credential?.(fr);
      return credential === spec.token || (credential === undefined && spec.anonymous?.(fr) === true);
    });

  const send = (res: ServerResponse, out: FakeResponse) => {
    const text = out.body === undefined ? '' : typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
    res.writeHead(out.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...(out.headers ?? {}) });
    res.end(text);
  };
  const limit = (res: ServerResponse, fr: FakeRequest) => {
    limited--;
    const out = spec.rateLimited(fr);
    send(res, { ...out, headers: { ...(out.headers ?? {}), 'retry-after': String(retryAfter) } });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', base);
      const fr: FakeRequest = { method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), base, hostile: mode };
      log.push({ method: fr.method, path: fr.path, headers: fr.headers, body: fr.body, credential: spec.credential?.(fr) });
      if (mode === 'slow') {
        // Held open: only the client's deadline (or close) ends it.
        if (spec.slow === 'trickle') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(' ');
        }
        return;
      }
      if (mode === 'redirect') return send(res, { status: 302, headers: { location: 'http://127.0.0.2:9/elsewhere' } });
      if (mode === 'html') return send(res, { status: 200, body: '<html><title>\u001b[31mSign in\u001b[0m</title></html>', headers: { 'content-type': 'text/html' } });
      const limitFirst = spec.rateLimit !== 'after-auth';
      if (limitFirst && limited > 0) return limit(res, fr);
      if (!authorized(fr)) return send(res, spec.unauthorized(fr));
      if (limited > 0) return limit(res, fr);
      try {
        send(res, spec.route(fr));
      } catch (err) {
        send(res, { status: 500, body: { message: (err as Error).message } });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    token: spec.token,
    requests: () => log.map((r) => ({ method: r.method, path: r.path, authorized: r.credential !== undefined, body: r.body || undefined })),
    seen: () => [...log],
    rateLimitNext(count, retryAfterS = 1) {
      limited = count;
      retryAfter = retryAfterS;
    },
    hostile(m) {
      mode = m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `page` and `per_page` of a request, bounded like the real services (1…100). */
export function pageParams(url: URL, defaultPerPage = 30): { page: number; perPage: number } {
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page')) || defaultPerPage));
  return { page, perPage };
}

/** The request's URL with one query parameter changed (next-page links). */
export function withParam(base: string, url: URL, name: string, value: string): string {
  const next = new URL(`${url.pathname}${url.search}`, base);
  next.searchParams.set(name, value);
  return next.toString();
}
