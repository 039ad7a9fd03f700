/**
 * Who may talk to a box. A box has one token, given either as itself (ASSISTANT_BOX_TOKEN) or as its
 * SHA-256 (ASSISTANT_BOX_TOKEN_SHA256, what a deployed box gets from its gpucloud secret). Either way
 * the box keeps only the digest and compares the digest of the presented token with it in constant
 * time, so neither the token's content nor its length leaks through timing.
 *
 * Tokens travel only in `Authorization: Bearer`: a request with a token-like query parameter is refused
 * whatever it carries (a token in a URL ends up in logs and browser history). Browsers are kept out
 * unless their page's origin is allowed (`--allow-origin`): a cross-site WebSocket or fetch to a box
 * on loopback is refused, and on loopback the Host header must name the box (DNS rebinding).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidInputError } from '../engine/core/errors.js';
import { registerSecret } from '../engine/core/redact.js';
import { allowedHosts, isLoopback } from '../mcp/guard.js';
import { TOKEN_ENV, TOKEN_SHA256_ENV } from '../engine/producers/box/manifest.js';

/** Off loopback a plain token must be at least this long (128 bits as hex), as for `assistant mcp`. */
export const MIN_TOKEN_LENGTH = 32;

export interface BoxToken {
  /** SHA-256 of the token. */
  digest: Buffer;
  source: typeof TOKEN_ENV | typeof TOKEN_SHA256_ENV;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The token a box is started with, from its environment; undefined when none is set. */
export function tokenFromEnv(env: Record<string, string | undefined>): BoxToken | undefined {
  const plain = env[TOKEN_ENV]?.trim();
  const hashed = env[TOKEN_SHA256_ENV]?.trim();
  if (plain && hashed) throw new InvalidInputError('two_tokens', `${TOKEN_ENV} and ${TOKEN_SHA256_ENV} are both set`, { hint: 'set one of them' });
  if (plain) {
    registerSecret(plain);
    if (plain.length < MIN_TOKEN_LENGTH) {
      throw new InvalidInputError('token_too_short', `${TOKEN_ENV} is shorter than ${MIN_TOKEN_LENGTH} characters`, { hint: "generate one with 'openssl rand -hex 32'" });
    }
    return { digest: sha256(plain), source: TOKEN_ENV };
  }
  if (hashed) {
    if (!/^[0-9a-f]{64}$/i.test(hashed)) throw new InvalidInputError('bad_token_digest', `${TOKEN_SHA256_ENV} is not a hex SHA-256 (64 hex digits)`, { hint: 'set it to the output of: printf %s "$TOKEN" | sha256sum' });
    return { digest: Buffer.from(hashed, 'hex'), source: TOKEN_SHA256_ENV };
  }
  return undefined;
}

/** Whether `Authorization: Bearer <token>` carries the box's token. */
export function bearerMatches(authorization: string | undefined, token: BoxToken): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  // Compare digests even when the header is malformed, so a refusal takes the same time either way.
  const presented = sha256(m ? m[1]! : '');
  return timingSafeEqual(presented, token.digest) && Boolean(m);
}

/** Query parameters that carry credentials in other servers' APIs; a box refuses any request with one. */
const TOKEN_PARAMS = /^(token|access_token|auth|auth_token|authorization|api_key|apikey|key|bearer|jwt|session_token)$/i;

export function queryHasToken(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  for (const key of new URLSearchParams(url.slice(q + 1)).keys()) if (TOKEN_PARAMS.test(key)) return true;
  return false;
}

export interface OriginPolicy {
  host: string;
  port: number;
  /** `--allow-origin` values (`https://app.example.com`), normalised. */
  allowed: Set<string>;
}

/** `scheme://host[:port]` as the browser sends it (default ports dropped), or undefined when it is not an http(s) origin. */
export function normaliseOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return /^https?:$/.test(url.protocol) ? url.origin.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The box's own origins (pages it serves could come from there); none on a wildcard listen. */
function ownOrigins(host: string, port: number): string[] {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return [];
  const names = isLoopback(host) ? ['localhost', '127.0.0.1', '[::1]'] : [host.includes(':') && !host.startsWith('[') ? `[${host}]` : host];
  return names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]).map((o) => o.toLowerCase());
}

export type Verdict = { ok: true } | { ok: false; status: 400 | 401 | 403; code: string; message: string };

/**
 * Every check of a request before its route runs: token in the query, Host (loopback), Origin, bearer.
 * `/healthz` skips only the bearer check (a platform's health probe has no token).
 */
export function checkRequest(headers: IncomingHttpHeaders, url: string, policy: OriginPolicy, token: BoxToken | undefined, opts: { needsToken: boolean }): Verdict {
  if (queryHasToken(url)) {
    return { ok: false, status: 400, code: 'token_in_query', message: 'tokens are accepted only in the Authorization header (Bearer), never in the URL' };
  }
  const hosts = allowedHosts(policy.host, policy.port);
  if (hosts && isLoopback(policy.host)) {
    const host = String(headers.host ?? '').toLowerCase();
    if (!hosts.has(host)) return { ok: false, status: 403, code: 'bad_host', message: `Host "${host}" does not name this box` };
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const o = normaliseOrigin(String(origin));
    if (!o || !(policy.allowed.has(o) || ownOrigins(policy.host, policy.port).includes(o))) {
      return { ok: false, status: 403, code: 'origin_refused', message: `Origin "${String(origin)}" is not allowed to use this box` };
    }
  }
  if (opts.needsToken && token && !bearerMatches(headers.authorization, token)) {
    return { ok: false, status: 401, code: 'unauthorized', message: 'a valid bearer token is required (Authorization: Bearer <token>)' };
  }
  return { ok: true };
}
