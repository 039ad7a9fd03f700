/**
 * Who may talk to a server we ship (mcp, box, backend), checked on every request and WebSocket
 * upgrade before any route runs, in this order:
 *
 * 1. no token in the query string (400 `token_in_query`), whatever it carries;
 * 2. DNS rebinding: on a listen address that is not every interface, `Host` must name it (`localhost`,
 *    `127.0.0.1` or `[::1]` with the port, for loopback) (403 `bad_host`); servers that are reached by
 *    a DNS name on a specific address (the backend, a box behind a proxy) check it on loopback only;
 * 3. browsers: an `Origin`, when sent, must be the server's own or one allowed by the operator
 *    (403 `origin_refused`), so a web page cannot use a server on this machine;
 * 4. the bearer token, when the server has one and the route needs it (401 `unauthorized`).
 *
 * The verdict says which; each server words its error body its own way.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost, isWildcardHost } from '../../loopback.js';
import { bearerMatches, queryHasToken, type ServerToken } from './token.js';

export interface GuardPolicy {
  /** The listen address (after binding, so port 0 is resolved). */
  host: string;
  port: number;
  /** Browser origins allowed besides the server's own (`https://app.example.com`), normalised. */
  allowedOrigins?: ReadonlySet<string>;
  /** The bearer token; without one, only the other checks run. */
  token?: ServerToken;
  /** Where Host must name the listen address: on any specific address (default), or on loopback only. */
  hostCheck?: 'always' | 'loopback';
}

export type Verdict = { ok: true } | { ok: false; status: 400 | 401 | 403; code: 'token_in_query' | 'bad_host' | 'origin_refused' | 'unauthorized'; message: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The names a client may put in Host for this listen address; undefined on every interface. */
function hostNames(host: string): string[] | undefined {
  if (isWildcardHost(host)) return undefined;
  const own = isIP(host.replace(/^\[|\]$/g, '')) === 6 ? `[${host.replace(/^\[|\]$/g, '')}]` : host.toLowerCase();
  return isLoopbackHost(host) ? [...new Set([...LOOPBACK_NAMES, own])] : [own];
}

/** `host:port` values a legitimate client sends for this listen address; undefined on every interface. */
export function allowedHosts(host: string, port: number): Set<string> | undefined {
  const names = hostNames(host);
  return names && new Set(names.map((n) => `${n}:${port}`));
}

/**
 * allowedHosts of the listen addresses seen, made once each: a server checks every request against the
 * same one (the set was ~1% of an MCP list call's server CPU, made again per request; issue 40 item 3).
 * A process listens on a handful of addresses (a test process on many ports: it starts over at 64).
 */
const hostsByAddress = new Map<string, Set<string> | undefined>();
function hostsFor(host: string, port: number): Set<string> | undefined {
  const key = `${host} ${port}`;
  if (!hostsByAddress.has(key)) {
    if (hostsByAddress.size >= 64) hostsByAddress.clear();
    hostsByAddress.set(key, allowedHosts(host, port));
  }
  return hostsByAddress.get(key);
}

/** `scheme://host[:port]` as a browser sends it (default ports dropped), or undefined when it is not an http(s) origin. */
export function normaliseOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return /^https?:$/.test(url.protocol) ? url.origin.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The server's own origins (pages it serves could come from there); none on every interface. */
function ownOrigins(host: string, port: number): Set<string> {
  const names = hostNames(host) ?? [];
  return new Set(names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]).map((o) => normaliseOrigin(o) ?? o));
}

export function checkRequest(headers: IncomingHttpHeaders, url: string, policy: GuardPolicy, opts: { needsToken?: boolean } = {}): Verdict {
  if (queryHasToken(url)) {
    return { ok: false, status: 400, code: 'token_in_query', message: 'tokens are accepted only in the Authorization header (Bearer), never in the URL' };
  }
  const hosts = policy.hostCheck === 'loopback' && !isLoopbackHost(policy.host) ? undefined : hostsFor(policy.host, policy.port);
  if (hosts) {
    const host = String(headers.host ?? '').toLowerCase();
    if (!hosts.has(host)) return { ok: false, status: 403, code: 'bad_host', message: `Host "${host}" does not name this server` };
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const o = normaliseOrigin(String(origin));
    if (!o || !(policy.allowedOrigins?.has(o) || ownOrigins(policy.host, policy.port).has(o))) {
      return { ok: false, status: 403, code: 'origin_refused', message: `Origin "${String(origin)}" is not allowed to use this server` };
    }
  }
  if (policy.token && opts.needsToken !== false && !bearerMatches(headers.authorization, policy.token)) {
    return { ok: false, status: 401, code: 'unauthorized', message: 'a valid bearer token is required (Authorization: Bearer <token>)' };
  }
  return { ok: true };
}
