/**
 * Downloads one artefact to a file in a private temporary directory, hashing as it arrives, and keeps
 * it only when its SHA-256 is the pinned one. Never `curl | sh`: nothing downloaded is run or unpacked
 * before it is verified. Bounded in size (the pinned size, else a hard cap) and time; https only, or
 * http to this machine (a test server, a local mirror); a redirect may not leave https.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { OperationError } from '../../core/errors.js';
import { isLoopbackHost as isLoopback } from '../../core/loopback.js';

/** No artefact of the recipe table comes near this; a server sending more is refused. */
const HARD_CAP_BYTES = 512 * 1024 * 1024;

export interface DownloadOptions {
  url: string;
  sha256: string;
  size?: number;
  /** Where to write the file (inside the caller's temporary directory). */
  file: string;
  signal: AbortSignal;
  timeoutMs: number;
  fetchImpl?: typeof fetch;
  onProgress?: (bytes: number) => void;
}

function allowed(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
}

export async function downloadVerified(opts: DownloadOptions): Promise<{ bytes: number }> {
  const url = new URL(opts.url);
  if (!allowed(url)) throw new OperationError('download_refused', `refusing to download over ${url.protocol} from ${url.host}: https only`);
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]);
  let res: Response;
  try {
    res = await (opts.fetchImpl ?? fetch)(url, { signal, redirect: 'follow', headers: { 'user-agent': 'assistant-onboarding' } });
  } catch (err) {
    throw downloadError(err, opts, signal);
  }
  if (!allowed(new URL(res.url || opts.url))) {
    await res.body?.cancel().catch(() => undefined);
    throw new OperationError('download_refused', `${opts.url} redirected to ${new URL(res.url).origin}, which is not https`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new OperationError('download_failed', `GET ${opts.url} answered HTTP ${res.status}`);
  }
  const limit = opts.size ?? HARD_CAP_BYTES;
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body.cancel().catch(() => undefined);
    throw new OperationError('download_refused', `${opts.url} is ${declared} bytes, more than the ${opts.size ? 'pinned size' : 'limit'} (${limit})`);
  }
  const hash = createHash('sha256');
  const out = createWriteStream(opts.file, { mode: 0o600, flags: 'wx' });
  let bytes = 0;
  try {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel().catch(() => undefined);
        throw new OperationError('download_refused', `${opts.url} sent more than the ${opts.size ? 'pinned size' : 'limit'} (${limit} bytes)`);
      }
      hash.update(value);
      if (!out.write(value)) await new Promise<void>((resolve) => out.once('drain', resolve));
      opts.onProgress?.(bytes);
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    await rm(opts.file, { force: true });
    throw err instanceof OperationError ? err : downloadError(err, opts, signal);
  }
  const got = hash.digest('hex');
  if (got !== opts.sha256.toLowerCase() || (opts.size !== undefined && bytes !== opts.size)) {
    await rm(opts.file, { force: true });
    throw new OperationError(
      'checksum_mismatch',
      `${opts.url}: SHA-256 ${got} (${bytes} bytes) is not the pinned ${opts.sha256}${opts.size !== undefined ? ` (${opts.size} bytes)` : ''}; the file was deleted and nothing was unpacked`,
      { hint: 'the download was corrupted or tampered with; try again later, or install the tool with its package manager' },
    );
  }
  return { bytes };
}

function downloadError(err: unknown, opts: DownloadOptions, signal: AbortSignal): unknown {
  if (opts.signal.aborted) return opts.signal.reason ?? err;
  if (signal.aborted) return new OperationError('timeout', `downloading ${opts.url} took longer than ${Math.round(opts.timeoutMs / 1000)} s`);
  const e = err as Error & { cause?: { code?: string } };
  return new OperationError('download_failed', `GET ${opts.url} failed: ${e.cause?.code ?? e.message}`);
}
