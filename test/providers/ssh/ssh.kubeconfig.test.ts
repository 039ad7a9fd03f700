/**
 * The `ssh-kubeconfig` step through the real CLI (`ask --apply`) against an ssh2 server in the test:
 * host key pinning, a changed key refused, sshd not up at first, and the merged kubeconfig parsed back.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { headNodeKubeconfig, sshHome, withSshServer } from '../../support/ssh-server.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

type Kubeconfig = {
  'current-context'?: string;
  clusters: { name: string; cluster: Record<string, string> }[];
  users: { name: string; user: Record<string, string> }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
};

const OTHER = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- name: prod',
  '  cluster: {server: "https://prod.example:6443", certificate-authority-data: UFJPRC1DQQ==}',
  'users:',
  '- name: prod-admin',
  '  user: {token: prod-token-keep-me}',
  'contexts:',
  '- name: prod',
  '  context: {cluster: prod, user: prod-admin}',
  'current-context: prod',
  '',
].join('\n');

const withServer = withSshServer;

const plan = (...extra: string[]) =>
  JSON.stringify({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-kubeconfig', '127.0.0.1', 'gpu-a', '--interval=0.2', ...extra], reason: 'fetch the kubeconfig' }] });

const apply = (home: string, input: string, ...flags: string[]) => runCli(['ask', '--apply', ...flags], { home, input });
const readKube = (home: string) => parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as Kubeconfig;

test('the first host key is pinned in ~/.assistant/known_hosts with its fingerprint on stderr; the same key is accepted later', async () => {
  await withServer(async (srv, home) => {
    const first = await apply(home, plan());
    assert.is(first.code, 0, first.stderr);
    const known = readFileSync(join(home, '.assistant', 'known_hosts'), 'utf8');
    assert.match(known, new RegExp(`^\\[127\\.0\\.0\\.1\\]:${srv.port} ssh-ed25519 [A-Za-z0-9+/=]+\\n$`));
    assert.match(first.stderr, /pinned the host key of 127\.0\.0\.1:\d+ \(ssh-ed25519 SHA256:[A-Za-z0-9+/]{43}\)/);
    assert.is(statSync(join(home, '.assistant', 'known_hosts')).mode & 0o777, 0o600);
    const again = await apply(home, plan(), '--fresh');
    assert.is(again.code, 0, again.stderr);
    assert.not.match(again.stderr, /pinned the host key/);
    assert.is(readFileSync(join(home, '.assistant', 'known_hosts'), 'utf8'), known, 'nothing new pinned');
    assert.equal(srv.users, ['root', 'root']);
  });
});

test('a changed host key is refused (exit 3, host_key_changed) showing both fingerprints, and nothing is read or written', async () => {
  await withServer(async (srv, home) => {
    assert.is((await apply(home, plan())).code, 0);
    const before = readFileSync(join(home, '.kube', 'config'), 'utf8');
    srv.rotateHostKey();
    srv.files['/root/.kube/config'] = headNodeKubeconfig({ ca: 'TUlUTS1DQQ==' });
    const r = await apply(home, plan(), '--fresh');
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /error: host_key_changed: the host key of \[127\.0\.0\.1\]:\d+ changed: pinned ssh-ed25519 SHA256:\S+, presented ssh-ed25519 SHA256:\S+/);
    const fps = [...r.stderr.matchAll(/SHA256:[A-Za-z0-9+/]{43}/g)].map((m) => m[0]);
    assert.ok(new Set(fps).size >= 2, 'both fingerprints are shown');
    assert.match(r.stderr, /hint: .*ssh-keygen -R '\[127\.0\.0\.1\]:\d+' -f \S+known_hosts/);
    assert.is(srv.commands.length, 1, 'no command ran on the impostor');
    assert.is(readFileSync(join(home, '.kube', 'config'), 'utf8'), before);
  });
});

test('sshd not up at first: the step retries with a waiting line per attempt, then fetches the kubeconfig', async () => {
  await withServer(
    async (srv, home) => {
      const r = await apply(home, plan(), '--debug');
      assert.is(r.code, 0, r.stderr);
      assert.ok(srv.connections() >= 3, `3 connections at least, saw ${srv.connections()}`);
      // A wait notice per failed attempt (--debug shows each; the progress lines are throttled).
      assert.ok((r.stderr.match(/debug: run: waiting \(retry, 200 ms\) in step 0/g) ?? []).length >= 2, r.stderr);
      assert.is(readKube(home).contexts[0]!.name, 'gpu-a');
    },
    { refuseFirst: 2 },
  );
});

test('no kubeconfig on the host yet: retried until it appears', async () => {
  await withServer(
    async (srv, home) => {
      let reads = 0;
      const files = srv.files;
      // Appears after the second read: what a head node still running kubeadm init looks like.
      Object.defineProperty(files, '/root/.kube/config', { get: () => (++reads > 2 ? headNodeKubeconfig() : undefined), enumerable: true, configurable: true });
      const r = await apply(home, plan('--interval=1'));
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stderr, /reading \/root\/\.kube\/config on 127\.0\.0\.1: not there yet/);
      assert.is(srv.commands.filter((c) => c === 'cat /root/.kube/config').length, 3);
    },
    { files: {} },
  );
});

test('a host that never answers fails with ssh_unreachable at the step timeout', async () => {
  await withServer(
    async (_srv, home) => {
      const r = await apply(home, plan('--timeout=1'));
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stderr, /error: ssh_unreachable: connecting to 127\.0\.0\.1: still failing after/);
    },
    { refuseFirst: 1_000 },
  );
});

test('the merged kubeconfig: server on the public IP, tls-server-name the original host, CA kept, 0600, other entries untouched', async () => {
  await withServer(async (_srv, home) => {
    const kube = join(home, '.kube', 'config');
    await import('node:fs').then((fs) => fs.mkdirSync(join(home, '.kube'), { recursive: true }));
    writeFileSync(kube, OTHER, { mode: 0o644 });
    const r = await apply(home, plan(), '-o', 'json');
    assert.is(r.code, 0, r.stderr);
    const doc = readKube(home);
    const cluster = doc.clusters.find((c) => c.name === 'gpu-a')!.cluster;
    assert.is(cluster.server, 'https://127.0.0.1:6443');
    assert.is(cluster['tls-server-name'], '10.0.0.2');
    assert.is(cluster['certificate-authority-data'], 'Q0EtREFUQS1PRi1USEUtQ0xVU1RFUg==');
    assert.not.ok('insecure-skip-tls-verify' in cluster);
    assert.equal(doc.contexts.find((c) => c.name === 'gpu-a')!.context, { cluster: 'gpu-a', user: 'gpu-a' });
    assert.is(doc.users.find((u) => u.name === 'gpu-a')!.user['client-key-data'], 'Q0xJRU5ULUtFWS1TRUNSRVQtUEFZTE9BRA==');
    assert.is(statSync(kube).mode & 0o777, 0o600);
    // The other cluster's entries and the current context are as they were.
    assert.equal(doc.clusters.find((c) => c.name === 'prod')!.cluster, { server: 'https://prod.example:6443', 'certificate-authority-data': 'UFJPRC1DQQ==' });
    assert.equal(doc.users.find((u) => u.name === 'prod-admin')!.user, { token: 'prod-token-keep-me' });
    assert.is(doc['current-context'], 'prod');
    // Keys never reach the output.
    assert.not.match(r.stdout + r.stderr, /Q0xJRU5ULUtFWS1TRUNSRVQtUEFZTE9BRA|Q0xJRU5ULUNFUlQtU0VDUkVU|prod-token-keep-me/);
    assert.is(JSON.parse(r.stdout).status, 'succeeded');
  });
});

test('--use-context makes it the current context; without it the current context stays', async () => {
  await withServer(async (_srv, home) => {
    const r = await apply(home, plan('--use-context'));
    assert.is(r.code, 0, r.stderr);
    assert.is(readKube(home)['current-context'], 'gpu-a');
  });
});

test('a same-named context is replaced when it is the same cluster, refused (exit 3) when it is another', async () => {
  await withServer(async (srv, home) => {
    assert.is((await apply(home, plan())).code, 0);
    const same = await apply(home, plan(), '--fresh');
    assert.is(same.code, 0, same.stderr);
    assert.is(readKube(home).contexts.filter((c) => c.name === 'gpu-a').length, 1);
    srv.files['/root/.kube/config'] = headNodeKubeconfig({ ca: 'QU5PVEhFUi1DTFVTVEVSLUNB' });
    const before = readFileSync(join(home, '.kube', 'config'), 'utf8');
    const other = await apply(home, plan(), '--fresh');
    assert.is(other.code, 3, other.stderr);
    assert.match(other.stderr, /error: context_exists: .*already has a context "gpu-a" for another cluster/);
    assert.is(readFileSync(join(home, '.kube', 'config'), 'utf8'), before);
  });
});

test('the kubeconfig goes to kubernetes.kubeconfig when set, else the first path of KUBECONFIG', async () => {
  await withServer(async (srv, home) => {
    const viaEnv = join(home, 'env-kube');
    const r = await runCli(['ask', '--apply'], { home, input: plan(), env: { KUBECONFIG: `${viaEnv}:${join(home, 'second')}` } });
    assert.is(r.code, 0, r.stderr);
    assert.ok(existsSync(viaEnv));
    assert.not.ok(existsSync(join(home, 'second')));
    const configured = join(home, 'configured-kube');
    sshHome(srv, home, `kubernetes:\n  kubeconfig: ${configured}\n`);
    const r2 = await runCli(['ask', '--apply', '--fresh'], { home, input: plan(), env: { KUBECONFIG: viaEnv } });
    assert.is(r2.code, 0, r2.stderr);
    assert.ok(existsSync(configured));
  });
});

test('a known_hosts that cannot be written trusts no key: the step fails before any command runs', async () => {
  await withServer(async (srv, home) => {
    mkdirSync(join(home, '.assistant', 'known_hosts'), { recursive: true }); // a directory where the file should be
    const r = await apply(home, plan());
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /error: known_hosts_unwritable: cannot pin the host key of 127\.0\.0\.1/);
    assert.equal(srv.commands, []);
  });
});

test.run();
