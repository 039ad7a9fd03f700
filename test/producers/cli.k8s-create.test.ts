/**
 * `k8s create gpucloud|kubeadm|eks|gke` and `k8s delete gpucloud` through the real CLI: the emulator
 * (its clusters' `ip` pointed at an ssh2 server in the test) from an empty home to a merged context,
 * `--plan` changing nothing, kill -9 during the wait then `--resume`, kubeadm against a recording SSH
 * server, and the eks/gke plans' shape.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { EMULATOR_DEFAULT_SSH_KEY_ID, startEmulator, type Emulator } from '../../emulator/index.js';
import { compileGpuCloudCreate } from '../../engine/producers/k8s-create/gpucloud.js';
import { BIN, childEnv, cliInThisProcess, emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { headNodeKubeconfig, startSshServer, type SshTestServer } from '../support/ssh-server.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

type Kubeconfig = { 'current-context'?: string; clusters: { name: string; cluster: Record<string, string> }[]; contexts: { name: string }[] };

interface Rig {
  emu: Emulator;
  srv: SshTestServer;
  home: string;
  env: Record<string, string>;
}

async function withRig(fn: (rig: Rig) => Promise<void>, opts: { lifecycleMs?: number } = {}) {
  const dir = tempDir('assistant-k8s-');
  const srv = await startSshServer(dir, { files: { '/root/.kube/config': headNodeKubeconfig() } });
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: opts.lifecycleMs ?? 1, debit: false, clusterIp: '127.0.0.1' });
  const home = tempHome();
  writeFileSync(
    join(home, '.assistant.yaml'),
    `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\n`,
    { mode: 0o600 },
  );
  try {
    await fn({ emu, srv, home, env: emulatorEnv(emu) });
  } finally {
    await emu.close();
    await srv.close();
  }
}

const changes = (emu: Emulator) => emu.requests().filter((r) => r.method !== 'GET' && !r.path.includes('oauth2'));
const clusterPosts = (emu: Emulator) => emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/clusters' && r.status < 300);
const kube = (home: string) => parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as Kubeconfig;

test('k8s create gpucloud: from an empty home to a merged kubeconfig context on the cluster\'s public IP', async () => {
  await withRig(async ({ emu, srv, home, env }) => {
    const r = await runCli(['k8s', 'create', 'gpucloud', 'gpu-a', '--use-context', '--poll-interval', '0.1', '--yes'], { home, env });
    assert.is(r.code, 0, r.stderr);
    const posts = clusterPosts(emu);
    assert.is(posts.length, 1);
    const body = JSON.parse(posts[0]!.body!);
    assert.is(body.image, 'ubuntu-24.04-cuda-13.0-cluster-k8s', 'the image labelled for Kubernetes');
    assert.is(body.hostname, 'gpu-a');
    assert.is(body.location_code, 'FIN-01');
    assert.equal(body.ssh_key_ids, [EMULATOR_DEFAULT_SSH_KEY_ID]);
    assert.equal(srv.commands, ['cat /root/.kube/config']);
    const doc = kube(home);
    const cluster = doc.clusters.find((c) => c.name === 'gpu-a')!.cluster;
    assert.is(cluster.server, 'https://127.0.0.1:6443');
    assert.is(cluster['tls-server-name'], '10.0.0.2');
    assert.is(doc['current-context'], 'gpu-a');
    assert.is(statSync(join(home, '.kube', 'config')).mode & 0o777, 0o600);
    assert.match(r.stderr, /\[3\/3\] FETCH kubeconfig from 127\.0\.0\.1 over SSH as context gpu-a/);
    assert.match(r.stderr, /pinned the host key of 127\.0\.0\.1/);
    assert.not.match(r.stdout + r.stderr, /Q0xJRU5ULUtFWS1TRUNSRVQtUEFZTE9BRA/);
    // The same name again: the cluster exists, so nothing is created twice (exit 3).
    const again = await runCli(['k8s', 'create', 'gpucloud', 'gpu-a', '--yes'], { home, env });
    assert.is(again.code, 3, again.stderr);
    assert.is(clusterPosts(emu).length, 1);
  });
});

test('k8s create gpucloud --plan prints a valid plan and changes nothing (only catalogue reads reach the API)', async () => {
  await withRig(async ({ emu, home, env }) => {
    const r = await runCli(['k8s', 'create', 'gpucloud', 'gpu-b', '--cluster-type', '16H100', '--plan'], { home, env });
    assert.is(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.equal(plan.provider, ['gpucloud', 'ssh']);
    assert.equal(plan.commands.map((c: { args: string[] }) => c.args[0]), ['gpucloud-api', 'gpucloud-wait', 'ssh-kubeconfig']);
    assert.equal(plan.commands[1].produces, { CLUSTER_IP: '$.ip' });
    assert.equal(changes(emu), []);
    assert.not.ok(existsSync(join(home, '.assistant', 'runs')), 'no journal');
    assert.not.ok(existsSync(join(home, '.kube')), 'no kubeconfig');
    // It reads naturally in review and applies later as any plan.
    writeFileSync(join(home, 'plan.json'), r.stdout);
    const valid = await runCli(['plan', 'validate', join(home, 'plan.json')], { home, env });
    assert.is(valid.code, 0, valid.stderr);
    const applied = await runCli(['ask', '--apply', '--plan-file', join(home, 'plan.json')], { home, env });
    assert.is(applied.code, 0, applied.stderr);
    assert.is(clusterPosts(emu).length, 1);
    assert.ok(kube(home).contexts.some((c) => c.name === 'gpu-b'));
  });
});

test('k8s create gpucloud without --yes and without a terminal is refused (exit 3) before anything is created', async () => {
  await withRig(async ({ emu, home, env }) => {
    const r = await runCli(['k8s', 'create', 'gpucloud', 'gpu-c'], { home, env });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /needs confirmation/);
    assert.equal(changes(emu), []);
  });
});

test('--sandbox k8s create gpucloud --yes completes the whole flow: the smallest shared volume, the hourly price said first, the stand-in head node answers SSH, and the context lands in the sandbox kubeconfig', async () => {
  const home = tempHome();
  const dry = await runCli(['--sandbox', 'k8s', 'create', 'gpucloud', 'sbx', '--dry-run'], { home });
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /shared volume NVMe_Shared 40 GB in FIN-01/);
  const total = Number(/^ {2}total: (\d+\.\d\d)\/hour/m.exec(dry.stdout)?.[1]);
  const cluster = Number(/step 0: cluster \S+ in FIN-01 +(\d+\.\d\d)\/hour/.exec(dry.stdout)?.[1]);
  assert.ok(total - cluster < 0.05, `the shared volume adds almost nothing to the cluster's price:\n${dry.stdout}`);
  const unasked = await runCli(['--sandbox', 'k8s', 'create', 'gpucloud', 'sbx'], { home });
  assert.is(unasked.code, 3);
  assert.match(unasked.stderr, new RegExp(`Create Instant Cluster sbx at ${total.toFixed(2)} USD/hour \\(`), 'the refusal says what it would cost');
  const r = await runCli(['--sandbox', 'k8s', 'create', 'gpucloud', 'sbx', '--yes', '--poll-interval', '1'], { home });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`^Create Instant Cluster sbx at ${total.toFixed(2)} USD/hour .*billed until you delete it$`, 'm'));
  assert.ok(r.stderr.indexOf('USD/hour') < r.stderr.indexOf('[1/3]'), 'the price is said before the create is sent');
  assert.match(r.stdout, /^succeeded: 3\/3 step\(s\) completed/m);
  assert.match(r.stdout, /FETCH kubeconfig from 127\.0\.0\.1 over SSH as context sbx/);
  const merged = parse(readFileSync(join(home, '.assistant', 'sandbox', 'kube', 'config'), 'utf8')) as Kubeconfig;
  assert.ok(merged.contexts.some((c) => c.name === 'sbx'), JSON.stringify(merged));
  assert.is(merged.clusters.find((c) => c.name === 'sbx')?.cluster.server, 'https://127.0.0.1:6443');
  assert.not.ok(existsSync(join(home, '.kube')), "the user's own kubeconfig is not touched");
  const created = await runCli(['--sandbox', 'gpucloud', 'get', 'cluster', 'sbx', '-o', 'json'], { home });
  assert.equal(JSON.parse(created.stdout).shared_volumes.map((v: { size_in_gigabytes: number }) => v.size_in_gigabytes), [40]);
});

test('k8s create gpucloud refuses before sending anything: unknown --image (exit 2, lists the images), a context taken by another cluster (exit 3), no key (exit 2)', async () => {
  await withRig(async ({ emu, srv, home, env }) => {
    const image = await runCli(['k8s', 'create', 'gpucloud', 'gpu-d', '--image', 'nope', '--yes'], { home, env });
    assert.is(image.code, 2, image.stderr);
    assert.match(image.stderr, /error: usage: "nope" is not a cluster image\nhint: cluster images: .*ubuntu-24\.04-cuda-13\.0-cluster-k8s/);
    const kubeDir = join(home, '.kube');
    await import('node:fs').then((fs) => fs.mkdirSync(kubeDir));
    writeFileSync(join(kubeDir, 'config'), 'clusters:\n- name: gpu-d\n  cluster: {server: "https://elsewhere:6443"}\ncontexts:\n- name: gpu-d\n  context: {cluster: gpu-d, user: gpu-d}\n');
    const taken = await runCli(['k8s', 'create', 'gpucloud', 'gpu-d', '--yes'], { home, env });
    assert.is(taken.code, 3, taken.stderr);
    assert.match(taken.stderr, /error: context_exists: /);
    writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_port: ${srv.port}\n`, { mode: 0o600 });
    const noKey = await runCli(['k8s', 'create', 'gpucloud', 'gpu-e', '--yes'], { home, env });
    assert.is(noKey.code, 2, noKey.stderr);
    assert.match(noKey.stderr, /error: ssh_key_missing: /);
    assert.equal(changes(emu), []);
  });
});

test('kill -9 during the wait, then --resume: the cluster is created once and the context merged', async () => {
  await withRig(
    async ({ emu, home, env }) => {
      const child = spawn(process.execPath, [BIN, 'k8s', 'create', 'gpucloud', 'gpu-k', '--poll-interval', '0.2', '--yes'], { env: childEnv(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no wait line within 120 s: ${stderr}`)), 120_000);
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          if (/waiting for cluster/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      assert.is(clusterPosts(emu).length, 1);
      assert.not.ok(existsSync(join(home, '.kube', 'config')));
      // Starting it again with other settings would orphan the unfinished run (and pay for a second cluster).
      const other = await runCli(['k8s', 'create', 'gpucloud', 'gpu-k', '--poll-interval', '0.3', '--yes'], { home, env });
      assert.is(other.code, 3, other.stderr);
      assert.match(other.stderr, /an unfinished run of this cluster's plan exists \(1 of 3 steps done\)/, other.stderr);
      const resumed = await runCli(['k8s', 'create', 'gpucloud', 'gpu-k', '--resume'], { home, env });
      assert.is(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming after 1 completed step/);
      assert.is(clusterPosts(emu).length, 1, 'created once');
      assert.ok(kube(home).contexts.some((c) => c.name === 'gpu-k'));
    },
    { lifecycleMs: 1500 },
  );
});

test('k8s delete gpucloud is a destroyer-gated plan: --plan is refused by plan validate without --destroyer; with --yes it deletes', async () => {
  await withRig(async ({ emu, home, env }) => {
    assert.is((await runCli(['k8s', 'create', 'gpucloud', 'gpu-x', '--poll-interval', '0.1', '--yes'], { home, env })).code, 0);
    const shown = await runCli(['k8s', 'delete', 'gpucloud', 'gpu-x', '--plan'], { home, env });
    assert.is(shown.code, 0, shown.stderr);
    writeFileSync(join(home, 'delete.json'), shown.stdout);
    assert.is((await runCli(['plan', 'validate', join(home, 'delete.json')], { home, env })).code, 3);
    const refused = await runCli(['k8s', 'delete', 'gpucloud', 'gpu-x'], { home, env });
    assert.is(refused.code, 3);
    const r = await runCli(['k8s', 'delete', 'gpucloud', 'gpu-x', '--yes'], { home, env });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /kubectl config delete-context gpu-x/);
    const res = await fetch(`${emu.url}/v1/clusters`, { headers: { authorization: `Bearer ${await token(emu)}` } });
    assert.equal(await res.json(), []);
  });
});

async function token(emu: Emulator): Promise<string> {
  const res = await fetch(`${emu.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: emu.clientId, client_secret: emu.clientSecret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

test('k8s create kubeadm: install and init on --host, a join token, install and join on each worker, then the kubeconfig', async () => {
  const dir = tempDir('assistant-kubeadm-');
  const token = 'abcdef.0123456789abcdef';
  const srv = await startSshServer(dir, {
    files: { '/root/.kube/config': headNodeKubeconfig({ server: 'https://10.1.0.5:6443' }) },
    alsoOn: ['127.0.0.2'],
    exec: (command) =>
      command.startsWith('kubeadm token create')
        ? { stdout: JSON.stringify({ endpoint: '10.1.0.5:6443', token, ca_cert_hash: 'sha256:0f1e2d' }) + '\n', code: 0 }
        : { code: 0 },
  });
  const home = tempHome();
  writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\n`, { mode: 0o600 });
  try {
    const shown = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--host', '127.0.0.1', '--workers', '127.0.0.2', '--plan'], { home });
    assert.is(shown.code, 0, shown.stderr);
    assert.is(srv.commands.length, 0, '--plan runs nothing');
    const r = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--host', '127.0.0.1', '--workers', '127.0.0.2', '--yes', '-o', 'json'], { home });
    assert.is(r.code, 0, r.stderr);
    const c = srv.commands;
    assert.is(c.length, 6, c.join('\n---\n'));
    assert.match(c[0]!, /apt-get install -y -q kubelet kubeadm kubectl/);
    assert.match(c[1]!, /kubeadm init --pod-network-cidr=10\.244\.0\.0\/16 --apiserver-cert-extra-sans=127\.0\.0\.1/);
    assert.match(c[2]!, /apt-get install/);
    assert.match(c[3]!, /^kubeadm token create --ttl 30m --print-join-command/);
    assert.is(c[4], `test -f /etc/kubernetes/kubelet.conf || kubeadm join '10.1.0.5:6443' --token '${token}' --discovery-token-ca-cert-hash 'sha256:0f1e2d'`);
    assert.is(c[5], 'cat /root/.kube/config');
    assert.is(kube(home).clusters.find((x) => x.name === 'lab')!.cluster['tls-server-name'], '10.1.0.5');
    // The join token is a credential: never in the output.
    assert.not.ok((r.stdout + r.stderr).includes(token), r.stdout + r.stderr);
    // Both hosts were pinned (one line each).
    assert.is(readFileSync(join(home, '.assistant', 'known_hosts'), 'utf8').trim().split('\n').length, 2);
  } finally {
    await srv.close();
  }
});

test('kubeadm: a join that failed is not resumed with the masked token (secret_not_kept); --fresh redoes it with a new token', async () => {
  const dir = tempDir('assistant-kubeadm-');
  let joins = 0;
  let tokens = 0;
  const srv = await startSshServer(dir, {
    files: { '/root/.kube/config': headNodeKubeconfig() },
    alsoOn: ['127.0.0.2'],
    exec: (command) => {
      if (command.startsWith('kubeadm token create')) return { stdout: JSON.stringify({ endpoint: '10.0.0.2:6443', token: `tok${++tokens}.0123456789abcdef`, ca_cert_hash: 'sha256:aa' }), code: 0 };
      if (command.includes('kubeadm join') && ++joins === 1) return { stderr: 'error execution phase preflight: couldn\'t validate the identity of the API Server\n', code: 1 };
      return { code: 0 };
    },
  });
  const home = tempHome();
  writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\n`, { mode: 0o600 });
  const args = ['k8s', 'create', 'kubeadm', 'lab2', '--host', '127.0.0.1', '--workers', '127.0.0.2', '--yes'];
  try {
    const first = await runCli(args, { home });
    assert.is(first.code, 1, first.stderr);
    assert.match(first.stderr, /error: remote_command_failed: .*couldn't validate the identity/);
    const journal = readFileSync(join(home, '.assistant', 'runs', readdirSync(join(home, '.assistant', 'runs')).find((f) => f.endsWith('.jsonl'))!), 'utf8');
    assert.not.match(journal, /tok1\.0123456789abcdef/, 'the token is not kept in the journal');
    const resumed = await runCli([...args, '--resume'], { home });
    assert.is(resumed.code, 1, resumed.stderr);
    assert.match(resumed.stderr, /error: secret_not_kept: .*\nhint: run the plan again with --fresh/);
    assert.is(joins, 1, 'no join ran with the masked token');
    const fresh = await runCli([...args, '--fresh'], { home });
    assert.is(fresh.code, 0, fresh.stderr);
    assert.match(srv.commands.filter((c) => c.includes('kubeadm join')).at(-1)!, /--token 'tok2\.0123456789abcdef'/);
  } finally {
    await srv.close();
  }
});

test('k8s create eks and gke --plan: the cloud_a/cloud_b CLI steps, nothing run', async () => {
  const eks = await runCli(['k8s', 'create', 'eks', 'e1', '--nodes', '3', '--node-type', 'm5.large', '--role-arn', 'arn:aws:iam::123456789012:role/eks', '--subnets', 'subnet-a,subnet-b', '--region', 'eu-west-1', '--plan']);
  assert.is(eks.code, 0, eks.stderr);
  const e = JSON.parse(eks.stdout);
  assert.is(e.provider, 'cloud_a');
  assert.equal(e.commands.map((c: { args: string[] }) => c.args.slice(0, 3).join(' ')), [
    'aws eks create-cluster',
    'aws eks wait',
    'aws eks create-nodegroup',
    'aws eks wait',
    'aws eks update-kubeconfig',
  ]);
  assert.ok(e.commands[2].args.includes('minSize=3,maxSize=3,desiredSize=3'));
  assert.equal(e.commands[4].args.slice(3, 7), ['--name', 'e1', '--alias', 'e1']);
  assert.ok(e.commands.every((c: { args: string[] }) => c.args.join(' ').includes('--region eu-west-1')));
  const gke = await runCli(['k8s', 'create', 'gke', 'g1', '--nodes', '2', '--gcp-project', 'proj-1', '--location', 'europe-west4-a', '--plan']);
  assert.is(gke.code, 0, gke.stderr);
  const g = JSON.parse(gke.stdout);
  assert.is(g.provider, 'cloud_b');
  assert.equal(g.commands[0].args.slice(0, 7), ['gcloud', 'container', 'clusters', 'create', 'g1', '--num-nodes', '2']);
  assert.equal(g.commands[1].args, ['gcloud', 'container', 'clusters', 'get-credentials', 'g1', '--project', 'proj-1', '--zone', 'europe-west4-a']);
  const missing = await runCli(['k8s', 'create', 'gke', 'g1', '--plan']);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /needs --gcp-project/);
});

test('the compiler refuses (exit 2) listing the cluster images when none is labelled for Kubernetes', async () => {
  const catalogue: Record<string, unknown> = {
    '/v1/images/cluster': [{ image_type: 'ubuntu-24.04-cuda-13.0-cluster', name: 'Slurm', category: 'slurm', details: ['Slurm'] }],
    '/v1/cluster-types': [{ cluster_type: '16H100', price_per_hour: 30 }],
    '/v1/cluster-availability': [{ location_code: 'FIN-01', availabilities: ['16H100'] }],
  };
  try {
    await compileGpuCloudCreate({ name: 'x' }, async (args) => catalogue[args[2]!]);
    assert.unreachable();
  } catch (err) {
    const e = err as { code: string; exitCode: number; hint: string };
    assert.is(e.code, 'no_kubernetes_image');
    assert.is(e.exitCode, 2);
    assert.match(e.hint, /ubuntu-24\.04-cuda-13\.0-cluster/);
  }
});

test.run();
