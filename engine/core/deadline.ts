/**
 * One deadline per command (DESIGN §7): a single AbortSignal made of the user's Ctrl-C and the
 * command's timeout (`--timeout`, else config `timeout`). Every AI call, HTTP call, rate-limit wait,
 * retry back-off, poll and child process is handed this signal (or one derived from it with
 * `AbortSignal.any`, never a replacement), so a timeout ends all of them at once. The abort reason says
 * which it was: an `InterruptedError` (exit 130) or an `OperationError` with code `timeout` (exit 1).
 */
import { AssistantError, InterruptedError, OperationError } from './errors.js';

export interface Deadline {
  /** The command's one signal. */
  readonly signal: AbortSignal;
  /**
   * Starts the timeout `seconds` from now, unless one runs already: the first source wins, so the
   * `--timeout` flag (armed at start) beats config `timeout` (armed when the config is read).
   */
  arm(seconds: number, from: string): void;
  /** The armed timeout in seconds, if any. */
  readonly seconds: number | undefined;
}

export function timeoutError(seconds: number, from: string): OperationError {
  return new OperationError('timeout', `timeout after ${seconds} s (${from}): the command did not finish in time; waits for rate limits, retries and polls count too`, {
    hint: `give it longer with --timeout <seconds> or config \`timeout\`; what was sent before the timeout is listed above`,
  });
}

export function createDeadline(interrupt: AbortSignal): Deadline {
  const controller = new AbortController();
  let armed: number | undefined;
  return {
    signal: AbortSignal.any([interrupt, controller.signal]),
    get seconds() {
      return armed;
    },
    arm(seconds, from) {
      if (armed !== undefined || controller.signal.aborted) return;
      armed = seconds;
      const timer = setTimeout(() => controller.abort(timeoutError(seconds, from)), seconds * 1000);
      timer.unref();
      interrupt.addEventListener('abort', () => clearTimeout(timer), { once: true });
    },
  };
}

/**
 * A signal for one short unit of work under a long-lived parent (an MCP list under the server's life),
 * aborted with whichever aborts first, and `unlink` to call when the work is done. AbortSignal.any
 * would do the same but stays registered on the parent until garbage collection, and costs a signal
 * object per call on the path of every MCP read (issue 40).
 */
export function linkedSignal(parent: AbortSignal, other: AbortSignal | undefined): { signal: AbortSignal; unlink: () => void } {
  if (other === undefined || other === parent) return { signal: parent, unlink: () => undefined };
  if (parent.aborted || other.aborted) return { signal: parent.aborted ? parent : other, unlink: () => undefined };
  const controller = new AbortController();
  const fromParent = () => controller.abort(parent.reason);
  const fromOther = () => controller.abort(other.reason);
  parent.addEventListener('abort', fromParent, { once: true });
  other.addEventListener('abort', fromOther, { once: true });
  return {
    signal: controller.signal,
    unlink: () => {
      parent.removeEventListener('abort', fromParent);
      other.removeEventListener('abort', fromOther);
    },
  };
}

/** A signal for a long-lived surface's unit of work (an MCP request, a talk turn): its own cancel, under the parent's. */
export function derivedSignal(parent: AbortSignal, ...more: (AbortSignal | undefined)[]): AbortSignal {
  const extra = more.filter((s): s is AbortSignal => s !== undefined && s !== parent);
  return extra.length ? AbortSignal.any([parent, ...extra]) : parent;
}

/**
 * The error to throw when `signal` ended a wait: the deadline's own reason (a timeout, exit 1) when that
 * is what ended it, else "interrupted" (exit 130), said with `while` when given.
 */
export function abortReason(signal: AbortSignal | undefined, options: { while?: string; cause?: unknown } = {}): AssistantError {
  const reason: unknown = signal?.reason;
  if (reason instanceof AssistantError && !(reason instanceof InterruptedError)) return reason;
  return new InterruptedError(options.while ? `interrupted while ${options.while}` : 'interrupted', options.cause === undefined ? {} : { cause: options.cause });
}

/**
 * Settles as `promise` does, or rejects with `reason()` as soon as `signal` aborts, whichever comes
 * first; the promise itself runs on (other waiters may still want it) and the listener is removed.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal, reason: () => unknown): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
