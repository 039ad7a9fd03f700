/**
 * How a test says it was skipped, and why: one line `SKIP<TAB><reason><TAB><test name>` on stdout.
 * The runner (scripts/run-tests.mjs) counts these lines per reason, takes them out of the passed
 * count and closes with e.g. `12 skipped: moto_server not on PATH (see .ci/run)`. Skip only for
 * what this machine lacks (a Debian server, a tool CI installs), never to hide a failure.
 */
import type { Test } from 'uvu';

export const SKIP_PREFIX = 'SKIP\t';

/** Prints the skip line for `test` (tabs and newlines in either text are flattened to spaces). */
export function reportSkip(test: string, reason: string): void {
  const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
  console.log(`${SKIP_PREFIX}${flat(reason)}\t${flat(test)}`);
}

/**
 * A test function for `suite` that runs `fn` only when `missing()` returns nothing; otherwise the test
 * reports its skip with that reason. `missing` is asked at run time, once per test.
 */
export function testWhen(suite: Test, missing: () => string | undefined): (name: string, fn: () => Promise<void> | void) => void {
  return (name, fn) =>
    suite(name, async () => {
      const why = missing();
      if (why) return reportSkip(name, why);
      await fn();
    });
}
