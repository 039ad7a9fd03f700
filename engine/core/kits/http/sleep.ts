/** Waiting out a Retry-After in the HTTP clients (the toolkit, cloud_d): the command's deadline or Ctrl-C ends the wait. */
import { abortReason } from '../../deadline.js';

/** Sleeps `ms`, or rejects with the signal's reason (timeout, interrupted) as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const t = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), ms);
    const stop = () => (clearTimeout(t), reject(abortReason(signal)));
    signal.addEventListener('abort', stop, { once: true });
  });
}
