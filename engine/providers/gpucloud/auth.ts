/**
 * OAuth 2.0 client-credentials token manager (SPEC 5, wire reference §2).
 *
 * - A token is reused until 30 s before it expires, from memory or from the disk cache (so a later
 *   process makes no token request at all).
 * - An expired token is renewed with its refresh token; if the refresh is refused (400/401) the
 *   manager falls back to client credentials.
 * - Concurrent callers share one in-flight fetch.
 * - `invalidate` drops a token the API rejected (memory and disk) so the next call re-authenticates
 *   with client credentials.
 * Every secret it learns (client secret, access and refresh tokens) is registered for redaction.
 */
import { registerSecret } from '../../core/redact.js';
import { BadResponseError, decodeGpuCloudError, GpuCloudError } from './errors.js';
import { abortable } from './retry.js';
import { decodeBody } from './response.js';
import type { CachedToken, TokenFileCache, UnkeyedTokenCache } from './token-cache.js';
import type { ClientEvent, GpuCloudCredentials } from './types.js';

/** Tokens are renewed this long before they expire (as the official Go SDK does). */
export const TOKEN_EXPIRY_MARGIN_MS = 30_000;
/** Used when the token response omits expires_in (the documented value). */
const DEFAULT_EXPIRES_IN_SEC = 3600;
/**
 * The scope every client-credentials token request names (SPEC 5; the API issues this scope since
 * 2026-03-20, wire reference §2). Asked for explicitly, so the token keeps working if the server's
 * default ever changes, and a server that would issue another scope says so (invalid_scope) instead.
 */
export const GPUCLOUD_SCOPE = 'cloud-api-v1';

export type Grant = 'client_credentials' | 'refresh_token';

/** Sends one token request; 5xx/network retries and rate limiting are the caller's (client's) business. */
export type TokenPost = (
  body: Record<string, string>,
  grant: Grant,
) => Promise<{ status: number; text: string; attempts: number }>;

export interface TokenManagerOptions {
  credentials: GpuCloudCredentials;
  post: TokenPost;
  /** Path of the token endpoint, for error messages. */
  tokenPath: string;
  /** The disk cache; the manager keys it by the client secret and scope it authenticates with. */
  cache?: UnkeyedTokenCache;
  /** OAuth scope requested and part of the cache key (default GPUCLOUD_SCOPE; '' = none, the server's default). */
  scope?: string;
  onEvent?: (event: ClientEvent) => void;
  /** Clock in epoch ms (tests). */
  now?: () => number;
}

interface TokenResponse {
  access_token: string;
  refresh_token?: string | null;
  expires_in?: number | null;
  token_type?: string | null;
}

/**
 * The token endpoint's answer, checked field by field (other fields are allowed): a non-empty
 * access_token, an optional non-empty refresh_token, an optional positive expires_in (a number or a
 * numeric string), an optional token_type. Written out rather than as a zod schema: every command that
 * talks to the API runs it, and zod would cost more to load than everything else on that path.
 */
function readTokenResponse(data: unknown): TokenResponse | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { access_token, refresh_token, expires_in, token_type } = data as Record<string, unknown>;
  if (typeof access_token !== 'string' || access_token.length < 1) return undefined;
  if (refresh_token != null && (typeof refresh_token !== 'string' || refresh_token.length < 1)) return undefined;
  if (token_type != null && typeof token_type !== 'string') return undefined;
  let expiresIn: number | null | undefined = expires_in as null | undefined;
  if (expires_in != null) {
    expiresIn = Number(expires_in);
    if (!Number.isFinite(expiresIn) || expiresIn <= 0) return undefined;
  }
  return { access_token, refresh_token: refresh_token as string | null | undefined, expires_in: expiresIn, token_type: token_type as string | null | undefined };
}

export class TokenManager {
  private current: CachedToken | undefined;
  private inflight: Promise<CachedToken> | undefined;
  private readonly now: () => number;
  private readonly cache: TokenFileCache | undefined;
  private readonly scope: string;

  constructor(private readonly opts: TokenManagerOptions) {
    this.now = opts.now ?? Date.now;
    this.scope = opts.scope ?? GPUCLOUD_SCOPE;
    registerSecret(opts.credentials.clientSecret);
    this.cache = opts.cache?.keyed(opts.credentials.clientSecret, this.scope);
  }

  /** A valid access token; shares one fetch among concurrent callers. The signal only stops this caller's wait. */
  async getToken(signal?: AbortSignal): Promise<string> {
    const cur = this.current;
    if (cur && this.isFresh(cur)) return cur.accessToken;
    if (!this.inflight) {
      this.inflight = this.obtain().finally(() => {
        this.inflight = undefined;
      });
    }
    return (await abortable(this.inflight, signal)).accessToken;
  }

  /** Forgets a token the API rejected (401), in memory and on disk, so the next call re-authenticates. */
  async invalidate(accessToken: string): Promise<void> {
    if (this.current?.accessToken === accessToken) this.current = undefined;
    await this.cache?.removeIfHolds(accessToken).catch(() => undefined);
  }

  private isFresh(t: CachedToken): boolean {
    return this.now() < t.expiresAt - TOKEN_EXPIRY_MARGIN_MS;
  }

  private async obtain(): Promise<CachedToken> {
    // Another process may have renewed the token since we last looked.
    const disk = await this.cache?.read();
    if (disk) {
      registerSecret(disk.accessToken);
      registerSecret(disk.refreshToken);
      if (this.isFresh(disk)) {
        this.current = disk;
        this.opts.onEvent?.({ type: 'token', source: 'disk' });
        return disk;
      }
    }
    const refreshToken = this.current?.refreshToken ?? disk?.refreshToken;
    let token: CachedToken | undefined;
    if (refreshToken) {
      try {
        token = await this.fetchToken('refresh_token', { grant_type: 'refresh_token', refresh_token: refreshToken });
      } catch (err) {
        // A refused refresh (expired or revoked refresh token) falls back to client credentials.
        if (!(err instanceof GpuCloudError) || (err.status !== 400 && err.status !== 401)) throw err;
      }
    }
    token ??= await this.fetchToken('client_credentials', {
      grant_type: 'client_credentials',
      client_id: this.opts.credentials.clientId,
      client_secret: this.opts.credentials.clientSecret,
      // A refresh keeps the scope of the token it renews (RFC 6749 §6), so only this grant names it.
      ...(this.scope ? { scope: this.scope } : {}),
    });
    this.current = token;
    // The disk cache is an optimisation: failing to write it must not fail the request.
    await this.cache?.write(token).catch(() => undefined);
    return token;
  }

  private async fetchToken(grant: Grant, body: Record<string, string>): Promise<CachedToken> {
    const sentAt = this.now();
    const res = await this.opts.post(body, grant);
    const context = { method: 'POST', path: this.opts.tokenPath, attempts: res.attempts };
    // Never put a token response body into an error: it may hold a token.
    const data = decodeBody(res.text);
    if (res.status < 200 || res.status >= 300) throw decodeGpuCloudError(res.status, data, { ...context, tokenEndpoint: true });
    const token = readTokenResponse(data);
    if (!token) {
      throw new BadResponseError({
        status: res.status,
        code: 'bad_response',
        message: 'the token endpoint answered without an access_token',
        ...context,
      });
    }
    registerSecret(token.access_token);
    registerSecret(token.refresh_token ?? undefined);
    this.opts.onEvent?.({ type: 'token', source: grant === 'refresh_token' ? 'refresh' : 'client_credentials' });
    const expiresIn = token.expires_in ?? DEFAULT_EXPIRES_IN_SEC;
    return {
      accessToken: token.access_token,
      // Keep the old refresh token when the server does not rotate it.
      refreshToken: token.refresh_token ?? (grant === 'refresh_token' ? body.refresh_token : undefined),
      expiresAt: sentAt + expiresIn * 1000,
    };
  }
}
