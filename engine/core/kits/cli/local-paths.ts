/**
 * Local paths in the args of CLIs whose every flag the gate cannot know (`gcloud`, `az`: thousands of
 * commands, any of which may take a file). A step runs with its working directory and HOME in an empty
 * scratch directory (engine/core/kits/cli/isolation.ts), so a relative name (`policy.json`) and `~/x` find
 * nothing of the user's; what could still reach the user's files is an absolute path, a `..` climbing
 * out of the scratch directory. Such values are refused anywhere in a
 * step, and options that name a file (`--…-file`, `--…-from-file`, `--source`) must name an artefact
 * of `--files DIR` (or a cloud URL).
 */
import { artefactIn, artefactProblem } from './artefacts.js';

/** A value that may name a file on this machine outside the scratch directory. */
export function looksLocal(value: string, exempt: readonly RegExp[] = []): boolean {
  const v = value.replace(/^[A-Za-z0-9_.-]+=/, ''); // `key=/etc/passwd` in a map-style flag value
  if (exempt.some((re) => re.test(v))) return false;
  return /^(?:\/|~|\.\.?(?:\/|$)|file:|[A-Za-z]:[\\/]|\\\\)/i.test(v) || /(?:^|[\\/])\.\.(?:[\\/]|$)/.test(v);
}

/** A cloud URL rather than a local path (`gs://`, `https://`, `s3://`). */
export const isUrl = (v: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^file:/i.test(v);

/**
 * Why a value in a file-reading position is refused, or undefined when it is an artefact (checked) or a
 * cloud URL. Each element of a comma-separated list and each `key=value` of a map is checked.
 */
export function fileValueProblem(option: string, value: string): string | undefined {
  for (const part of value.split(',')) {
    const v = part.replace(/^[A-Za-z0-9_.-]+=(?!<FILES>)/, '');
    if (isUrl(v)) continue;
    const ref = artefactIn(part) ?? artefactIn(v);
    if (ref) {
      const problem = artefactProblem(ref.relative);
      if (problem) return problem;
      continue;
    }
    return `${option} ${value}: the CLI reads a local file there; name an artefact instead (<FILES>/name with --files DIR)`;
  }
  return undefined;
}
