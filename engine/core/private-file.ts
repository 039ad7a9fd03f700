/**
 * Files that can hold a secret (issue 36 §6) — talk sessions and line history, ask history, saved and
 * kept plans, run journals — are written through here and nowhere else: mode 0600 always, also when
 * the file existed with a looser mode (a `mode` given to writeFile applies only when it creates the
 * file), in a directory of mode 0700 when the directory is ours.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** A directory of ours (under ~/.assistant): created 0700, and made 0700 if someone loosened it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Writes `data` whole: to a new temp file beside `path` (created 0600, exclusively, so no other
 * process's file is reused), then renamed over it. A reader sees the old file or the new one, never
 * half; the new one is 0600 whatever the old one was. `path`'s directory must exist.
 */
export function writePrivateFile(path: string, data: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Opens `path` for appending, created 0600 or made 0600 (the descriptor's mode is set, so a file
 * swapped in between cannot keep another mode). Lines written with one `writeSync` each stay whole
 * when two processes append (O_APPEND).
 */
export function openPrivateAppend(path: string): number {
  return openPrivate(path, 'a');
}

/** Opens `path` to append (`a`) or to write afresh (`w`), created 0600 or made 0600 as `openPrivateAppend` says. */
export function openPrivate(path: string, flags: 'a' | 'w'): number {
  const fd = openSync(path, flags, PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Appends `text` in one write to a 0600 file (a session's line, a snapshot). */
export function appendPrivateFile(path: string, text: string): void {
  const fd = openPrivateAppend(path);
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
}
