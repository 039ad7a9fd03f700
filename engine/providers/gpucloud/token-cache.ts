/**
 * On-disk OAuth token cache, shared by later processes: one 0600 file inside a 0700 directory per
 * client ID, client secret, API origin and scope, named by a sha256 over all four (the secret itself only
 * as its own sha256) so none of them appears in the file name. Keying by the secret means a token is
 * only ever reused by a process that holds the secret it was issued for: a wrong or rotated secret
 * finds no token and is checked by the token endpoint.
 * Content: {"access_token", "refresh_token", "expires_at"} with expires_at in epoch milliseconds.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, openSync, readFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile, chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CachedToken {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A cache file as written by `write` (checked by hand: this runs on every command's start, zod would not pay). */
function readCacheFile(data: unknown): CachedToken | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { access_token, refresh_token, expires_at } = data as Record<string, unknown>;
  if (typeof access_token !== 'string' || access_token.length < 1) return undefined;
  if (refresh_token !== undefined && (typeof refresh_token !== 'string' || refresh_token.length < 1)) return undefined;
  if (typeof expires_at !== 'number' || !Number.isFinite(expires_at)) return undefined;
  return { accessToken: access_token, refreshToken: refresh_token, expiresAt: expires_at };
}

export interface TokenCacheKey {
  clientId: string;
  clientSecret: string;
  /** API origin, e.g. https://api.verda.com. */
  origin: string;
  /** The token's scope ('' when the grant requests none). */
  scope: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cache file for one client ID, secret, origin and scope. */
export function tokenCachePath(dir: string, key: TokenCacheKey): string {
  const name = sha256(['v2', key.clientId, sha256(key.clientSecret), key.origin, key.scope].join('\n'));
  return join(dir, `${name}.json`);
}

export class TokenFileCache {
  constructor(readonly file: string, private readonly dir: string) {}

  /** The cache of one client and API origin; `keyed` adds the secret and scope before any use (TokenManager does). */
  static for(dir: string, clientId: string, origin: string): UnkeyedTokenCache {
    return new UnkeyedTokenCache(dir, clientId, origin);
  }

  /** The cached token, or undefined when there is none or the file is unreadable or malformed. */
  async read(): Promise<CachedToken | undefined> {
    // One synchronous read of a file of ~1 kB: the promise API costs a thread-pool round trip per
    // open, stat, read and close, which at start-up (every command's first request) is most of its time.
    // Non-blocking, so that something other than a file at that path (a FIFO) reads as no token instead
    // of holding the event loop (and the command's --timeout) forever.
    let text: string;
    try {
      const fd = openSync(this.file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
      try {
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch {
      return undefined;
    }
    try {
      return readCacheFile(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  /** Writes atomically (temp file 0600, then rename) so a concurrent reader never sees half a file. */
  async write(token: CachedToken): Promise<void> {
    await this.ensureDir();
    const body = JSON.stringify({ access_token: token.accessToken, refresh_token: token.refreshToken, expires_at: token.expiresAt });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
      await rename(tmp, this.file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  /** Deletes the cache file, but only when it still holds `accessToken` (another process may have renewed it). */
  async removeIfHolds(accessToken: string): Promise<void> {
    const current = await this.read();
    if (current && current.accessToken !== accessToken) return;
    await unlink(this.file).catch(() => undefined);
  }

  private async ensureDir(): Promise<void> {
    const created = await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Tighten only a directory we created; never chmod a directory the user pointed us at.
    if (created !== undefined) {
      const st = await stat(this.dir);
      if ((st.mode & 0o777) !== 0o700) await chmod(this.dir, 0o700);
    }
  }
}

/**
 * A cache directory, client ID and origin, not yet usable: the file is chosen only once the secret and
 * scope are known, so no code path can read a token without naming the secret it was issued for.
 */
export class UnkeyedTokenCache {
  constructor(private readonly dir: string, private readonly clientId: string, private readonly origin: string) {}

  keyed(clientSecret: string, scope = ''): TokenFileCache {
    return new TokenFileCache(tokenCachePath(this.dir, { clientId: this.clientId, clientSecret, origin: this.origin, scope }), this.dir);
  }
}
