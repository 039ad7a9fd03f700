/**
 * `ssh-exec`: the destructive-command rules behind the destroyer gate, shell-quoted placeholders, a
 * failing command, and two runs merging kubeconfigs at once (the merge lock).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import lockfile from 'proper-lockfile';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { allProviders } from '../../../engine/providers/index.js';
import { validatePlan } from '../../../engine/core/plan/validate.js';
import { sshExec } from '../../../engine/providers/ssh/verbs/exec.js';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { headNodeKubeconfig, sshHome, startSshServer, type SshTestServer, type SshTestServerOptions } from '../../support/ssh-server.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const plan = (command: string) => ({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', '10.0.0.9', command], reason: 'r' }] });
const gated = (command: string) => sshExec.classify(['ssh-exec', '10.0.0.9', command]).effect === 'destroy';

/** An in-test SSH server and a home whose config reaches it; the server is closed after `fn`, whatever it did. */
async function withSshHost(opts: SshTestServerOptions, fn: (srv: SshTestServer, home: string) => Promise<void>): Promise<void> {
  const srv = await startSshServer(tempDir('assistant-ssh-'), opts);
  try {
    await fn(srv, sshHome(srv, tempHome()));
  } finally {
    await srv.close();
  }
}

test('tear-down commands are destructive with their precise reason, and so is any free-form command (default deny); the named templates are not', () => {
  for (const c of [
    'kubeadm reset -f',
    'sudo kubeadm reset --force',
    'rm -rf /etc/kubernetes',
    'cd /tmp && rm -r -f data',
    'echo bye; reboot',
    'kubectl delete ns prod',
    'kubectl --kubeconfig /etc/kubernetes/admin.conf drain node-1',
    'systemctl stop kubelet',
    'apt-get purge -y kubeadm',
    'dd if=/dev/zero of=/dev/sda',
    'X=1 mkfs.ext4 /dev/vdb',
    '<SCRIPT> --now',
  ]) {
    assert.ok(gated(c), c);
  }
  // Free-form: not known to be safe, whatever it looks like (engine/providers/ssh/templates.ts has what runs freely).
  for (const c of ['apt-get install -y kubeadm', 'kubeadm init --pod-network-cidr=10.244.0.0/16', 'cat /root/.kube/config', 'rm /tmp/one-file', 'systemctl restart containerd']) {
    assert.ok(gated(c), c);
    assert.match(sshExec.classify(['ssh-exec', 'h', c]).reasons.join(' '), /not known to be safe/, c);
  }
  for (const c of ['uptime', 'nvidia-smi', 'df -h', 'journalctl -u kubelet --no-pager -n 100', 'kubectl get nodes -o wide']) assert.not.ok(gated(c), c);
  assert.equal(sshExec.classify(['ssh-exec', 'h', 'kubeadm reset -f']).reasons[0], "kubeadm reset -f: kubeadm reset tears down the node's Kubernetes");
  // The gate reads the same classification: a plan with such a step is refused without --destroyer.
  assert.not.ok(validatePlan(plan('kubeadm reset -f'), { providers: PROVIDERS, destroyer: false }).ok);
  assert.ok(validatePlan(plan('kubeadm reset -f'), { providers: PROVIDERS, destroyer: true }).ok);
});

test('plan validate exits 3 for a kubeadm reset step without --destroyer, 0 with it', async () => {
  const home = tempHome();
  writeFileSync(join(home, 'p.json'), JSON.stringify(plan('kubeadm reset -f')));
  const r = await runCli(['plan', 'validate', join(home, 'p.json')], { home });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stdout + r.stderr, /kubeadm reset/);
  assert.is((await runCli(['plan', 'validate', '--destroyer', join(home, 'p.json')], { home })).code, 0);
});

test('a produced value is substituted shell-quoted: it can never become a second command', () => {
  const [, , command] = sshExec.substitute(['ssh-exec', '<HOST>', 'kubeadm join <EP> --token <T>'], { HOST: '10.0.0.2', EP: "x'; rm -rf / #", T: 'a b' });
  assert.is(command, `kubeadm join 'x'\\''; rm -rf / #' --token 'a b'`);
});

test('a command that exits non-zero fails the step with remote_command_failed and its stderr', () =>
  withSshHost({ exec: () => ({ stderr: 'E: Unable to locate package kubeadm\n', code: 100 }) }, async (srv, home) => {
    const p = { version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', '127.0.0.1', 'apt-get install -y kubeadm'], reason: 'install' }] };
    // A free-form command: it runs only with --destroyer.
    const r = await runCli(['ask', '--apply', '--destroyer'], { home, input: JSON.stringify(p) });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /error: remote_command_failed: the command on 127\.0\.0\.1 exited with 100: E: Unable to locate package kubeadm/);
    assert.equal(srv.commands, ['apt-get install -y kubeadm']);
  }));

test('four runs merging different contexts into one kubeconfig at once keep all four', () =>
  withSshHost({ files: { '/root/.kube/config': headNodeKubeconfig() } }, async (_srv, home) => {
    const names = ['c1', 'c2', 'c3', 'c4'];
    const runs = await Promise.all(
      names.map((n) => runCli(['ask', '--apply'], { home, input: JSON.stringify({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-kubeconfig', '127.0.0.1', n], reason: 'fetch' }] }) })),
    );
    for (const r of runs) assert.is(r.code, 0, r.stderr);
    const doc = parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as { contexts: { name: string }[]; clusters: unknown[]; users: unknown[] };
    assert.equal(doc.contexts.map((c) => c.name).sort(), names);
    assert.is(doc.clusters.length, 4);
    assert.is(doc.users.length, 4);
  }));

test('the merge waits for the kubeconfig lock held by another process and then writes', () =>
  withSshHost({ files: { '/root/.kube/config': headNodeKubeconfig() } }, async (srv, home) => {
    const kube = join(home, '.kube', 'config');
    mkdirSync(join(home, '.kube'));
    writeFileSync(kube, '');
    const release = await lockfile.lock(kube, { realpath: false });
    try {
      const run = runCli(['ask', '--apply'], { home, input: JSON.stringify({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-kubeconfig', '127.0.0.1', 'held'], reason: 'fetch' }] }) });
      while (!srv.commands.length) await new Promise((r) => setTimeout(r, 50));
      // The kubeconfig was fetched; without the lock it would be merged within milliseconds.
      await new Promise((r) => setTimeout(r, 1500));
      assert.is(readFileSync(kube, 'utf8'), '', 'not written while the lock is held');
      await release();
      const r = await run;
      assert.is(r.code, 0, r.stderr);
      assert.match(readFileSync(kube, 'utf8'), /name: held/);
    } finally {
      await release().catch(() => undefined);
    }
  }));

test.run();
