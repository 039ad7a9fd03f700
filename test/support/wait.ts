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
