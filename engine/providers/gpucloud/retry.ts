/**
 * The retry policy of SPEC 7.4: which failures are retried, how long to wait, and abortable waits.
 *
 * 5xx and network failures follow the `delaysMs` table (250, 750, 2000 ms by default). p-retry drives
 * the attempts, the budget (`retries = delaysMs.length`) and the retry decision; the waits themselves are
 * taken from the table (p-retry's own formula is switched off with `minTimeout: 0`) so that the schedule
 * reads exactly as the spec states it and tests can shorten it to any shape. factor 3 / min 250 / max 2000
 * happens to reproduce the default table, but not arbitrary ones.
 *
 * 429 is not part of this schedule: it has its own budget and waits per Retry-After (see client.ts).
 */
import pRetry, { AbortError as StopRetrying } from 'p-retry';
import { AssistantError, InterruptedError } from '../../core/errors.js';
import { raceSignal } from '../../core/deadline.js';
import { DNS_FAILURE_CODES, GpuCloudError, NetworkError } from './errors.js';

/**
 * The error an aborted signal ends a wait or request with: its reason when that is one of ours (the
 * overall `--timeout` deadline aborts with a `timeout` error, exit 1), else InterruptedError (Ctrl-C).
 */
export function abortError(signal: AbortSignal | undefined, cause?: unknown): AssistantError {
  const reason: unknown = signal?.reason;
  if (reason instanceof AssistantError) return reason;
  return new InterruptedError('interrupted', cause === undefined ? {} : { cause });
}

/** Sleeps `ms`, or rejects (abortError) as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Races a promise against an abort signal (the promise itself keeps running for other waiters). */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  return signal ? raceSignal(promise, signal, () => abortError(signal)) : promise;
}

/** Connection-level failures that cannot have reached the server (so a create cannot have happened). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Failures that retrying cannot fix (TLS trust problems). */
const PERMANENT_CODE = /^(ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_INVALID_URL)/;

/** The low-level cause code carried in a NetworkError's details. */
export function networkCode(err: unknown): string | undefined {
  if (!(err instanceof NetworkError)) return undefined;
  const d = err.details as { errno?: unknown } | undefined;
  return typeof d?.errno === 'string' ? d.errno : undefined;
}

/** 5xx and network failures are retried on the SPEC 7.4 schedule; DNS failures are not (a mistyped host stays mistyped). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof NetworkError) {
    const code = networkCode(err) ?? '';
    return !PERMANENT_CODE.test(code) && !DNS_FAILURE_CODES.has(code);
  }
  return err instanceof GpuCloudError && err.status >= 500;
}

/** The server may have acted on the request (5xx, reset or timeout after sending), so a create may exist. */
export function isAmbiguous(err: unknown): boolean {
  if (err instanceof NetworkError) return !NOT_SENT_CODES.has(networkCode(err) ?? '');
  return err instanceof GpuCloudError && err.status >= 500;
}

/**
 * Parses Retry-After (delta seconds or an HTTP date) into a wait in ms, capped by `capMs`.
 * A missing or unreadable header means 1 s.
 */
export function parseRetryAfter(value: string | null | undefined, capMs: number, now: number = Date.now()): number {
  let ms = 1000;
  const v = value?.trim();
  if (v) {
    if (/^\d+(\.\d+)?$/.test(v)) ms = Math.round(Number(v) * 1000);
    else {
      const at = Date.parse(v);
      if (!Number.isNaN(at)) ms = Math.max(0, at - now);
    }
  }
  return Math.max(0, Math.min(ms, capMs));
}

/**
 * Marks an error that must surface as is, without another round of this schedule — e.g. a token fetch
 * that already ran its own schedule (nesting schedules would multiply the waits). p-retry unwraps it.
 */
export function final(err: unknown): Error {
  return new StopRetrying(err instanceof Error ? err : new Error(String(err)));
}

export interface RetryWait {
  /** The attempt that failed (1-based). */
  attempt: number;
  waitMs: number;
  error: unknown;
}

export interface RetryScheduleOptions {
  delaysMs: readonly number[];
  signal?: AbortSignal;
  /** Called before each wait (events, debug lines, stats). */
  onWait?: (wait: RetryWait) => void;
}

/**
 * Runs `attempt` and retries it on 5xx/network failures with the waits in `delaysMs`; after the last
 * wait the typed error of the final attempt surfaces. Anything else surfaces at once. Aborting the
 * signal ends a pending wait immediately with InterruptedError.
 */
export async function retrySchedule<T>(attempt: (n: number) => Promise<T>, opts: RetryScheduleOptions): Promise<T> {
  const { delaysMs, signal } = opts;
  try {
    return await pRetry(
      async (n) => {
        if (signal?.aborted) throw abortError(signal);
        return attempt(n);
      },
      {
        retries: delaysMs.length,
        minTimeout: 0,
        factor: 1,
        randomize: false,
        shouldRetry: ({ error }) => isRetryable(error) && !signal?.aborted,
        // onFailedAttempt runs before p-retry's budget check, so only wait when a retry will follow.
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retriesConsumed }) => {
          if (retriesLeft <= 0 || !isRetryable(error) || signal?.aborted) return;
          const waitMs = delaysMs[retriesConsumed] ?? delaysMs[delaysMs.length - 1] ?? 0;
          opts.onWait?.({ attempt: attemptNumber, waitMs, error });
          await sleep(waitMs, signal);
        },
      },
    );
  } catch (err) {
    if (signal?.aborted && !(err instanceof InterruptedError) && err !== signal.reason) throw abortError(signal, err);
    throw err;
  }
}
