/**
 * `k8s create kubeadm <name> --workers <n>`: the cluster's machines made by the plan itself (issue 39
 * item 3) — a control plane and n workers from whichever provider's `machines` capability the user
 * chose (gpucloud instances by default; `--provider cloud_a`: EC2 instances in a security group of their
 * own), each ending with its public IP bound to a placeholder, then the same SSH steps as for machines
 * you already have (kubeadm.ts kubeadmSteps: named templates, a fresh join token per worker, the
 * kubeconfig fetched and sanitised). The provider's creates are ordinary steps: priced in the dry run
 * and the confirmation, gated like any other step, on the one apply path. This producer names no cloud:
 * it asks for machines of kubeadm's minimum size, with the openings a cluster needs.
 */
import { UsageError } from '../../core/errors.js';
import type { DeployContext, MachineIngress, MachinesCapability } from '../../core/capabilities.js';
import type { Plan } from '../../../schemas/plan.js';
import { kubeadmSteps } from './kubeadm.js';
import { planOf, positiveCount, requireClusterName } from './common.js';

/** What kubeadm's preflight asks of every node: 2 CPUs and about 2 GB of memory. */
export const KUBEADM_MIN_CORES = 2;
export const KUBEADM_MIN_MEMORY_GB = 2;
/** The most workers one command makes (each is a billed machine). */
export const MAX_KUBEADM_WORKERS = 50;

/**
 * Where a cluster's machines must be reachable from: SSH and the API server from the caller (the steps
 * and kubectl), everything between the nodes (the API server, the kubelets, flannel's VXLAN).
 */
export const KUBEADM_INGRESS: readonly MachineIngress[] = [
  { protocol: 'tcp', port: 22, from: 'caller', why: 'SSH' },
  { protocol: 'tcp', port: 6443, from: 'caller', why: 'the Kubernetes API' },
  { protocol: 'all', from: 'group', why: 'node to node' },
];

export interface KubeadmMachinesOptions {
  name: string;
  /** `--workers <n>` as given. */
  workers: unknown;
  instanceType?: string;
  location?: string;
  image?: string;
  /** `--ssh-from`: the caller's address, for providers whose machines have a firewall. */
  callerCidr?: string;
  /** The public key of the SSH steps' private key, for providers that put it on the machines. */
  sshPublicKey?: string;
  useContext?: boolean;
  version?: string;
}

/** Whether `--workers` is a count (make the machines) rather than host addresses. */
export const isWorkerCount = (v: unknown): boolean => typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v));

/** How many workers `--workers <n>` asks for: 1 to MAX_KUBEADM_WORKERS, or a usage error naming the flag. */
export const workerCount = (v: unknown): number => positiveCount(v, '--workers', 1, MAX_KUBEADM_WORKERS);

export async function compileKubeadmMachines(opts: KubeadmMachinesOptions, maker: MachinesCapability, ctx: DeployContext): Promise<Plan> {
  const name = requireClusterName(opts.name, 'kubeadm');
  const workers = workerCount(opts.workers);
  const hostnames = [`${name}-cp`, ...Array.from({ length: workers }, (_, i) => `${name}-w${i + 1}`)];
  if (hostnames.at(-1)!.length > 63) throw new UsageError(`"${name}" is too long to name its machines (${hostnames.at(-1)} is over 63 characters)`, { hint: 'choose a shorter cluster name' });
  const made = await maker.compile(
    {
      name,
      machines: hostnames.map((hostname, i) => ({ hostname, role: i === 0 ? 'control plane' : `worker ${i}` })),
      minCores: KUBEADM_MIN_CORES,
      minMemoryGb: KUBEADM_MIN_MEMORY_GB,
      os: 'ubuntu',
      ingress: KUBEADM_INGRESS,
      callerCidr: opts.callerCidr,
      sshPublicKey: opts.sshPublicKey,
      instanceType: opts.instanceType,
      location: opts.location,
      image: opts.image,
      purpose: `kubeadm cluster ${name} (assistant k8s create kubeadm)`,
    },
    ctx,
  );
  const [cp, ...workerIps] = made.ips;
  // How a host is named in the SSH steps' reasons: the placeholder with the machine it will be (`lab-w1 (<W1_IP>)`).
  const label = (h: string) => `${hostnames[made.ips.indexOf(h)] ?? '?'} (${h})`;
  return planOf(
    [...made.providers, 'ssh'],
    `kubeadm cluster ${name}: ${made.chosen} (control plane ${hostnames[0]}, ${workers} worker(s)); kubeconfig context ${name}`,
    [...made.commands, ...kubeadmSteps(name, cp!, workerIps, { ...opts, label })],
    made.remarks,
  );
}
