/**
 * The shape the vps_a, vps_b and cloud_d fakes are written in, on the one fake server
 * (fake-server.ts): a route that gets the request whole (headers, raw body) and the hostile modes as
 * switches — huge pages, an endless next link, and a slow answer that sends its headers and then
 * never finishes; 429s only for requests let in.
 */
import { startFakeService } from './fake-server.js';

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
  const state: FakeState = { hostile: {}, origin: '' };
  const whole = (req: { method: string; path: string; headers: FakeRequest['headers']; body: string }): FakeRequest => ({ method: req.method, path: req.path, headers: req.headers, body: req.body });
  const service = await startFakeService({
    token: '',
    authorized: (req) => opts.authorized(whole(req)),
    unauthorized: (req) => opts.unauthorized(whole(req)),
    rateLimited: (req) => opts.rateLimited(whole(req)),
    rateLimit: 'after-auth',
    slow: 'trickle',
    route: (req) => {
      const out = opts.route(whole(req), state);
      // Bodies are JSON always (a string body too), as the services send them.
      return { ...out, body: JSON.stringify(out.body) };
    },
  });
  state.origin = service.url;
  return {
    url: service.url,
    rateLimit: (count, retryAfterS) => service.rateLimitNext(count, retryAfterS),
    hostile(modes) {
      state.hostile = { ...modes };
      service.hostile(modes.slow ? 'slow' : 'none');
    },
    requests: () => service.seen().map(whole),
    close: () => service.close(),
  };
}

/** Filler records for a huge page: about `bytes` of JSON, in `count`-byte-ish records. */
export function filler<T>(bytes: number, make: (i: number, pad: string) => T): T[] {
  const pad = 'x'.repeat(1000);
  return Array.from({ length: Math.ceil(bytes / 1100) }, (_, i) => make(i, pad));
}

/**
 * One page of `all` as `page` and `per_page` ask (per_page at most `maxPerPage`), with the huge-page
 * filler added when that hostile mode is on; `last` is the number of the last page.
 */
export function pageOf(all: readonly unknown[], url: URL, state: FakeState, o: { defaultPerPage: number; maxPerPage: number; filler: (i: number, pad: string, page: number) => unknown }): { items: unknown[]; page: number; perPage: number; last: number } {
  const perPage = Math.max(1, Math.min(Number(url.searchParams.get('per_page')) || o.defaultPerPage, o.maxPerPage));
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
  let items = all.slice((page - 1) * perPage, page * perPage);
  if (state.hostile.hugePageBytes) items = [...items, ...filler(state.hostile.hugePageBytes, (i, pad) => o.filler(i, pad, page))];
  return { items, page, perPage, last: Math.max(1, Math.ceil(all.length / perPage)) };
}

/** The bearer token of a request, if any. */
export function bearer(req: FakeRequest): string | undefined {
  const h = req.headers.authorization;
  const v = Array.isArray(h) ? h[0] : h;
  return v?.startsWith('Bearer ') ? v.slice(7) : undefined;
}
