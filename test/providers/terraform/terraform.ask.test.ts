/**
 * terraform questions through the CLI with the real terraform binary on workspaces of built-in
 * `terraform_data` resources (nothing to download): routed by the question's words, by --terraform or
 * by --workspace; the state (show, state list) and a plan that is never applied; a combined view; clear
 * errors for an uninitialised or broken workspace; a hanging terraform cut by --timeout; sensitive
 * values and our own secrets kept from the answer, the model and the child; terraform-apply refused
 * without --destroyer.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli as runCliIn, type RunCliOptions } from '../../support/cli.js';
import { terraformCliMissing, terraformDataWorkspace } from '../../support/terraform.js';
import { standIn } from '../../support/standin.js';
import { askWithScriptedModel, textOf } from '../../support/mcp.js';
import { testWhen } from '../../support/skip.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const SENSITIVE = 'hunter2-sensitive-output';
const MAIN_TF = `
resource "terraform_data" "web" { input = "v1" }
resource "terraform_data" "db" { input = { size = 10 } }
output "url" { value = "http://web.internal" }
output "db_password" {
  value     = "${SENSITIVE}"
  sensitive = true
}
`;
const missing = terraformCliMissing();
const root = mkdtempSync(join(tmpdir(), 'tf-ask-'));
let prod = '';
let staging = '';
let applyWs = '';
let raw = '';

const home = () => mkdtempSync(join(root, 'home-'));
const runCli = (args: string[], opts: RunCliOptions = {}) => runCliIn(args, { ...opts, home: opts.home ?? home() });

function config(extraWorkspaces = ''): string {
  const file = join(mkdtempSync(join(root, 'config-')), 'config.yaml');
  writeFileSync(
    file,
    `terraform:
  default_workspace: prod
  workspaces:
    prod: { path: ${JSON.stringify(prod)} }
    staging: { path: ${JSON.stringify(staging)} }
    applyme: { path: ${JSON.stringify(applyWs)} }
    raw: { path: ${JSON.stringify(raw)} }
${extraWorkspaces}infra:
  cloud_b:
    project_id: my-proj
`,
    { mode: 0o600 },
  );
  return file;
}

const tfEnv = { OPENAI_API_KEY: 'sk-never-for-terraform-123456', GPUCLOUD_CLIENT_SECRET: 'gpucloud-secret-never-123' };

test.before(() => {
  if (missing) return;
  prod = terraformDataWorkspace(MAIN_TF, { apply: true, parent: root });
  // Applied, then the configuration moved on: a plan has something to say.
  staging = terraformDataWorkspace(MAIN_TF, { apply: true, parent: root });
  writeFileSync(join(staging, 'main.tf'), `${MAIN_TF.replace('"v1"', '"v2"')}\nresource "terraform_data" "cache" { input = "c" }\n`);
  applyWs = terraformDataWorkspace('resource "terraform_data" "one" { input = 1 }\n', { parent: root });
  raw = mkdtempSync(join(root, 'raw-'));
  writeFileSync(join(raw, 'main.tf'), 'terraform {\n  required_providers {\n    nothere = { source = "example.com/none/nothere" }\n  }\n}\n');
});

test.after(() => rmSync(root, { recursive: true, force: true }));

/** A test that runs when the server is here, else reports its skip with the reason (the runner counts it). */
const skip = testWhen(test, () => missing);

skip('a question about the terraform state is routed by its words and answered from terraform show -json; sensitive values stay out', async () => {
  const cfg = config();
  const route = await runCli(['--config', cfg, 'ask', '--route-only', '-o', 'json', 'which resources are in the tfstate?'], { env: tfEnv });
  assert.is(route.code, 0, route.stderr);
  const doc = JSON.parse(route.stdout);
  assert.equal(doc.providers, ['terraform']);
  assert.equal(doc.context_kinds, ['terraform/prod/show']);

  const r = await runCli(['--config', cfg, '--debug', 'ask', '--ai-profile', 'builtin', 'which resources are in the tfstate?'], { env: tfEnv });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Terraform workspace prod \(.*\): 2 resources \(2 terraform_data\):\n- terraform_data\.db \(id [0-9a-f-]+\)\n- terraform_data\.web \(id [0-9a-f-]+\)\n/m);
  assert.match(r.stdout, /Outputs: db_password \(sensitive, not shown\), url = "http:\/\/web\.internal"/);
  assert.not.ok((r.stdout + r.stderr).includes(SENSITIVE), 'a sensitive output never reaches the answer or --debug');
  assert.match(r.stderr, /step 0 started: terraform prod: the resources in the state/, '--debug shows the read plan');
});

skip('--terraform selects terraform; with --terraform-plan a plan question runs terraform plan -json (contained) and applies nothing', async () => {
  const before = readFileSync(join(staging, 'terraform.tfstate'), 'utf8');
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--terraform', '--terraform-plan', 'in staging, what would an apply change?'], { env: tfEnv });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Terraform plan of workspace staging: 1 to add, 1 to change, 0 to destroy \(nothing was applied\):\n- terraform_data\.cache: create\n- terraform_data\.web: update/m);
  assert.is(readFileSync(join(staging, 'terraform.tfstate'), 'utf8'), before, 'the state is untouched');
});

skip('--workspace alone sends a question nothing else claims to terraform, with that workspace', async () => {
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--workspace', 'staging', 'list the addresses'], { env: tfEnv });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Terraform workspace staging: 2 addresses in the state:\n- terraform_data\.db\n- terraform_data\.web$/m);
});

skip('terraform and cloud_b in one combined view', async () => {
  const g = standIn('gcloud', [{ match: 'compute instances list', stdout: [{ name: 'train-1', status: 'RUNNING', zone: 'z/europe-west4-a', machineType: 'm/a2' }] }], { dir: mkdtempSync(join(root, 'standin-')) });
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--terraform', '--cloud-b', 'what is deployed?'], { env: { ...tfEnv, PATH: g.path } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 Compute Engine instance:\n- train-1/);
  assert.match(r.stdout, /Terraform workspace prod .*: 2 resources/);
});

skip('an uninitialised workspace, a broken configuration and an unknown workspace are said clearly', async () => {
  const notInit = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--terraform', '--terraform-plan', 'raw pending changes'], { env: tfEnv });
  assert.is(notInit.code, 1, notInit.stdout);
  assert.match(notInit.stderr, /^error: terraform_not_initialised: the terraform workspace "raw" .* is not initialised/m);
  assert.match(notInit.stderr, /^hint: run `terraform init` in /m);

  const broken = terraformDataWorkspace('resource "terraform_data" "x" { input = 1 }\n', { parent: root });
  writeFileSync(join(broken, 'main.tf'), 'resource "terraform_data" "x" { input = var.missing }\n');
  const bad = await runCli(['--config', config(`    broken: { path: ${JSON.stringify(broken)} }\n`), 'ask', '--ai-profile', 'builtin', '--terraform', '--terraform-plan', 'broken plan'], { env: tfEnv });
  assert.is(bad.code, 1, bad.stdout);
  assert.match(bad.stderr, /^error: terraform_failed: terraform plan of workspace "broken" failed: Reference to undeclared input variable/m);

  const unknown = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--workspace', 'nope', 'terraform state'], { env: tfEnv });
  assert.is(unknown.code, 2, unknown.stdout);
  assert.match(unknown.stderr, /^error: usage: the terraform workspace "nope" is not in the config/m);
});

skip('a terraform that hangs cannot hold ask past --timeout', async () => {
  // Reads no longer run terraform (the state is read as data); the plan does, in its sandbox.
  const bin = mkdtempSync(join(root, 'slow-'));
  writeFileSync(join(bin, 'terraform'), '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  const r = await runCli(['--config', config(), '--timeout', '2', 'ask', '--ai-profile', 'builtin', '--terraform-plan', 'terraform plan'], { env: { ...tfEnv, PATH: `${bin}:${process.env.PATH}` } });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /error: timeout: /);
});

skip('the terraform child gets the allowlist: its TF_ settings and cloud credentials, never our AI keys or the gpucloud secret', async () => {
  // The plan is the read that runs terraform (contained, nothing it writes survives): the stand-in
  // reports the variables the assertions are about in a diagnostic, base64 so no masking hides one.
  const bin = mkdtempSync(join(root, 'envdump-'));
  const names = 'TF_VAR_region|AWS_PROFILE|TF_IN_AUTOMATION|OPENAI_API_KEY|GPUCLOUD_CLIENT_SECRET|ANTHROPIC_API_KEY|TF_LOG';
  writeFileSync(
    join(bin, 'terraform'),
    `#!/bin/sh\nprintf '{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"env","detail":"%s"}}\\n' "$(env | grep -E '^(${names})=' | base64 -w0)"\necho '{"type":"change_summary","changes":{"add":0,"change":0,"remove":0,"import":0}}'\n`,
  );
  chmodSync(join(bin, 'terraform'), 0o755);
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--terraform-plan', 'terraform plan'], {
    env: { ...tfEnv, PATH: `${bin}:${process.env.PATH}`, TF_VAR_region: 'eu', AWS_PROFILE: 'infra', TF_LOG: 'trace', ANTHROPIC_API_KEY: 'sk-ant-never-1234567890' },
  });
  assert.is(r.code, 0, r.stderr);
  const seen = Buffer.from(/^warning: env: (\S+)$/m.exec(r.stdout)?.[1] ?? '', 'base64').toString('utf8');
  assert.match(seen, /^TF_VAR_region=eu$/m);
  assert.match(seen, /^AWS_PROFILE=infra$/m);
  assert.match(seen, /^TF_IN_AUTOMATION=1$/m);
  for (const name of ['OPENAI_API_KEY', 'GPUCLOUD_CLIENT_SECRET', 'ANTHROPIC_API_KEY', 'TF_LOG']) assert.not.match(seen, new RegExp(`^${name}=`, 'm'), name);
});

skip('terraform-apply is destructive: refused without --destroyer, applied through the apply path with it', async () => {
  const plan = JSON.stringify({ version: 1, provider: 'terraform', commands: [{ args: ['terraform-apply', 'applyme'], reason: 'apply' }] });
  const refused = await runCli(['--config', config(), 'ask', '--apply'], { env: tfEnv, input: plan });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /terraform apply in workspace applyme: changes real infrastructure and may destroy resources/);
  assert.throws(() => readFileSync(join(applyWs, 'terraform.tfstate')), 'nothing was applied');

  const unknownRead = await runCli(['--config', config(), 'plan', 'validate'], { env: tfEnv, input: JSON.stringify({ version: 1, provider: 'terraform', commands: [{ args: ['terraform-read', 'prod', 'apply'], reason: 'x' }] }) });
  assert.is(unknownRead.code, 2, unknownRead.stdout + unknownRead.stderr);
  assert.match(unknownRead.stdout + unknownRead.stderr, /unknown terraform read "apply"/);

  const done = await runCli(['--config', config(), 'ask', '--apply', '--destroyer', '--yes'], { env: tfEnv, input: plan });
  assert.is(done.code, 0, done.stderr);
  assert.match(readFileSync(join(applyWs, 'terraform.tfstate'), 'utf8'), /"terraform_data"/);
});

skip('credentials test terraform reads the default workspace', async () => {
  const r = await runCli(['--config', config(), 'credentials', 'test', 'terraform'], { env: tfEnv });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /terraform credentials work \(source: terraform\.workspaces \(prod, staging, applyme, raw\)\); prod: 2 resource\(s\) in the state \(terraform 1\.\d+/);
});

skip('the MCP ask tool reads the same terraform context; the sensitive output never reaches the model', async () => {
  const { result: r, prompt } = await askWithScriptedModel({ config: config(), home: home(), reply: 'Two terraform_data resources.', question: 'what is in my terraform state?' });
  assert.not.ok(r.isError, textOf(r));
  assert.equal(r.structuredContent.providers, ['terraform']);
  assert.match(prompt, /terraform_data\.web/);
  assert.not.ok(prompt.includes(SENSITIVE));
});

test.run();
