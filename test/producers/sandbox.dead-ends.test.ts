/**
 * A sandbox without dead ends (issue 38 item 3), driven through the CLI against a fresh HOME with no
 * network but loopback: each command runs in a network namespace of its own (bubblewrap
 * `--unshare-net`), where only `lo` exists, so a step that tried to leave the machine would fail the
 * flow. The cluster `k8s create` makes answers `k8s get|deploy|logs|stats|ask|delete` through the
 * Kubernetes API stand-in, `autostop check` reads the watcher's record through the SSH stand-in, and
 * `deploy` works from a local path and a file:// URL, its URLs on this machine.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopbackUrl } from '../../engine/core/hermetic.js';
import { spawnCli, type CliResult, tempHome } from '../support/cli.js';
import { makeRepo } from '../support/git-repos.js';
import { testWhen } from '../support/skip.js';

const Offline = suite('sandbox offline');

/** Why this machine cannot run a command without network (no bubblewrap, or no user namespaces), or nothing. */
let offlineMissing: string | undefined | null = null;
function noOfflineRun(): string | undefined {
  if (offlineMissing !== null) return offlineMissing;
  const probe = spawnSync('bwrap', ['--unshare-net', '--dev-bind', '/', '/', 'true'], { encoding: 'utf8' });
  offlineMissing = probe.error ? 'bwrap not on PATH' : probe.status !== 0 ? `bwrap --unshare-net fails here: ${probe.stderr.trim()}` : undefined;
  return offlineMissing;
}
const test = testWhen(Offline, noOfflineRun);

/** `assistant --sandbox …` in a network namespace with only loopback. */
function offline(args: string[], home: string): Promise<CliResult> {
  return spawnCli(['--sandbox', ...args], { home }, ['bwrap', '--unshare-net', '--die-with-parent', '--dev-bind', '/', '/']);
}

const ok = (r: CliResult, what: string) => assert.is(r.code, 0, `${what}: ${r.stdout}${r.stderr}`);

test('k8s create, then get, deploy, logs, stats, ask and delete answer through the Kubernetes API stand-in with no network but loopback', async () => {
  const home = tempHome('sandbox-k8s-');
  const created = await offline(['k8s', 'create', 'gpucloud', 'sbx', '--yes', '--poll-interval', '1'], home);
  ok(created, 'create');
  const kubeconfigPath = join(home, '.assistant', 'sandbox', 'kube', 'config');
  const kubeconfig = parse(readFileSync(kubeconfigPath, 'utf8'));
  assert.is(kubeconfig['current-context'], 'sbx', 'the created context is current in the sandbox kubeconfig');
  assert.ok(isLoopbackUrl(kubeconfig.clusters[0].cluster.server), kubeconfig.clusters[0].cluster.server);

  const nodes = await offline(['k8s', 'get', 'nodes'], home);
  ok(nodes, 'get nodes');
  assert.match(nodes.stdout, /^sbx-head +Ready +control-plane/m);
  assert.match(nodes.stdout, /^sbx-worker-1 +Ready/m);

  ok(await offline(['k8s', 'deploy', 'nginx:1.27', '--name', 'web', '--port', '80', '--replicas', '2', '--yes'], home), 'deploy');
  const pods = JSON.parse((await offline(['k8s', 'get', 'pods', '-o', 'json'], home)).stdout);
  const web = (pods.items ?? pods).filter((p: any) => p.metadata.name.startsWith('web-'));
  assert.is(web.length, 2, JSON.stringify(pods));
  const services = await offline(['k8s', 'get', 'services'], home);
  assert.match(services.stdout, /^web\b/m, services.stdout + services.stderr);

  const logs = await offline(['k8s', 'logs', web[0].metadata.name], home);
  ok(logs, 'logs');
  assert.match(logs.stdout, new RegExp(`container web \\(nginx:1\\.27\\) of pod ${web[0].metadata.name} started`));

  const stats = await offline(['k8s', 'stats', 'pods'], home);
  ok(stats, 'stats');
  for (const p of web) assert.match(stats.stdout, new RegExp(`^default +${p.metadata.name} +10m +64Mi$`, "m"));

  const ask = await offline(['k8s', 'ask', 'how many pods are running?'], home);
  ok(ask, 'ask');
  assert.match(ask.stdout, /2 pods: 2 Running/);

  const deleted = await offline(['k8s', 'delete', 'gpucloud', 'sbx', '--yes'], home);
  ok(deleted, 'delete');
  assert.match(deleted.stderr, new RegExp(`context sbx was removed from ${kubeconfigPath.replace(/[.]/g, '\\.')}`));
  assert.not.match(deleted.stderr, /kubectl config delete-context/, 'no advice about the user\'s own kubeconfig');
  const after = parse(readFileSync(kubeconfigPath, 'utf8'));
  assert.equal(after.contexts, []);
  const gone = await offline(['k8s', 'get', 'nodes'], home);
  assert.is(gone.code, 2, gone.stderr);
  assert.match(gone.stderr, /^error: no_kubeconfig: /m);
});

test('the Kubernetes API stand-in takes only the sandbox kubeconfig\'s token: another is refused (401)', async () => {
  const home = tempHome('sandbox-k8s-token-');
  ok(await offline(['k8s', 'create', 'gpucloud', 'tok', '--yes', '--poll-interval', '1'], home), 'create');
  const path = join(home, '.assistant', 'sandbox', 'kube', 'config');
  const doc = parse(readFileSync(path, 'utf8'));
  assert.match(String(doc.users[0].user.token), /^sandbox-[0-9a-f]{48}$/);
  doc.users[0].user.token = 'sandbox-not-the-token';
  writeFileSync(path, stringify(doc), { mode: 0o600 });
  const refused = await offline(['k8s', 'get', 'nodes'], home);
  assert.is(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^error: unauthorized: the API server refused the credentials/m);
});

test('autostop check reads the watcher over the SSH stand-in, and deploy works from a local path and a file:// URL with loopback URLs', async () => {
  const home = tempHome('sandbox-deploy-');
  const repo = makeRepo('web-app', { 'requirements.txt': 'flask\n', 'app.py': 'from flask import Flask\napp = Flask(__name__)\n' });
  const fromPath = await offline(['deploy', repo.dir, '--apply', '--yes', '-o', 'json'], home);
  ok(fromPath, 'deploy a path');
  const url = JSON.parse(fromPath.stdout).url as string;
  assert.ok(isLoopbackUrl(url), url);
  const fromUrl = await offline(['deploy', repo.url, '--name', 'web-file', '--target', 'container', '--image', 'ghcr.io/me/web:1.4', '--apply', '--yes', '-o', 'json'], home);
  ok(fromUrl, 'deploy a file:// URL');
  assert.is(JSON.parse(fromUrl.stdout).url, 'http://127.0.0.1:9/containers/web-file');

  const plan = await offline(['ask', '--maker', '--autostop', '30m', 'create a 1V100.6V instance called train-1 in FIN-01'], home);
  ok(plan, 'plan with auto-stop');
  const planFile = join(home, 'plan.json');
  writeFileSync(planFile, plan.stdout);
  ok(await offline(['ask', '--apply', '--yes', '--plan-file', planFile], home), 'apply');
  // As a user would: the check is about a running machine, so wait until the emulator says it runs
  // (ordered → provisioning → running takes it a moment; checked straight away it is "provisioning").
  for (let tries = 0; ; tries++) {
    const list = await offline(['gpucloud', 'list', 'instances', '-o', 'json'], home);
    ok(list, 'list');
    const status = (JSON.parse(list.stdout) as { hostname: string; status: string }[]).find((i) => i.hostname === 'train-1')?.status;
    if (status === 'running') break;
    assert.ok(tries < 60, `train-1 is still ${status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const check = await offline(['autostop', 'check', '-o', 'json'], home);
  ok(check, 'autostop check');
  const rows = JSON.parse(check.stdout).instances as { hostname: string; decision: string }[];
  assert.equal(rows.find((r) => r.hostname === 'train-1')?.decision, 'keep', check.stdout);
  assert.not.match(check.stderr, /unreachable/);
});

Offline.run();
