/**
 * What the `k8s create kubeadm --provider cloud_a` tests share: an in-test SSH server (its client key is
 * the key the plan puts on the machines; it answers as the control plane on 127.0.0.1 and the worker on
 * 127.0.0.2), a home whose config names that key, and the compiled plan split into its machine part
 * (aws steps) and its SSH part.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import ssh2 from 'ssh2';
import { runCli, tempHome } from './cli.js';
import type { RunningMoto } from './moto.js';
import { kubeadmHostExec } from './kubeadm.js';
import { headNodeKubeconfig, startSshServer, type SshTestServer } from './ssh-server.js';
import { tempDir } from './temp.js';

export const T = { timeoutMs: 400_000 };
export const CALLER = '203.0.113.7/32';

export type PlanDoc = { version: number; provider: string | string[]; summary?: string; notes?: string[]; commands: { args: string[]; reason: string; produces?: Record<string, string> }[] };

/** `k8s create kubeadm lab --workers <n> --provider cloud_a --ssh-from CALLER …`. */
export const kubeadm = (workers: string, ...more: string[]) => ['k8s', 'create', 'kubeadm', 'lab', '--workers', workers, '--provider', 'cloud_a', '--ssh-from', CALLER, ...more];

export function planFile(plan: PlanDoc): string {
  const file = join(tempDir('kubeadm-a-plan-'), 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

export interface KubeadmCloudARig {
  sshServer(): Promise<SshTestServer>;
  /** A home whose config names the SSH server's key and port (and `extra` config lines). */
  homeWithKey(extra?: string): Promise<string>;
  /** The OpenSSH public key line of the SSH server's client key (what root's authorized_keys must get). */
  publicKey(): Promise<string>;
  /**
   * The compiled plan (`--plan`, one worker), split into its aws steps (the machines) and the rest (SSH);
   * compiled once per file (each aws call costs seconds on a busy machine; moto's reset keeps its images).
   */
  compiled(m: RunningMoto, home: string): Promise<{ plan: PlanDoc; machines: PlanDoc; ssh: PlanDoc }>;
  close(): Promise<void>;
}

export function kubeadmCloudARig(): KubeadmCloudARig {
  let srv: Promise<SshTestServer> | undefined;
  let once: Promise<{ plan: PlanDoc; machines: PlanDoc; ssh: PlanDoc }> | undefined;
  const sshServer = () =>
    (srv ??= startSshServer(tempDir('assistant-kubeadm-a-'), {
      files: { '/root/.kube/config': headNodeKubeconfig({ server: 'https://10.1.0.5:6443' }) },
      alsoOn: ['127.0.0.2'],
      filesAt: { '127.0.0.2': {} },
      exec: kubeadmHostExec,
    }));
  const compile = async (m: RunningMoto, home: string) => {
    const r = await runCli(kubeadm('1', '--plan'), { ...T, env: m.env, home });
    assert.is(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as PlanDoc;
    const aws = plan.commands.filter((c) => c.args[0] === 'aws');
    return { plan, machines: { version: 1, provider: 'cloud_a', commands: aws }, ssh: { version: 1, provider: 'ssh', commands: plan.commands.slice(aws.length) } };
  };
  return {
    sshServer,
    async homeWithKey(extra = '') {
      const s = await sshServer();
      const home = tempHome();
      writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  ssh_key_path: ${s.clientKeyPath}\n  ssh_port: ${s.port}\n${extra}`, { mode: 0o600 });
      return home;
    },
    async publicKey() {
      const key = ssh2.utils.parseKey(readFileSync((await sshServer()).clientKeyPath)) as ssh2.ParsedKey;
      return `${key.type} ${key.getPublicSSH().toString('base64')}`;
    },
    compiled(m, home) {
      once ??= compile(m, home);
      return once;
    },
    async close() {
      await (await srv)?.close();
    },
  };
}
