/**
 * The aws profile and region cloud_a's steps run with (`--profile`, the aws CLI's own variables, or
 * `infra.default_environment`), in a module of its own: its credential sources (credentials.ts) read it
 * without loading the step code.
 */
import type { Config } from '../../../schemas/config.js';
import { UsageError } from '../../core/errors.js';

/** The profile and region the steps run with, and where they came from. */
export interface AwsTarget {
  profile?: string;
  region?: string;
  source: string;
}

/**
 * `--profile <name>` (an environment of infra.cloud_a.environments, or else an aws profile), then the
 * aws CLI's own AWS_PROFILE / AWS_REGION when set, then infra.default_environment; none of them: the CLI's defaults.
 */
export function resolveAwsTarget(config: Config, env: Record<string, string | undefined>, selected?: string): AwsTarget {
  const environments = config.infra?.cloud_a?.environments ?? {};
  const fromEnvironment = (name: string, how: string): AwsTarget => {
    const e = environments[name]!;
    return { profile: e.profile, region: e.region, source: `${how} environment "${name}" (infra.cloud_a.environments)` };
  };
  if (selected) {
    if (Object.hasOwn(environments, selected)) return fromEnvironment(selected, '--profile');
    return { profile: selected, source: `--profile ${selected} (an aws profile)` };
  }
  if (env.AWS_PROFILE || env.AWS_REGION || env.AWS_DEFAULT_REGION) {
    return { source: `the environment (${['AWS_PROFILE', 'AWS_REGION', 'AWS_DEFAULT_REGION'].filter((k) => env[k]).join(', ')})` };
  }
  const name = config.infra?.default_environment;
  if (name) {
    if (!Object.hasOwn(environments, name)) {
      throw new UsageError(`infra.default_environment is "${name}", which infra.cloud_a.environments does not define`, {
        hint: `add infra.cloud_a.environments.${name} (profile, region) to the config, or pick another with --profile`,
      });
    }
    return fromEnvironment(name, 'default');
  }
  return { source: 'the aws CLI defaults (~/.aws/config)' };
}
