/**
 * A provider whose steps are one cloud CLI's command lines (cloud_a `aws`, cloud_b `gcloud`, cloud_c
 * `az`): one verb named after the executable, classified by the cloud's rules table, and a client that
 * adds the cloud's own options (JSON output, profile/region, project, subscription) and runs the CLI
 * through the shared runner. A cloud supplies only what differs.
 */
import type { ConnectOptions, NameLookup, Provider } from '../provider.js';
import { option, parseCommand } from './argv.js';
import { runCli, type CliTool } from './runner.js';
import { cliVerb, type CliClient, type CliVerbSpec } from './verb.js';

/** What a connected CLI provider adds to every command, and where its settings came from. */
export interface CliTarget {
  /** The args with the provider's additions (only those the step does not give itself). */
  add(args: readonly string[]): string[];
  /** Variables set for the child on top of the caller's environment (no pager, no prompts). */
  env: Record<string, string>;
  source: string;
}

export interface CliProviderSpec extends CliVerbSpec {
  name: string;
  tool: CliTool;
  /** Settings from config, environment and flags; throws a UsageError for a bad selection. */
  target(opts: ConnectOptions): CliTarget;
  names?: NameLookup<CliClient>;
  /** Prices what its steps create (dry run, budget guard). */
  preview?: Provider<CliClient>['preview'];
  /** What the account burns now, for the budget guard. */
  burn?: Provider<CliClient>['burn'];
  capabilities?: Provider<CliClient>['capabilities'];
}

/** The client of a CLI provider: runs the args after the executable's name with the target's additions. */
export function cliClient(tool: CliTool, target: CliTarget, env: Record<string, string | undefined>): CliClient {
  // The cloud's CLI gets its own settings, not this tool's secrets (gpucloud credentials, assistant settings).
  const childEnv: Record<string, string | undefined> = { ...target.env };
  for (const [k, v] of Object.entries(env)) if (!/^(GPUCLOUD_|ASSISTANT_)/.test(k) && !(k in target.env)) childEnv[k] = v;
  return { run: (args, signal) => runCli({ tool, args: target.add(args), env: childEnv, signal }) };
}

export function cliProvider(spec: CliProviderSpec): Provider<CliClient> & { verb: ReturnType<typeof cliVerb> } {
  const verb = cliVerb(spec);
  return {
    name: spec.name,
    verbs: [verb],
    verb,
    names: spec.names,
    preview: spec.preview,
    burn: spec.burn,
    capabilities: spec.capabilities,
    async connect(opts) {
      const target = spec.target(opts);
      opts.debug?.(`${spec.name}: ${spec.tool.command} CLI with settings from ${target.source}`);
      return { client: cliClient(spec.tool, target, opts.env), source: target.source };
    },
  };
}

/** Appends `option value` unless the step already gives the option (in any spelling the CLI accepts). */
export function withOption(args: readonly string[], spec: Pick<CliVerbSpec, 'syntax'>, names: readonly string[], add: readonly string[]): string[] {
  const cmd = parseCommand(args, spec.syntax);
  return names.some((n) => option(cmd, n) !== undefined) ? [...args] : [...args, ...add];
}
