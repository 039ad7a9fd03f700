/**
 * On-disk OAuth token cache, shared by later processes: one 0600 file per client and API origin inside a
 * 0700 directory, named by sha256(clientId + '\n' + origin) so neither appears in the file name.
 * Content: {"access_token", "refresh_token", "expires_at"} with expires_at in epoch milliseconds.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile, chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export interface CachedToken {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const fileSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_at: z.number().finite(),
});

/** The cache file for a client id and API origin. */
export function tokenCachePath(dir: string, clientId: string, origin: string): string {
  const name = createHash('sha256').update(`${clientId}\n${origin}`).digest('hex');
  return join(dir, `${name}.json`);
}

export class TokenFileCache {
  constructor(readonly file: string, private readonly dir: string) {}

  static for(dir: string, clientId: string, origin: string): TokenFileCache {
    return new TokenFileCache(tokenCachePath(dir, clientId, origin), dir);
  }

  /** The cached token, or undefined when there is none or the file is unreadable or malformed. */
  async read(): Promise<CachedToken | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (!parsed.success) return undefined;
      return { accessToken: parsed.data.access_token, refreshToken: parsed.data.refresh_token, expiresAt: parsed.data.expires_at };
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
