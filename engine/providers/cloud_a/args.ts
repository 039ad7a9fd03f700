/**
 * What cloud_a adds to a step's aws command line, in a module of its own so its login check
 * (credentials-check.ts) uses it without loading the provider module.
 */
import { parseCommand } from '../../core/kits/cli/argv.js';
import { withOption } from '../../core/kits/cli/provider.js';
import { AWS_SYNTAX } from './destroyer.js';
import type { AwsTarget } from './target.js';

/**
 * The args of a step with what the provider adds: JSON output, and the profile and region unless the
 * step names them; `s3 cp|sync` never follow a symbolic link (out of an artefact directory).
 */
export function awsArgs(args: readonly string[], target: AwsTarget): string[] {
  let out = withOption(args, { syntax: AWS_SYNTAX }, ['--output'], ['--output', 'json']);
  const words = parseCommand(args, AWS_SYNTAX).words;
  if (words[0] === 's3' && (words[1] === 'cp' || words[1] === 'sync')) out = withOption(out, { syntax: AWS_SYNTAX }, ['--no-follow-symlinks'], ['--no-follow-symlinks']);
  if (target.profile) out = withOption(out, { syntax: AWS_SYNTAX }, ['--profile'], ['--profile', target.profile]);
  if (target.region) out = withOption(out, { syntax: AWS_SYNTAX }, ['--region'], ['--region', target.region]);
  return out;
}
