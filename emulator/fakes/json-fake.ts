/**
 * The shape notes, appplatform and edge fakes are written in, on the one fake server
 * (fake-server.ts): a handler that gets the request's JSON body already parsed and its query apart,
 * a random token unless one is given, request bodies bounded at 64 KiB, and 429s only for requests
 * that carry the right token. Hostile modes: `slow` (held until the client gives up), or a
 * service-specific `huge` page or `endless` next link (the handler reads `mode`).
 */
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { startFakeService } from './fake-server.js';

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
  tokenOf(req: { headers: IncomingMessage['headers'] }): string | undefined;
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

/** A request body as the handler gets it: parsed JSON, the text when it is not JSON, undefined when empty. */
function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

export async function startJsonFake(spec: FakeServiceSpec, opts: { token?: string } = {}): Promise<JsonFake> {
  let mode: HostileMode | undefined;
  const service = await startFakeService({
    token: opts.token ?? `fake-${randomBytes(12).toString('hex')}`,
    credential: (req) => spec.tokenOf(req),
    unauthorized: () => ({ status: 401, body: spec.unauthorized() }),
    rateLimited: () => ({ status: 429, body: spec.rateLimited() }),
    rateLimit: 'after-auth',
    maxBody: 64 * 1024,
    route(req) {
      try {
        const reply = spec.handle({ method: req.method, path: req.url.pathname, query: req.url.searchParams, headers: req.headers, body: parsed(req.body) }, mode);
        return { status: reply.status ?? 200, body: JSON.stringify(reply.body), headers: reply.headers };
      } catch (err) {
        return { status: 500, body: { error: String((err as Error).message) } };
      }
    },
  });
  return {
    url: service.url,
    token: service.token,
    requests: () => service.seen().map((r) => ({ method: r.method, path: r.path, authorized: r.credential === service.token, body: parsed(r.body) })),
    rateLimit: (count, retryAfterS) => service.rateLimitNext(count, retryAfterS),
    hostile(m) {
      mode = m;
      service.hostile(m === 'slow' ? 'slow' : 'none');
    },
    close: () => service.close(),
  };
}

/** `Authorization: Bearer <token>`. */
export function bearerToken(req: { headers: IncomingMessage['headers'] }): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}
