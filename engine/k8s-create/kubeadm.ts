/**
 * `k8s create kubeadm <name> --host <ip> [--workers <ip,ip>]`: SSH steps (provider `ssh`) that install
 * the Kubernetes packages, run `kubeadm init` on the control-plane host, read a join token from it,
 * join each worker, and fetch the admin kubeconfig as context `<name>`. Every remote command is
 * idempotent (guarded by the files kubeadm leaves), so `--resume` after any failure can run a step again.
 */
import { UsageError } from '../errors.js';
import type { Plan, PlanCommand } from '../../schemas/plan.js';
import { hostProblem } from '../ssh/verbs/common.js';
import { planOf, requireClusterName } from './common.js';

export interface KubeadmCreateOptions {
  name: string;
  host?: string;
  workers?: string;
  useContext?: boolean;
  /** Kubernetes minor release of the package repository (pkgs.k8s.io). */
  version?: string;
}

const POD_CIDR = '10.244.0.0/16';

/** Packages and kernel settings kubeadm needs on Ubuntu; skipped when kubeadm is already there. */
export function installScript(version: string): string {
  return [
    'set -e',
    'swapoff -a',
    'modprobe br_netfilter',
    "printf 'net.ipv4.ip_forward=1\\nnet.bridge.bridge-nf-call-iptables=1\\n' > /etc/sysctl.d/99-kubernetes.conf && sysctl --system >/dev/null",
    'if ! command -v kubeadm >/dev/null; then',
    '  export DEBIAN_FRONTEND=noninteractive',
    '  apt-get update -q && apt-get install -y -q apt-transport-https ca-certificates curl gpg containerd',
    '  mkdir -p /etc/apt/keyrings /etc/containerd',
    `  curl -fsSL https://pkgs.k8s.io/core:/stable:/${version}/deb/Release.key | gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg`,
    `  echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/${version}/deb/ /' > /etc/apt/sources.list.d/kubernetes.list`,
    '  apt-get update -q && apt-get install -y -q kubelet kubeadm kubectl',
    "  containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/' > /etc/containerd/config.toml && systemctl restart containerd",
    'fi',
  ].join('\n');
}

export function compileKubeadmCreate(opts: KubeadmCreateOptions): Plan {
  const name = requireClusterName(opts.name, 'kubeadm');
  const host = opts.host?.trim();
  if (!host) throw new UsageError('k8s create kubeadm needs --host <ip> (the control-plane host, reachable as root over SSH)');
  const workers = (opts.workers ?? '').split(',').map((w) => w.trim()).filter(Boolean);
  for (const h of [host, ...workers]) {
    const bad = hostProblem(h, 'host');
    if (bad) throw new UsageError(`--host/--workers: ${bad.message}`);
  }
  if (new Set([host, ...workers]).size !== workers.length + 1) throw new UsageError('--host and --workers must name different hosts');
  const install = installScript(opts.version ?? 'v1.31');
  const commands: PlanCommand[] = [
    { args: ['ssh-exec', host, install], reason: `install containerd, kubeadm, kubelet and kubectl on the control plane ${host}` },
    {
      args: [
        'ssh-exec',
        host,
        [
          'set -e',
          `test -f /etc/kubernetes/admin.conf || kubeadm init --pod-network-cidr=${POD_CIDR} --apiserver-cert-extra-sans=${host}`,
          'mkdir -p /root/.kube && cp /etc/kubernetes/admin.conf /root/.kube/config && chmod 600 /root/.kube/config',
          'kubectl --kubeconfig /etc/kubernetes/admin.conf apply -f https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml',
        ].join('\n'),
      ],
      reason: `kubeadm init on ${host} (pod network ${POD_CIDR}, flannel)`,
    },
  ];
  // A join token right before each join: the journal never keeps it (it is a credential), so a resumed
  // run that needs one creates a new one instead of reading it back.
  for (const w of workers) {
    commands.push({ args: ['ssh-exec', w, install], reason: `install the Kubernetes packages on worker ${w}` });
    commands.push({
      args: [
        'ssh-exec',
        host,
        // kubeadm prints "kubeadm join <endpoint> --token <t> --discovery-token-ca-cert-hash <h>"; as JSON for `produces`.
        `kubeadm token create --ttl 30m --print-join-command | awk '{print "{\\"endpoint\\":\\"" $3 "\\",\\"token\\":\\"" $5 "\\",\\"ca_cert_hash\\":\\"" $7 "\\"}"}'`,
      ],
      reason: `create a join token for ${w} on ${host} (valid 30 minutes)`,
      produces: { JOIN_ENDPOINT: '$.json.endpoint', JOIN_TOKEN: '$.json.token', JOIN_CA_HASH: '$.json.ca_cert_hash' },
    });
    commands.push({
      args: ['ssh-exec', w, 'test -f /etc/kubernetes/kubelet.conf || kubeadm join <JOIN_ENDPOINT> --token <JOIN_TOKEN> --discovery-token-ca-cert-hash <JOIN_CA_HASH>'],
      reason: `join worker ${w} to ${name}`,
    });
  }
  commands.push({
    args: ['ssh-kubeconfig', host, name, ...(opts.useContext ? ['--use-context'] : [])],
    reason: `fetch the admin kubeconfig from ${host} as context ${name}`,
  });
  return planOf(['ssh'], `kubeadm cluster ${name}: control plane ${host}${workers.length ? `, workers ${workers.join(', ')}` : ''}`, commands);
}
