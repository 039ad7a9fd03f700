/**
 * The one way a plan step may read a local file: an artefact the plan owns, under the directory the
 * user named with `--files DIR`, written `<FILES>/path/in/dir` in the step's args (also after
 * `file://`, `fileb://` or az's `@`). Any other local path in a copy, sync, body or output position is
 * refused (engine/core/kits/cli/rules.ts). The path is checked statically (relative, no `..`, no `~` or `$`),
 * and again right before the CLI runs: every component is looked at with lstat and a symlink is
 * refused, so nothing under DIR can point the CLI out of it. `<FILES>` is never substituted like a
 * binding: the verb resolves it itself, so a bound value can never become a path.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { SafetyRefusal, UsageError } from '../../errors.js';

export const FILES_BINDING = 'FILES';
export const FILES_PREFIX = `<${FILES_BINDING}>/`;

/** Prefixes after which a CLI reads a file: aws paramfiles, az's `@file`. */
const READ_PREFIXES = ['fileb://', 'file://', '@'] as const;

export interface ArtefactRef {
  /** What stands before `<FILES>/` (`file://`, `fileb://`, `@` or nothing). */
  prefix: string;
  /** The path inside the files directory (`models/weights.bin`). */
  relative: string;
}

/**
 * The artefact a value names, or undefined when it names none: the whole value is `[prefix]<FILES>/path`,
 * with `file://`, `fileb://`, `@`, or a `key=` (gcloud's `--metadata-from-file=startup-script=<FILES>/s.sh`).
 */
export function artefactIn(value: string): ArtefactRef | undefined {
  const keyed = /^([A-Za-z0-9_.-]+=)(?=<)/.exec(value)?.[1] ?? '';
  for (const prefix of ['', ...READ_PREFIXES]) {
    if (value.startsWith(keyed + prefix + FILES_PREFIX)) return { prefix: keyed + prefix, relative: value.slice(keyed.length + prefix.length + FILES_PREFIX.length) };
  }
  return undefined;
}

/** Why an artefact path is not acceptable as written, or undefined. */
export function artefactProblem(relative: string): string | undefined {
  if (!relative) return 'an artefact needs a path under <FILES>/';
  if (/[\u0000-\u001f\\$~`]/.test(relative)) return `the artefact path "${relative}" has a character the CLI may interpret (\\, $, ~, \` or a control character)`;
  if (isAbsolute(relative) || relative.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    return `the artefact path "${relative}" must stay inside --files DIR (no absolute path, no "." or ".." segments, no "//")`;
  }
  if (/<[A-Z][A-Z0-9_]*>/.test(relative)) return `the artefact path "${relative}" is decided at run time (a placeholder in it)`;
  return undefined;
}

/**
 * The absolute path of an artefact, checked now: inside `filesDir`, every component a real file or
 * directory (lstat: a symlink anywhere is refused), and it exists.
 */
export function resolveArtefact(filesDir: string | undefined, relative: string): string {
  if (!filesDir) {
    throw new UsageError(`the plan reads the local file <FILES>/${relative}, and no --files directory was given`, {
      hint: 'pass the directory that holds the plan\'s files with --files DIR (ask --apply --files ./artefacts)',
    });
  }
  const problem = artefactProblem(relative);
  if (problem) throw new SafetyRefusal(problem, { hint: 'name a file inside the --files directory' });
  let root: string;
  try {
    root = realpathSync(filesDir);
  } catch (err) {
    throw new UsageError(`--files ${filesDir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { hint: 'give an existing directory' });
  }
  let current = root;
  for (const part of relative.split('/')) {
    current = join(current, part);
    let st;
    try {
      st = lstatSync(current);
    } catch (err) {
      throw new UsageError(`the artefact <FILES>/${relative} does not exist in ${root} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
        hint: 'put the file in the --files directory, or fix its path in the plan',
      });
    }
    if (st.isSymbolicLink()) {
      throw new SafetyRefusal(`the artefact <FILES>/${relative} goes through a symbolic link (${current}); links are never followed out of the --files directory`, {
        hint: 'copy the file into the --files directory instead of linking it',
      });
    }
    if (!st.isDirectory() && !st.isFile()) throw new SafetyRefusal(`the artefact <FILES>/${relative} is not a regular file or directory`);
  }
  if (!current.startsWith(root + sep)) throw new SafetyRefusal(`the artefact <FILES>/${relative} is outside ${root}`);
  return current;
}

/** The args with every artefact reference replaced by its checked absolute path (the CLI reads it). */
export function resolveArtefacts(args: readonly string[], filesDir: string | undefined): string[] {
  return args.map((arg) => {
    // `--body=<FILES>/x` as well as `--body <FILES>/x`.
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    const [head, value] = eq > 0 ? [arg.slice(0, eq + 1), arg.slice(eq + 1)] : ['', arg];
    const ref = artefactIn(value);
    return ref ? head + ref.prefix + resolveArtefact(filesDir, ref.relative) : arg;
  });
}
