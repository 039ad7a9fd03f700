/**
 * What the integration fakes (vps_a, vps_b, cloud_d) share: a node:http server on 127.0.0.1:0 with a
 * token check, a request log, rate-limit answers on demand (429 + Retry-After) and hostile modes for
 * tests (huge pages, an endless next link, a slow answer that never finishes). Each fake supplies only
 * its routes and its wire format.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface HostileModes {
  /** Every list page carries this many extra bytes of records (a page too big to keep in memory). */
  hugePageBytes?: number;
  /** Every list page says there is another one. */
  endlessNext?: boolean;
  /** Answers start and never finish (headers sent, the body trickles), until the client gives up. */
  slow?: boolean;
}

export interface FakeControls {
  /** The next `count` requests answer 429 with `Retry-After: retryAfterS`. */
  rateLimit(count: number, retryAfterS?: number): void;
  hostile(modes: HostileModes): void;
  requests(): FakeRequest[];
}

export interface FakeHandle extends FakeControls {
  url: string;
  close(): Promise<void>;
}

export interface FakeState {
  hostile: HostileModes;
  origin: string;
}

export type FakeRoute = (req: FakeRequest, state: FakeState) => { status: number; body: unknown; headers?: Record<string, string> };

export async function startFakeServer(opts: {
  /** Whether the request carries valid credentials; a false answer gets `unauthorized(req)`. */
  authorized(req: FakeRequest): boolean;
  unauthorized(req: FakeRequest): { status: number; body: unknown };
  rateLimited(req: FakeRequest): { status: number; body: unknown };
  route: FakeRoute;
}): Promise<FakeHandle> {
  const log: FakeRequest[] = [];
  let limited = 0;
  let retryAfter = 1;
  const state: FakeState = { hostile: {}, origin: '' };
  const open = new Set<ServerResponse>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      const fr: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      log.push(fr);
      if (state.hostile.slow) {
        // Headers and a first byte, then nothing: only the client's deadline ends this.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(' ');
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      if (!opts.authorized(fr)) {
        const u = opts.unauthorized(fr);
        return send(res, u.status, u.body);
      }
      if (limited > 0) {
        limited--;
        const r = opts.rateLimited(fr);
        return send(res, r.status, r.body, { 'retry-after': String(retryAfter) });
      }
      const out = opts.route(fr, state);
      send(res, out.status, out.body, out.headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.origin = `http://127.0.0.1:${port}`;
  return {
    url: state.origin,
    rateLimit(count, retryAfterS = 1) {
      limited = count;
      retryAfter = retryAfterS;
    },
    hostile(modes) {
      state.hostile = { ...modes };
    },
    requests: () => [...log],
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Filler records for a huge page: about `bytes` of JSON, in `count`-byte-ish records. */
export function filler<T>(bytes: number, make: (i: number, pad: string) => T): T[] {
  const pad = 'x'.repeat(1000);
  return Array.from({ length: Math.ceil(bytes / 1100) }, (_, i) => make(i, pad));
}

/** The bearer token of a request, if any. */
export function bearer(req: FakeRequest): string | undefined {
  const h = req.headers.authorization;
  const v = Array.isArray(h) ? h[0] : h;
  return v?.startsWith('Bearer ') ? v.slice(7) : undefined;
}
