/**
 * The one way tests make temporary files: `tempDir()` creates a directory under the system temp dir
 * and registers it; every registered directory is removed when the test file's process ends (each
 * test file runs in a process of its own, so that is "after each test file"), whether its tests
 * passed, failed or threw. The runner (scripts/run-tests.mjs) gives each test file a TMPDIR of its
 * own and fails the file when anything is left in it, so a test that makes files any other way is
 * caught rather than filling /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created = new Set<string>();
let hooked = false;

/** Removes every directory made by tempDir (synchronously: the 'exit' event allows nothing else). */
function removeAll(): void {
  for (const dir of created) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A file still open elsewhere: the runner's own cleanup of the file's TMPDIR takes it.
    }
  }
  created.clear();
}

/** A fresh directory `<tmp>/<prefix>XXXXXX`, removed when this test file's process exits. */
export function tempDir(prefix = 'assistant-test-'): string {
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAll);
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.add(dir);
  return dir;
}

/** Removes one directory now (a test that wants its space back early); it is forgotten by the exit hook. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  created.delete(dir);
}
