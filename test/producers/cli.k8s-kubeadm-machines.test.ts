/**
 * `k8s create kubeadm <name> --workers <n>` (issue 39 item 3): the plan creates its machines (gpucloud
 * instances, against the emulator, whose instances get the in-test SSH server's loopback addresses as
 * their public IPs), waits for their IPs, then installs, inits and joins over SSH with the named
 * templates (no --destroyer: nothing in it is destructive) and merges the kubeconfig.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { EMULATOR_DEFAULT_SSH_KEY_ID, startEmulator } from '../../emulator/index.js';
import { cliInThisProcess, emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { assertKubeadmInstall, kubeadmHostExec } from '../support/kubeadm.js';
import { headNodeKubeconfig, startSshServer } from '../support/ssh-server.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

async function withRig(fn: (rig: { emu: Awaited<ReturnType<typeof startEmulator>>; srv: Awaited<ReturnType<typeof startSshServer>>; home: string; env: Record<string, string> }) => Promise<void>) {
  const srv = await startSshServer(tempDir('assistant-kubeadm-m-'), {
    files: { '/root/.kube/config': headNodeKubeconfig({ server: 'https://10.1.0.5:6443' }) },
    alsoOn: ['127.0.0.2'],
    // A host of its own (its execs recorded under its address): the worker.
    filesAt: { '127.0.0.2': {} },
    exec: kubeadmHostExec,
  });
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 1, debit: false, instanceIps: { 'lab-cp': '127.0.0.1', 'lab-w1': '127.0.0.2' } });
  const home = tempHome();
  writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\n`, { mode: 0o600 });
  try {
    await fn({ emu, srv, home, env: emulatorEnv(emu) });
  } finally {
    await emu.close();
    await srv.close();
  }
}

const instancePosts = (emu: { requests(): { method: string; path: string; status: number; body?: string }[] }) => emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances');

test('k8s create kubeadm --workers 1: two instances made by the plan, then install, init, token and join on their IPs, and the kubeconfig', async () => {
  await withRig(async ({ emu, srv, home, env }) => {
    const r = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '1', '--yes', '-o', 'json'], { home, env });
    assert.is(r.code, 0, r.stderr);
    const posts = instancePosts(emu).map((p) => JSON.parse(p.body!));
    assert.equal(posts.map((b) => [b.hostname, b.instance_type, b.location_code, b.image, b.ssh_key_ids]), [
      ['lab-cp', 'CPU.4V.16G', 'FIN-01', 'ubuntu-24.04', [EMULATOR_DEFAULT_SSH_KEY_ID]],
      ['lab-w1', 'CPU.4V.16G', 'FIN-01', 'ubuntu-24.04', [EMULATOR_DEFAULT_SSH_KEY_ID]],
    ]);
    // The price was said before it was billed (--yes: on stderr).
    assert.match(r.stderr, /Create 2 instances and install Kubernetes \(kubeadm\) as cluster lab at [0-9.]+ USD\/hour/);
    assertKubeadmInstall(srv.execs, r.stdout + r.stderr);
    const kube = parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as { contexts: { name: string }[] };
    assert.ok(kube.contexts.some((c) => c.name === 'lab'));
  });
});

test('k8s create kubeadm --workers 2 --dry-run: the machines it creates, priced, with the defaults it chose; only reads are sent', async () => {
  await withRig(async ({ emu, srv, home, env }) => {
    const r = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '2', '--dry-run'], { home, env: { ...env, COLUMNS: '200' } });
    assert.is(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    assert.equal(out.match(/create CPU\.4V\.16G instance lab-(cp|w1|w2) in FIN-01/g)?.length, 3, out);
    assert.match(out, /join worker lab-w2 \(<W2_IP>\) to lab/);
    assert.match(out, /total: [0-9.]+\/hour/);
    assert.match(out, /default chosen: instance type CPU\.4V\.16G for all 3 machines, the cheapest CPU type/);
    assert.equal(emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2')).length, 0, 'only reads');
    assert.is(srv.commands.length, 0, 'no SSH');
  });
});

test('k8s create kubeadm: a count with --host, a count out of range, or --instance-type with --host is refused before anything is sent', async () => {
  await withRig(async ({ emu, srv, home, env }) => {
    const both = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--host', '127.0.0.1', '--workers', '2'], { home, env });
    assert.is(both.code, 2, both.stderr);
    assert.match(both.stderr, /error: usage: --workers is a count only when the plan creates the machines/);
    const many = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '51', '--dry-run'], { home, env });
    assert.is(many.code, 2, many.stderr);
    assert.match(many.stderr, /--workers must be a whole number from 1 to 50/);
    const typed = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--host', '127.0.0.1', '--instance-type', 'CPU.4V.16G'], { home, env });
    assert.is(typed.code, 2, typed.stderr);
    const unknown = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '1', '--instance-type', 'NOPE.1V', '--yes'], { home, env });
    assert.is(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /"NOPE\.1V" is not an instance type/);
    assert.equal(emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2')).length, 0);
    assert.is(srv.commands.length, 0);
  });
});

test.run();
