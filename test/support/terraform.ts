/**
 * A local terraform workspace for tests: a state file written by the test, initialised offline from a
 * provider mirror on this machine (`terraform show -json` loads the aws provider's schema, so the
 * workspace must be initialised; nothing may download). Without terraform or the mirror, tests print
 * one SKIP line and pass (.ci/run says how to get them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** Where the hashicorp/aws provider is mirrored (`<mirror>/registry.terraform.io/hashicorp/aws/…`). */
export const TF_PLUGIN_MIRROR = process.env.TF_PLUGIN_MIRROR ?? '/opt/tf-plugins';

/** Why terraform tests cannot run here, or undefined when they can. */
export function terraformMissing(): string | undefined {
  if (spawnSync('sh', ['-c', 'command -v terraform'], { stdio: 'ignore' }).status !== 0) return 'terraform not on PATH (see .ci/run)';
  if (!existsSync(join(TF_PLUGIN_MIRROR, 'registry.terraform.io', 'hashicorp', 'aws'))) return `no hashicorp/aws provider mirror at ${TF_PLUGIN_MIRROR} (set TF_PLUGIN_MIRROR; see .ci/run)`;
  return undefined;
}

export interface StateResource {
  type: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** A folder holding terraform.tfstate with these resources, `terraform init`-ed from the mirror. */
export function terraformWorkspace(resources: StateResource[]): string {
  const dir = tempDir('tf-ws-');
  const rc = join(dir, '.terraformrc');
  writeFileSync(
    rc,
    `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(TF_PLUGIN_MIRROR)}\n    include = ["registry.terraform.io/*/*"]\n  }\n  direct { exclude = ["registry.terraform.io/*/*"] }\n}\n`,
  );
  writeFileSync(join(dir, 'main.tf'), 'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n');
  const state = {
    version: 4,
    terraform_version: '1.5.0',
    serial: 1,
    lineage: 'test-lineage',
    outputs: {},
    resources: resources.map((r) => ({
      mode: 'managed',
      type: r.type,
      name: r.name,
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [{ schema_version: 0, attributes: r.attributes }],
    })),
  };
  writeFileSync(join(dir, 'terraform.tfstate'), JSON.stringify(state));
  const init = spawnSync('terraform', ['init', '-input=false', '-no-color'], {
    cwd: dir,
    env: { ...process.env, TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (init.status !== 0) throw new Error(`terraform init failed: ${init.stderr}`);
  return dir;
}

/** Why the terraform_data tests cannot run here (terraform itself missing), or undefined. */
export function terraformCliMissing(): string | undefined {
  return spawnSync('sh', ['-c', 'command -v terraform'], { stdio: 'ignore' }).status !== 0 ? 'terraform not on PATH (see .ci/run)' : undefined;
}

/**
 * A workspace of built-in `terraform_data` resources only (no provider to download: the machine cannot
 * reach the registry), `terraform init`-ed, and applied when `apply` is set. Returns its folder.
 */
export function terraformDataWorkspace(mainTf: string, opts: { apply?: boolean; parent?: string } = {}): string {
  const dir = opts.parent ? mkdtempSync(join(opts.parent, 'tf-data-')) : tempDir('tf-data-');
  writeFileSync(join(dir, 'main.tf'), mainTf);
  const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: join(dir, 'none.tfrc') };
  writeFileSync(join(dir, 'none.tfrc'), '');
  for (const args of [['init', '-input=false', '-no-color'], ...(opts.apply ? [['apply', '-auto-approve', '-input=false', '-no-color']] : [])]) {
    const r = spawnSync('terraform', args, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`terraform ${args[0]} failed: ${r.stderr}${r.stdout}`);
  }
  return dir;
}
