/**
 * The infrastructure-as-code context of `--workspace <name>` (issue 14 item 7): the state of
 * `terraform.workspaces.<name>.path` read with `terraform show -json` (an argument vector, no shell;
 * `-chdir` so nothing depends on our working directory), flattened to resources by type and address.
 * terraform reads the state offline, but needs the workspace initialised (`terraform init`): it loads
 * the providers' schemas to print the state.
 */
import { withoutSecrets } from '../../core/process/env.js';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import { OperationError, UsageError } from '../../core/errors.js';
import { runCli, type CliTool } from '../../core/kits/cli/runner.js';

export const TERRAFORM_TOOL: CliTool = {
  command: 'terraform',
  installHint: 'install terraform (https://developer.hashicorp.com/terraform/install) and run `terraform init` in the workspace',
  authFailures: [],
  authHint: '',
};

export interface TfResource {
  address: string;
  type: string;
  name: string;
  /** The resource's attributes as in the state (`bucket`, `id`, `tags`…). */
  values: Record<string, unknown>;
}

export interface TfWorkspace {
  name: string;
  path: string;
  resources: TfResource[];
  /** Counts of managed resources by type. */
  by_type: Record<string, number>;
}

/** The workspace `--workspace` names, else `terraform.default_workspace`; undefined when neither is set. */
export function selectedWorkspace(config: Config, flag?: string): { name: string; path: string } | undefined {
  const name = flag ?? config.terraform?.default_workspace;
  if (!name) return undefined;
  const all = config.terraform?.workspaces ?? {};
  if (!Object.hasOwn(all, name)) {
    const known = Object.keys(all);
    throw new UsageError(`the terraform workspace "${name}" is not in the config`, {
      hint: known.length ? `configured workspaces: ${known.join(', ')} (terraform.workspaces)` : 'add terraform.workspaces.<name>.path to ~/.assistant.yaml',
    });
  }
  const path = resolve(all[name]!.path.replace(/^~(?=$|\/)/, process.env.HOME ?? '~'));
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new UsageError(`terraform.workspaces.${name}.path (${path}) is not a directory`, { hint: 'point it at the folder you run terraform in' });
  }
  return { name, path };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Managed resources of `terraform show -json` output, root and child modules. */
export function resourcesOfShow(show: unknown): TfResource[] {
  const out: TfResource[] = [];
  const walk = (module: unknown) => {
    for (const r of arr(obj(module).resources)) {
      const res = obj(r);
      if (res.mode !== 'managed' || typeof res.type !== 'string' || typeof res.address !== 'string') continue;
      out.push({ address: res.address, type: res.type, name: String(res.name ?? ''), values: obj(res.values) });
    }
    for (const child of arr(obj(module).child_modules)) walk(child);
  };
  walk(obj(obj(show).values).root_module);
  return out;
}

export async function readWorkspace(ws: { name: string; path: string }, env: Record<string, string | undefined>, signal: AbortSignal): Promise<TfWorkspace> {
  const out = await runCli({ tool: TERRAFORM_TOOL, args: [`-chdir=${ws.path}`, 'show', '-json', '-no-color'], env: { ...withoutSecrets(env), TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1' }, signal }).catch(
    (err: unknown) => {
      // An uninitialised workspace: terraform cannot load the provider schemas it prints the state with.
      if (err instanceof OperationError && err.code === 'cli_failed' && /plugin schemas|schema for provider|failed to instantiate provider|terraform init|Inconsistent dependency lock/i.test(err.message)) {
        throw new OperationError('terraform_not_initialised', `the terraform workspace "${ws.name}" (${ws.path}) is not initialised: ${err.message}`, {
          hint: `run \`terraform init\` in ${ws.path} (terraform reads the providers' schemas to show a state)`,
        });
      }
      throw err;
    },
  );
  const resources = resourcesOfShow(out.data);
  const by_type: Record<string, number> = {};
  for (const r of resources) by_type[r.type] = (by_type[r.type] ?? 0) + 1;
  return { name: ws.name, path: ws.path, resources, by_type };
}
