/**
 * What every integration fake shares (emulator/fakes/notes.ts, appplatform.ts, edge.ts): a small
 * node:http server on 127.0.0.1:0 that checks the bearer token, answers 429 + Retry-After on demand,
 * records each request, bounds request bodies, and can turn hostile for tests — `slow` (never answers
 * until the client gives up), or a service-specific `huge` page or `endless` next link (the service's
 * own handler reads `mode`). The wire format of each service lives in its own file.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

export type HostileMode = 'huge' | 'endless' | 'slow';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeServiceSpec {
  /** The body of a 401 in the service's own error shape. */
  unauthorized(): unknown;
  /** The body of a 429 in the service's own error shape. */
  rateLimited(): unknown;
  /** The token a request carries (from its headers), or undefined. */
  tokenOf(req: IncomingMessage): string | undefined;
  /** Answers one authenticated request; `mode` is the hostile mode set by the test, if any. */
  handle(req: FakeRequest, mode: HostileMode | undefined): FakeReply;
}

export interface JsonFake {
  url: string;
  token: string;
  /** Every request seen (method, path with query, whether it carried the right token). */
  requests(): { method: string; path: string; authorized: boolean; body?: unknown }[];
  /** The next `count` authenticated requests answer 429 with `Retry-After: retryAfterS`. */
  rateLimit(count: number, retryAfterS?: number): void;
  hostile(mode: HostileMode | undefined): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

export async function startJsonFake(spec: FakeServiceSpec, opts: { token?: string } = {}): Promise<JsonFake> {
  const token = opts.token ?? `fake-${randomBytes(12).toString('hex')}`;
  const log: { method: string; path: string; authorized: boolean; body?: unknown }[] = [];
  let limited = 0;
  let retryAfter = 1;
  let mode: HostileMode | undefined;
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const authorized = spec.tokenOf(req) === token;
      let body: unknown;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      log.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorized, body });
      if (!authorized) return send(res, 401, spec.unauthorized());
      if (limited > 0) {
        limited--;
        return send(res, 429, spec.rateLimited(), { 'retry-after': String(retryAfter) });
      }
      if (mode === 'slow') {
        // Hold the request: the client's deadline must end it, not this server.
        return;
      }
      try {
        const reply = spec.handle({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body }, mode);
        send(res, reply.status ?? 200, reply.body, reply.headers);
      } catch (err) {
        send(res, 500, { error: String((err as Error).message) });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests: () => log.map((r) => ({ ...r })),
    rateLimit(count, retryAfterS = 1) {
      limited = count;
      retryAfter = retryAfterS;
    },
    hostile(m) {
      mode = m;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `Authorization: Bearer <token>`. */
export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}
