/**
 * The infrastructure-as-code context of `--workspace <name>` (issue 14 item 7): the state of
 * `terraform.workspaces.<name>.path`, flattened to resources by type and address. It is read as data,
 * the way the terraform provider's reads do (engine/providers/terraform/state.ts): a local backend's
 * file parsed here, another backend through `terraform state pull` in a sandbox; never `terraform show`,
 * which runs the workspace's provider binaries.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import { UsageError } from '../../core/errors.js';
import { expandHome } from '../../core/home-path.js';
import { TERRAFORM_CLI, type TerraformClient } from '../../providers/terraform/provider.js';
import { parseState, workspaceState } from '../../providers/terraform/state.js';

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

/**
 * The workspace `--workspace` names, else `terraform.default_workspace`; undefined when neither is set.
 * `~` in its path is the command's home (its HOME), not this process's: a command run in-process by a test
 * has its own. Without a home, `~` is a folder name like any other, under the working directory.
 */
export function selectedWorkspace(config: Config, home: string | undefined, flag?: string): { name: string; path: string } | undefined {
  const name = flag ?? config.terraform?.default_workspace;
  if (!name) return undefined;
  const all = config.terraform?.workspaces ?? {};
  if (!Object.hasOwn(all, name)) {
    const known = Object.keys(all);
    throw new UsageError(`the terraform workspace "${name}" is not in the config`, {
      hint: known.length ? `configured workspaces: ${known.join(', ')} (terraform.workspaces)` : 'add terraform.workspaces.<name>.path to ~/.assistant.yaml',
    });
  }
  const path = home === undefined ? resolve(all[name]!.path) : resolve(expandHome(all[name]!.path, home));
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new UsageError(`terraform.workspaces.${name}.path (${path}) is not a directory`, { hint: 'point it at the folder you run terraform in' });
  }
  return { name, path };
}

/**
 * The workspace's state through the terraform provider's client (the session's: under --sandbox it is
 * refused like any provider without a stand-in), read as data.
 */
export async function readWorkspace(ws: { name: string; path: string }, client: TerraformClient, signal: AbortSignal): Promise<TfWorkspace> {
  const state = parseState(await workspaceState(TERRAFORM_CLI, ws, { env: client.env, sandbox: client.sandbox, signal }));
  const resources: TfResource[] = state.instances.filter((r) => r.mode === 'managed').map((r) => ({ address: r.address, type: r.type, name: r.name, values: r.values }));
  const by_type: Record<string, number> = {};
  for (const r of resources) by_type[r.type] = (by_type[r.type] ?? 0) + 1;
  return { name: ws.name, path: ws.path, resources, by_type };
}
