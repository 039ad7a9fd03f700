/**
 * A server's bearer token (mcp, box; the backend's API keys are looked up per key but parsed here
 * too). The server keeps only the token's SHA-256 and compares the digest of what a client presents
 * with it in constant time, so neither the token's content nor its length leaks through timing; a
 * malformed header is hashed and compared the same way, so a refusal takes the same time either way.
 *
 * Tokens travel only in `Authorization: Bearer`: a request with a token-like query parameter is
 * refused whatever it carries (a token in a URL ends up in logs, proxies and browser history).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { registerSecret } from '../../redact.js';
import { tokenProblem } from './strength.js';

export interface ServerToken {
  /** SHA-256 of the token. */
  digest: Buffer;
  /** Where it came from (`ASSISTANT_MCP_AUTH_TOKEN`, a file path), never the value. */
  source: string;
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The token inside `Authorization: Bearer <token>` (exactly one, no other scheme), or undefined. */
export function bearerOf(authorization: string | string[] | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1];
}

/** Whether the header carries the server's token; constant time in the presented value. */
export function bearerMatches(authorization: string | string[] | undefined, token: ServerToken): boolean {
  const presented = bearerOf(authorization);
  return digestsMatch(sha256(presented ?? ''), token.digest) && presented !== undefined;
}

/** Two digests equal, in constant time (different lengths are simply unequal). */
export function digestsMatch(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Query parameters that carry credentials in other servers' APIs; our servers refuse any request with one. */
const TOKEN_PARAMS = /^(token|access_token|auth|auth_token|authorization|api_key|apikey|key|bearer|jwt|session_token)$/i;

export function queryHasToken(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  for (const key of new URLSearchParams(url.slice(q + 1)).keys()) if (TOKEN_PARAMS.test(key)) return true;
  return false;
}

/**
 * A token a person configured: refused (exit 2) when it is estimated below 128 bits (strength.ts),
 * whatever the address, since a guessable token opens a server on loopback as on the network.
 */
export async function configuredToken(value: string, source: string, where = ''): Promise<ServerToken> {
  const token = value.trim();
  registerSecret(token);
  const problem = await tokenProblem(token, where);
  if (problem) throw new InvalidInputError(problem.code, `${source}: ${problem.message}`, { hint: problem.hint });
  return { digest: sha256(token), source };
}

/** A token given as its hex SHA-256 (a deployed box's ASSISTANT_BOX_TOKEN_SHA256): the server never sees the token. */
export function digestToken(hex: string, source: string): ServerToken {
  if (!/^[0-9a-f]{64}$/i.test(hex.trim())) {
    throw new InvalidInputError('bad_token_digest', `${source} is not a hex SHA-256 (64 hex digits)`, { hint: 'set it to the output of: printf %s "$TOKEN" | sha256sum' });
  }
  return { digest: Buffer.from(hex.trim(), 'hex'), source };
}

/** 32 random bytes as base64url after a prefix that says what the token is for (`abx_`, `amc_`). */
export function generateToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * The token kept in `path` (file 0600, folder 0700), or a new one from `generate` written there. Two
 * processes starting at once agree on one token: the file is written whole to a temp file and linked
 * into place (link never replaces a file), and the loser of the race reads the winner's.
 */
export function ensureTokenFile(path: string, generate: () => string, valid: RegExp): { token: string; path: string; created: boolean } {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  chmodSync(dirname(path), 0o700);
  const fresh = generate();
  let created = true;
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, fresh + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    created = false;
  } finally {
    rmSync(tmp, { force: true });
  }
  const kept = created ? fresh : readFileSync(path, 'utf8').trim();
  if (!valid.test(kept)) {
    throw new InvalidInputError('bad_token_file', `${path} does not hold a token`, { hint: 'delete it to have a new one generated (clients must then be given the new one)' });
  }
  registerSecret(kept);
  return { token: kept, path, created };
}

/** Where a server's generated token is kept: `~/.assistant/serve/<server>.token`. */
export function serverTokenPath(home: string, server: string): string {
  return join(home, '.assistant', 'serve', `${server}.token`);
}

/** The token a server on loopback requires when none was configured: generated once, kept 0600, reused after. */
export function generatedServerToken(home: string, server: string, prefix: string): { token: ServerToken; value: string; path: string; created: boolean } {
  const kept = ensureTokenFile(serverTokenPath(home, server), () => generateToken(prefix), new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`));
  return { token: { digest: sha256(kept.token), source: kept.path }, value: kept.token, path: kept.path, created: kept.created };
}
