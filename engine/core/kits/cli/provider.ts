/**
 * A provider whose steps are one cloud CLI's command lines (cloud_a `aws`, cloud_b `gcloud`, cloud_c
 * `az`): one verb named after the executable, classified by the cloud's allowlist, and a client that
 * adds the cloud's own options (JSON output, profile/region, project, subscription) and runs the CLI
 * through the shared runner, isolated (engine/core/kits/cli/isolation.ts): a scratch HOME and working directory,
 * a generated configuration holding only what the step needs, and an environment allowlist
 * (engine/core/process/env.ts). A cloud supplies only what differs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectOptions, NameLookup, Provider } from '../../provider.js';
import { childEnvironment, type EnvRule } from '../../process/env.js';
import { kubeconfigPathFor, mergeContext } from '../../kubeconfig/kubeconfig-write.js';
import { sanitiseKubeconfig, type ExecPolicy } from '../../kubeconfig/sanitise.js';
import { option, parseCommand } from './argv.js';
import { OperationError } from '../../errors.js';
import { makeScratch } from './isolation.js';
import { runCli, type CliOutput, type CliTool } from './runner.js';
import { cliVerb, type CliClient, type CliVerbSpec } from './verb.js';

/** What a connected CLI provider adds to every command, and where its settings came from. */
export interface CliTarget {
  /** The args with the provider's additions (only those the step does not give itself). */
  add(args: readonly string[]): string[];
  /** Variables set for the child on top of the allowlisted environment (no pager, no prompts). */
  env: Record<string, string>;
  source: string;
  /** What each companion tool (CliProviderSpec.companions) adds to its own args; nothing when absent. */
  companions?: Record<string, (args: readonly string[]) => string[]>;
}

/** How a cloud's CLI is isolated and what of the user's environment it may see. */
export interface CliIsolation {
  /** The provider's own credential and setting variables (AWS_ACCESS_KEY_ID, CLOUDSDK_CORE_PROJECT, …). */
  allowEnv: readonly EnvRule[];
  /** Writes the step's configuration into the scratch directory; returns the variables pointing the CLI at it. */
  configure(scratch: string, args: readonly string[], opts: { env: Record<string, string | undefined>; home: string }): Record<string, string>;
  /**
   * Commands that write a kubeconfig (`aws eks update-kubeconfig`): the args and variables that make the
   * CLI write it into the scratch directory instead, and which credential plugin its user entry may
   * run. The provider then sanitises it and merges it into the user's kubeconfig itself.
   */
  kubeconfig?: { writes(args: readonly string[]): boolean; redirect(args: readonly string[], path: string): { args: string[]; env: Record<string, string> }; exec: ExecPolicy };
}

/**
 * A second executable of the same cloud, a verb of its own with its own allowlist, run by the same
 * client with the same isolation and login (cloud_b's `bq` beside `gcloud`: both read the Cloud SDK's
 * configuration). Kubeconfig handling stays the main tool's.
 */
export interface CliCompanion extends CliVerbSpec {
  tool: CliTool;
}

export interface CliProviderSpec extends CliVerbSpec {
  name: string;
  tool: CliTool;
  companions?: readonly CliCompanion[];
  /** Settings from config, environment and flags; throws a UsageError for a bad selection. */
  target(opts: ConnectOptions): CliTarget;
  isolation: CliIsolation;
  names?: NameLookup<CliClient>;
  /** Prices what its steps create (dry run, budget guard). */
  preview?: Provider<CliClient>['preview'];
  /** What the account burns now, for the budget guard. */
  burn?: Provider<CliClient>['burn'];
  capabilities?: Provider<CliClient>['capabilities'];
}

/** What the client needs of the session besides the target. */
export type CliConnect = Pick<ConnectOptions, 'env' | 'home' | 'config' | 'filesDir'>;

/** The client of a CLI provider: runs the args after the executable's name with the target's additions, isolated. */
export function cliClient(tool: CliTool, target: CliTarget, isolation: CliIsolation, opts: CliConnect, companions: readonly CliTool[] = []): CliClient {
  const run = async (args: readonly string[], signal: AbortSignal, command = tool.command): Promise<CliOutput> => {
    const main = command === tool.command;
    const runTool = main ? tool : companions.find((c) => c.command === command);
    if (!runTool) throw new OperationError('internal', `${command} is not a command of this provider`);
    let finalArgs = main ? target.add(args) : (target.companions?.[command]?.(args) ?? [...args]);
    const scratch = makeScratch(opts.env);
    try {
      const configured = isolation.configure(scratch.dir, finalArgs, { env: opts.env, home: opts.home });
      const kube = main && isolation.kubeconfig?.writes(finalArgs) ? isolation.kubeconfig : undefined;
      const kubePath = join(scratch.dir, 'kubeconfig');
      let kubeEnv: Record<string, string> = {};
      if (kube) ({ args: finalArgs, env: kubeEnv } = kube.redirect(finalArgs, kubePath));
      const env = childEnvironment(opts.env, {
        allow: isolation.allowEnv,
        set: { ...target.env, ...configured, ...kubeEnv, HOME: scratch.dir, USERPROFILE: scratch.dir, TMPDIR: scratch.dir },
      });
      const out = await runCli({ tool: runTool, args: finalArgs, env, signal, cwd: scratch.dir });
      if (kube && existsSync(kubePath)) return { ...out, data: await mergeWritten(tool.command, readFileSync(kubePath, 'utf8'), kube.exec, opts, out.data) };
      return out;
    } finally {
      scratch.remove();
    }
  };
  return { run, filesDir: opts.filesDir };
}

/** The kubeconfig a CLI wrote in the scratch directory, sanitised and merged into the user's as its current context. */
async function mergeWritten(tool: string, text: string, exec: ExecPolicy, opts: CliConnect, printed: unknown): Promise<unknown> {
  const clean = sanitiseKubeconfig(text, { source: `the kubeconfig \`${tool}\` wrote`, exec });
  const path = kubeconfigPathFor(opts.config, opts.env, opts.home);
  const merged = await mergeContext(path, clean.context, clean, { useContext: true });
  return { context: clean.context, kubeconfig: merged.path, server: clean.server, current_context: merged.currentContext, replaced: merged.replaced, output: printed };
}

export function cliProvider(spec: CliProviderSpec): Provider<CliClient> & { verb: ReturnType<typeof cliVerb> } {
  const verb = cliVerb(spec);
  const companions = spec.companions ?? [];
  return {
    name: spec.name,
    verbs: [verb, ...companions.map(cliVerb)],
    verb,
    names: spec.names,
    preview: spec.preview,
    burn: spec.burn,
    capabilities: spec.capabilities,
    async connect(opts) {
      const target = spec.target(opts);
      opts.debug?.(`${spec.name}: ${spec.tool.command} CLI with settings from ${target.source}; isolated configuration and environment`);
      return { client: cliClient(spec.tool, target, spec.isolation, opts, companions.map((c) => c.tool)), source: target.source };
    },
  };
}

/** Appends `option value` unless the step already gives the option (in any spelling the CLI accepts). */
export function withOption(args: readonly string[], spec: Pick<CliVerbSpec, 'syntax'>, names: readonly string[], add: readonly string[]): string[] {
  const cmd = parseCommand(args, spec.syntax);
  return names.some((n) => option(cmd, n) !== undefined) ? [...args] : [...args, ...add];
}
