/**
 * Waiting for a state to be reached when there is no event to await: checks `pred` every few ms and
 * fails only after a generous bound (a busy machine delays timers, it never skips them). This is not a
 * timing assertion: however slow the machine, the test waits for what it checks.
 */
export async function until(pred: () => boolean | Promise<boolean>, what: string, boundMs = 90_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${boundMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * `p`, or a failure saying what never happened when it has not settled within a generous `boundMs`: a
 * guard that turns a hang (an event that will never come) into a failure, not a timing assertion.
 */
export function within<T>(p: Promise<T>, what: string, boundMs = 90_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${boundMs / 1000} s`)), boundMs)));
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}
