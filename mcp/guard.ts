/**
 * Who may talk to the HTTP server: DNS-rebinding protection (Host and Origin must name the listen
 * address) and, when a token is configured, a bearer check with a constant-time compare.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export interface GuardOptions {
  /** The address the server listens on (after binding, so port 0 is resolved). */
  host: string;
  port: number;
  /** Required `Authorization: Bearer <token>` when set. */
  authToken?: string;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** `host:port` values a legitimate client sends for this listen address. */
export function allowedHosts(host: string, port: number): Set<string> | undefined {
  if (isWildcard(host)) return undefined; // any interface: the bearer token is the protection
  const bracketed = isIP(host) === 6 ? `[${host}]` : host.toLowerCase();
  const names = isLoopback(host) ? [...new Set([...LOOPBACK_NAMES, bracketed])] : [bracketed];
  return new Set(names.map((n) => `${n}:${port}`));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compares digests so that neither the content nor the length of the token leaks through timing. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

export function checkRequest(headers: Record<string, string | string[] | undefined>, opts: GuardOptions): GuardVerdict {
  const allowed = allowedHosts(opts.host, opts.port);
  if (allowed) {
    const host = String(headers.host ?? '').toLowerCase();
    if (!allowed.has(host)) return { ok: false, status: 403, message: `Forbidden: Host header "${host}" does not name this server` };
    const origin = headers.origin;
    if (origin !== undefined) {
      let originHost: string | undefined;
      try {
        const url = new URL(String(origin));
        originHost = /^https?:$/.test(url.protocol) ? `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}` : undefined;
      } catch {
        originHost = undefined;
      }
      if (!originHost || !allowed.has(originHost.toLowerCase())) {
        return { ok: false, status: 403, message: `Forbidden: Origin "${String(origin)}" is not this server` };
      }
    }
  }
  if (opts.authToken) {
    const auth = String(headers.authorization ?? '');
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (!m || !tokenMatches(m[1]!.trim(), opts.authToken)) return { ok: false, status: 401, message: 'Unauthorized: a valid bearer token is required' };
  }
  return { ok: true };
}
