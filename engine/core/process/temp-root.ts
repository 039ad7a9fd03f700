/**
 * The temp directory of a command: where its scratch folders (installs, clones, contained children, a
 * CLI step's isolation) are made. Taken from the command's own environment (ctx.env), the way
 * `os.tmpdir()` reads the process's: a command's environment is the one it was given (a run in a test's
 * process, a backend serving another user's request), and in a plain CLI process the two are the same.
 * A relative or empty value is ignored (the process's temp directory is used), as a shell tool would.
 */
import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';

/** The variables os.tmpdir() reads, in its order, on this platform. */
const TEMP_VARS = process.platform === 'win32' ? ['TEMP', 'TMP'] : ['TMPDIR', 'TMP', 'TEMP'];

export function tempRoot(env: Readonly<Record<string, string | undefined>>): string {
  for (const name of TEMP_VARS) {
    const value = env[name];
    if (!value) continue;
    if (!isAbsolute(value)) break;
    // os.tmpdir() drops a trailing separator (but keeps a root such as `/`).
    return value.length > 1 && /[\\/]$/.test(value) && !/^[A-Za-z]:\\$/.test(value) ? value.slice(0, -1) : value;
  }
  return tmpdir();
}
