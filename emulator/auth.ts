/** Opaque OAuth tokens. Only sha256 digests are kept (and persisted), never the tokens. */
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from './state.js';

/** Refresh tokens outlive access tokens by this factor (at least a day). */
const REFRESH_FACTOR = 24;

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const newToken = (): string => randomBytes(32).toString('base64url');

/** The one scope the API issues to client credentials since 2026-03-20 (wire reference §2). */
export const TOKEN_SCOPE = 'cloud-api-v1';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: typeof TOKEN_SCOPE;
}

export function issueTokens(store: Store, ttlSec: number, now: number): TokenResponse {
  prune(store, now);
  const access = newToken();
  const refresh = newToken();
  store.data.tokens.access[digest(access)] = now + ttlSec * 1000;
  store.data.tokens.refresh[digest(refresh)] = now + Math.max(ttlSec * REFRESH_FACTOR, 86_400) * 1000;
  return { access_token: access, token_type: 'Bearer', expires_in: ttlSec, refresh_token: refresh, scope: TOKEN_SCOPE };
}

export function accessTokenValid(store: Store, token: string, now: number): boolean {
  const exp = store.data.tokens.access[digest(token)];
  return exp !== undefined && exp > now;
}

/** Consumes a refresh token (rotation); false when unknown or expired. */
export function consumeRefreshToken(store: Store, token: string, now: number): boolean {
  const key = digest(token);
  const exp = store.data.tokens.refresh[key];
  if (exp === undefined) return false;
  delete store.data.tokens.refresh[key];
  return exp > now;
}

/** Extracts the bearer token from an Authorization header. */
export function bearer(header: string | string[] | undefined): string | undefined {
  const h = Array.isArray(header) ? header[0] : header;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h ?? '');
  return m?.[1];
}

function prune(store: Store, now: number): void {
  for (const map of [store.data.tokens.access, store.data.tokens.refresh]) {
    for (const [k, exp] of Object.entries(map)) if (exp <= now) delete map[k];
  }
}
