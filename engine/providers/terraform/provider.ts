/**
 * terraform as a provider (SPEC 2.5 `terraform.workspaces.<name>.path`, `default_workspace`): questions
 * about a workspace compile to read plans of `["terraform-read", WORKSPACE, "show" | "state-list" |
 * "plan"]`, run by the one executor.
 *
 * Reads run no code from the workspace (DESIGN §8): `show` and `state-list` read the state itself
 * (state.ts: the local backend's file parsed here; another backend through `terraform state pull`,
 * contained). `plan` runs the workspace's providers and data sources, so it is computed only when the
 * user opted in (`ask --terraform-plan`, ConnectOptions.workspaceCode), inside the sandbox of
 * engine/core/process/contain.ts with the workspace read-only and no secret of the assistant; otherwise
 * the read says it was not computed and how to get it. It is never applied and takes no state lock.
 *
 * Default deny: `["terraform-apply", WORKSPACE]` changes real infrastructure and may destroy it, so it
 * is destructive whatever the configuration says (--destroyer, through `ask --apply`). The child gets
 * an environment allowlist (its own TF_ settings and the clouds' credentials), never our AI keys, the
 * gpucloud secret or the backend key.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import type { ArgProblem, ConnectOptions, Provider, StepClass, StepVerb } from '../../core/provider.js';
import type { ContextResult, ProviderCapabilities } from '../../core/capabilities.js';
import { PLACEHOLDER_PATTERN } from '../../../schemas/plan.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { OperationError, UsageError } from '../../core/errors.js';
import { runCli, type CliTool } from '../../core/kits/cli/runner.js';
import { contain, sandboxSettings, type Contained, type SandboxSettings } from '../../core/process/contain.js';
import { configKey, markUsed, tidyPath } from '../../core/credential-sources.js';
import { childEnvironment } from '../../core/process/env.js';
import { ALL_CLOUD_CREDENTIALS, parseState, terraformGrants, workspaceState } from './state.js';
import {
  answerPlan,
  answerShow,
  answerStateList,
  planData,
  planNotComputed,
  showData,
  stateListData,
  terraformRead,
  terraformReadsFor,
  TERRAFORM_READS,
  workspacesFor,
  type PlanData,
  type ShowData,
  type StateListData,
} from './reads.js';

export const TERRAFORM_CLI: CliTool = {
  command: 'terraform',
  installHint: 'install terraform (https://developer.hashicorp.com/terraform/install; `assistant onboarding install terraform`) and run `terraform init` in the workspace',
  authFailures: [],
  authHint: '',
};

const READ_VERB = 'terraform-read';
const APPLY_VERB = 'terraform-apply';
const WORKSPACE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$/;

/**
 * What a terraform child may see (engine/core/process/env.ts): the user's session (HOME for ~/.terraformrc,
 * the plugin cache and the clouds' credential files), its own TF_ settings but TF_LOG (it prints request
 * bodies), and the variables the clouds it manages read; never what the deny list holds (AI keys, the
 * gpucloud secret, the backend key, tokens).
 */
const TERRAFORM_ENV = [/^TF_(?!LOG)/, /^AWS_/, /^GOOGLE_/, /^CLOUDSDK_/, /^ARM_/, /^AZURE_/, /^KUBE/, /^HELM_/, 'VAULT_ADDR', 'CONSUL_HTTP_ADDR'];

export function terraformChildEnv(env: Record<string, string | undefined>): Record<string, string> {
  return childEnvironment(env, { session: true, allow: TERRAFORM_ENV, set: { TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1' } });
}

export interface TerraformClient {
  workspace(name: string): { name: string; path: string };
  env: Record<string, string>;
  /** Where workspace code runs when it must (a non-local backend's pull, an opted-in plan). */
  sandbox: SandboxSettings;
  /** The user opted in to computing plans (`ask --terraform-plan`). */
  plans: boolean;
}

/** A configured workspace's folder; an unknown name or a missing folder is a usage error naming what is configured. */
export function workspacePath(config: Config, home: string, name: string): { name: string; path: string } {
  const all = config.terraform?.workspaces ?? {};
  const ws = Object.hasOwn(all, name) ? all[name] : undefined;
  if (!ws) {
    const known = Object.keys(all);
    throw new UsageError(known.length ? `the terraform workspace "${name}" is not in the config (configured: ${known.join(', ')})` : `no terraform workspace is configured (asked for "${name}")`, {
      hint: 'add terraform.workspaces.<name>.path (the folder you run terraform in) to ~/.assistant.yaml',
    });
  }
  const expanded = ws.path.replace(/^~(?=$|[/\\])/, home);
  const path = isAbsolute(expanded) ? expanded : resolvePath(home, expanded);
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new UsageError(`terraform.workspaces.${name}.path (${path}) is not a directory`, { hint: 'point it at the folder you run terraform in' });
  return { name, path };
}

const NOT_INITIALISED = /plugin schemas|schema for provider|failed to instantiate provider|terraform init|Inconsistent dependency lock|Required plugins are not installed|Backend initialization required|Module not installed/i;

function notInitialised(ws: { name: string; path: string }, why: string): OperationError {
  return new OperationError('terraform_not_initialised', `the terraform workspace "${ws.name}" (${ws.path}) is not initialised: ${why}`, {
    hint: `run \`terraform init\` in ${ws.path}`,
  });
}

async function terraform(client: TerraformClient, ws: { name: string; path: string }, args: string[], signal: AbortSignal, okExitCodes?: number[], contained?: Contained) {
  return runCli({ tool: TERRAFORM_CLI, args: [`-chdir=${ws.path}`, ...args], env: client.env, signal, okExitCodes, contained }).catch((err: unknown) => {
    if (err instanceof OperationError && err.code === 'cli_failed' && NOT_INITIALISED.test(err.message)) throw notInitialised(ws, err.message);
    throw err;
  });
}

/** Errors a `-json` run printed on stdout, as one failure (a plan that could not be computed). */
function failedRun(ws: { name: string; path: string }, what: string, data: PlanData): OperationError {
  const errors = data.diagnostics.filter((d) => d.severity === 'error');
  const text = errors.map((d) => `${d.summary}${d.detail ? `: ${d.detail}` : ''}`).join(' / ') || 'it failed without a diagnostic';
  if (NOT_INITIALISED.test(text)) return notInitialised(ws, text);
  return new OperationError('terraform_failed', `terraform ${what} of workspace "${ws.name}" failed: ${text}`, { hint: `run \`terraform ${what}\` in ${ws.path} to see more` });
}

const substituteWorkspace = (args: readonly string[], bindings: Record<string, string>) =>
  args.map((a, i) => (i === 1 ? a.replace(new RegExp(PLACEHOLDER_PATTERN.source, 'g'), (w, n: string) => bindings[n] ?? w) : a));

function checkWorkspace(args: readonly string[]): ArgProblem[] {
  const w = args[1] ?? '';
  return WORKSPACE_NAME.test(w) || hasPlaceholder(w) ? [] : [{ field: 'args[1]', message: `"${w}" is not a workspace name (terraform.workspaces.<name>)` }];
}

export const terraformReadVerb: StepVerb<TerraformClient> = {
  verb: READ_VERB,
  checkArgs(args) {
    const problems: ArgProblem[] = [];
    const names = TERRAFORM_READS.map((r) => r.name).join(', ');
    if (args.length !== 3) problems.push({ field: 'args', message: `${READ_VERB} steps are ["${READ_VERB}", WORKSPACE, READ] with READ one of ${names}` });
    problems.push(...checkWorkspace(args));
    if (!terraformRead(args[2] ?? '') && !hasPlaceholder(args[2] ?? '')) problems.push({ field: 'args[2]', message: `unknown terraform read "${args[2] ?? ''}" (known: ${names}); an apply is a terraform-apply step and needs --destroyer` });
    return problems;
  },
  classify(args): StepClass {
    if (!terraformRead(args[2] ?? '')) return { effect: 'destroy', reasons: [`${READ_VERB} ${args[2] ?? ''}: not a known read`] };
    return { effect: 'read', kind: args[2], reasons: [] };
  },
  substitute: substituteWorkspace,
  async run(args, ctx) {
    const client = await ctx.client();
    const ws = client.workspace(args[1]!);
    switch (args[2]) {
      case 'show':
      case 'state-list': {
        const state = parseState(await workspaceState(TERRAFORM_CLI, ws, { env: client.env, sandbox: client.sandbox, signal: ctx.signal }));
        return { data: args[2] === 'show' ? showData(ws, state) : stateListData(ws, state) };
      }
      case 'plan': {
        if (!client.plans) return { data: planNotComputed(ws) };
        // -lock=false: a question never takes the state lock from someone applying; the plan is not saved.
        const planArgs = ['plan', '-json', '-input=false', '-lock=false', '-no-color'];
        const contained = contain({
          what: `terraform plan of workspace "${ws.name}" (it runs the workspace's providers and data sources)`,
          command: TERRAFORM_CLI.command,
          args: [`-chdir=${ws.path}`, ...planArgs],
          env: client.env,
          network: true,
          readOnly: terraformGrants(ws.path, client.env, client.sandbox.home, ALL_CLOUD_CREDENTIALS),
          hidden: client.sandbox.hidden,
          home: client.sandbox.home,
          unsandboxed: client.sandbox.unsandboxed,
        });
        const out = await terraform(client, ws, planArgs, ctx.signal, [1], contained);
        const data = planData(ws, out.data);
        if (out.code !== 0) throw failedRun(ws, 'plan', data);
        return { data };
      }
      default:
        throw new UsageError(`unknown terraform read "${args[2]}"`);
    }
  },
  describe: (args) => `terraform ${args[1]}: ${terraformRead(args[2] ?? '')?.label ?? args[2]}`,
};

export const terraformApplyVerb: StepVerb<TerraformClient> = {
  verb: APPLY_VERB,
  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length !== 2) problems.push({ field: 'args', message: `${APPLY_VERB} steps are ["${APPLY_VERB}", WORKSPACE]` });
    return [...problems, ...checkWorkspace(args)];
  },
  classify: (args) => ({ effect: 'destroy', reasons: [`terraform apply in workspace ${args[1] ?? ''}: changes real infrastructure and may destroy resources (a plan step that applies is destructive by default)`] }),
  substitute: substituteWorkspace,
  async run(args, ctx) {
    const client = await ctx.client();
    const ws = client.workspace(args[1]!);
    const out = await terraform(client, ws, ['apply', '-auto-approve', '-json', '-input=false', '-no-color'], ctx.signal, [1]);
    const data = planData(ws, out.data);
    if (out.code !== 0) throw failedRun(ws, 'apply', data);
    return { data: { workspace: ws.name, path: ws.path, applied: data.summary ?? null, diagnostics: data.diagnostics } };
  },
  describe: (args) => `terraform apply in workspace ${args[1]}`,
};

/** The answer without a model: one paragraph per read. */
export function answerTerraform(question: string, results: readonly ContextResult[]): string | undefined {
  const parts: string[] = [];
  for (const r of results) {
    if (r.args[0] !== READ_VERB || !r.data) continue;
    if (r.args[2] === 'show') parts.push(answerShow(r.data as ShowData, question));
    else if (r.args[2] === 'state-list') parts.push(answerStateList(r.data as StateListData));
    else if (r.args[2] === 'plan') parts.push(answerPlan(r.data as PlanData));
  }
  return parts.length ? parts.join('\n') : undefined;
}

const workspacesOf = (config: Config) => Object.keys(config.terraform?.workspaces ?? {});

export const terraformCapabilities: ProviderCapabilities = {
  routing: {
    names: ['terraform', 'opentofu', 'tofu', 'iac', 'infrastructure as code'],
    specific: ['tfstate', 'terraform state', 'state list', 'terraform plan', 'workspace', 'workspaces', 'hcl', 'terraform_data'],
    generic: ['state', 'drift', 'outputs', 'pending changes', 'managed resources'],
  },
  reads: {
    label: 'the terraform workspaces',
    prompt: 'Resources (address, type, ID) and non-sensitive outputs of terraform workspaces, and what `terraform plan` would change now; nothing was applied.',
    contextReads(question, { config }) {
      const workspaces = workspacesFor(question, workspacesOf(config), config.terraform?.default_workspace);
      const reads = terraformReadsFor(question);
      return {
        commands: workspaces.flatMap((w) => reads.map((r) => ({ args: [READ_VERB, w, r.name], reason: `context: ${r.label} (${w})` }))),
        kinds: workspaces.flatMap((w) => reads.map((r) => `terraform/${w}/${r.name}`)),
      };
    },
  },
  answer: { answer: (question, results) => answerTerraform(question, results) },
  credentials: {
    sources: (input) => {
      const ws = workspacesOf(input.config);
      return markUsed([{ kind: 'config', where: configKey(input, ['terraform.workspaces']), present: ws.length > 0, ...(ws.length ? { note: `workspaces: ${ws.join(', ')}` } : {}) }]);
    },
    scan: {
      title: 'terraform (infrastructure-as-code workspaces)',
      setup: (input) => [{ why: `terraform: name a workspace (terraform.workspaces.<name>.path) in ${tidyPath(input.configPath, input.home)} to use --workspace` }],
    },
    async test(read, ctx) {
      const config = ctx?.config;
      const workspaces = config ? workspacesFor('', workspacesOf(config), config.terraform?.default_workspace) : ['default'];
      const data = (await read({ version: 1, provider: 'terraform', commands: workspaces.map((w) => ({ args: [READ_VERB, w, 'show'], reason: `credentials test: read workspace ${w}` })) })) as ShowData[];
      return {
        detail: data.map((d) => `${d.workspace}: ${d.resources.length} resource(s) in the state${d.terraform_version ? ` (terraform ${d.terraform_version})` : ''}`).join('; '),
        data: { workspaces: data.map((d) => ({ workspace: d.workspace, path: d.path, resources: d.resources.length })) },
      };
    },
  },
  classify: {
    table: () => [
      { operation: `${READ_VERB} <workspace> show`, verdict: 'read', why: 'the state, read as data (a local backend: its file; another: terraform state pull, contained); no workspace code runs' },
      { operation: `${READ_VERB} <workspace> state-list`, verdict: 'read', why: 'the addresses in the state, read as data' },
      { operation: `${READ_VERB} <workspace> plan`, verdict: 'read', why: 'terraform plan -json -lock=false, contained, only with ask --terraform-plan: computed, not saved, never applied' },
      { operation: `${APPLY_VERB} <workspace>`, verdict: 'destructive', why: 'terraform apply changes real infrastructure and may destroy resources' },
    ],
  },
};

export const terraformProvider: Provider<TerraformClient> = {
  name: 'terraform',
  verbs: [terraformReadVerb, terraformApplyVerb],
  capabilities: terraformCapabilities,
  async connect(opts: ConnectOptions) {
    const sandbox = sandboxSettings({ home: opts.home, configPath: opts.configPath, unsandboxed: opts.workspaceCode?.unsandboxed });
    const client: TerraformClient = { workspace: (name) => workspacePath(opts.config, opts.home, name), env: terraformChildEnv(opts.env), sandbox, plans: Boolean(opts.workspaceCode?.plan) };
    const names = workspacesOf(opts.config);
    return { client, source: names.length ? `terraform.workspaces (${names.join(', ')})` : 'no terraform.workspaces configured' };
  },
};
