/**
 * `k8s create kubeadm <name> --host <ip> [--workers <ip,ip>]` (machines you have; `--workers <n>` makes them:
 * kubeadm-machines.ts): SSH steps (provider `ssh`) that install
 * the Kubernetes packages, run `kubeadm init` on the control-plane host, read a join token from it,
 * join each worker, and fetch the admin kubeconfig as context `<name>`. Every remote command is
 * idempotent (guarded by the files kubeadm leaves), so `--resume` after any failure can run a step again.
 */
import { UsageError } from '../../core/errors.js';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { hostProblem } from '../../providers/ssh/verbs/common.js';
import { KUBEADM_POD_CIDR, KUBEADM_TOKEN_COMMAND, kubeadmInitScript, kubeadmInstallScript } from '../../providers/ssh/templates.js';
import { planOf, requireClusterName } from './common.js';

export interface KubeadmCreateOptions {
  name: string;
  host?: string;
  workers?: string;
  useContext?: boolean;
  /** Kubernetes minor release of the package repository (pkgs.k8s.io). */
  version?: string;
}

/** Packages and kernel settings kubeadm needs on Ubuntu; skipped when kubeadm is already there (an ssh template). */
export const installScript = kubeadmInstallScript;

export function compileKubeadmCreate(opts: KubeadmCreateOptions): Plan {
  const name = requireClusterName(opts.name, 'kubeadm');
  const host = opts.host?.trim();
  if (!host) throw new UsageError('k8s create kubeadm needs --host <ip> (the control-plane host, reachable as root over SSH), or --workers <n> to create its machines', { hint: 'assistant k8s create kubeadm lab --workers 2 --dry-run' });
  const workers = (opts.workers ?? '').split(',').map((w) => w.trim()).filter(Boolean);
  for (const h of [host, ...workers]) {
    const bad = hostProblem(h, 'host');
    if (bad) throw new UsageError(`--host/--workers: ${bad.message}`);
  }
  if (new Set([host, ...workers]).size !== workers.length + 1) throw new UsageError('--host and --workers must name different hosts');
  return planOf(['ssh'], `kubeadm cluster ${name}: control plane ${host}${workers.length ? `, workers ${workers.join(', ')}` : ''}`, kubeadmSteps(name, host, workers, opts));
}

/**
 * The SSH steps on machines that exist (or will, by the time they run: a host may be a placeholder such as
 * `<CP_IP>` that an earlier step produces): install and init on the control plane, a fresh join token
 * before each worker's join, then the admin kubeconfig as context `name`.
 */
export function kubeadmSteps(name: string, host: string, workers: readonly string[], opts: { useContext?: boolean; version?: string; label?: (host: string) => string }): PlanCommand[] {
  const install = installScript(opts.version ?? 'v1.31');
  // How a host is named in the reasons: a placeholder with the machine it will be (`lab-w1 (<W1_IP>)`).
  const at = opts.label ?? ((h: string) => h);
  const commands: PlanCommand[] = [
    { args: ['ssh-exec', host, install], reason: `install containerd, kubeadm, kubelet and kubectl on the control plane ${at(host)}` },
    {
      args: ['ssh-exec', host, kubeadmInitScript(host)],
      reason: `kubeadm init on ${at(host)} (pod network ${KUBEADM_POD_CIDR}, flannel)`,
    },
  ];
  // A join token right before each join: the journal never keeps it (it is a credential), so a resumed
  // run that needs one creates a new one instead of reading it back.
  for (const w of workers) {
    commands.push({ args: ['ssh-exec', w, install], reason: `install the Kubernetes packages on worker ${at(w)}` });
    commands.push({
      args: [
        'ssh-exec',
        host,
        KUBEADM_TOKEN_COMMAND,
      ],
      reason: `create a join token for ${at(w)} on ${at(host)} (valid 30 minutes)`,
      produces: { JOIN_ENDPOINT: '$.json.endpoint', JOIN_TOKEN: '$.json.token', JOIN_CA_HASH: '$.json.ca_cert_hash' },
    });
    commands.push({
      args: ['ssh-exec', w, 'test -f /etc/kubernetes/kubelet.conf || kubeadm join <JOIN_ENDPOINT> --token <JOIN_TOKEN> --discovery-token-ca-cert-hash <JOIN_CA_HASH>'],
      reason: `join worker ${at(w)} to ${name}`,
    });
  }
  commands.push({
    args: ['ssh-kubeconfig', host, name, ...(opts.useContext ? ['--use-context'] : [])],
    reason: `fetch the admin kubeconfig from ${at(host)} as context ${name}`,
  });
  return commands;
}
