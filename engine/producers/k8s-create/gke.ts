/**
 * `k8s create gke <name>`: cloud_b CLI steps (provider `cloud_b`, argv `["gcloud", …]`): create the
 * cluster with its node pool (the command waits until it is running), then `get-credentials`, which
 * adds the kubeconfig context (named `gke_<project>_<location>_<name>` by gcloud).
 */
import { UsageError } from '../../core/errors.js';
import type { Plan } from '../../../schemas/plan.js';
import { planOf, positiveCount, requireClusterName } from './common.js';

export interface GkeCreateOptions {
  name: string;
  nodes?: unknown;
  nodeType?: string;
  gcpProject?: string;
  /** A zone (`europe-west4-a`) or region (`europe-west4`). */
  location?: string;
}

export function compileGkeCreate(opts: GkeCreateOptions): Plan {
  const name = requireClusterName(opts.name, 'gke');
  const nodes = positiveCount(opts.nodes, '--nodes', 3);
  if (!opts.gcpProject) throw new UsageError('k8s create gke needs --gcp-project', { hint: 'e.g. --gcp-project my-project-123' });
  // A zone ends in -<letter>; anything else is a region (a regional cluster).
  const where = opts.location ? [/-[a-z]$/.test(opts.location) ? '--zone' : '--region', opts.location] : [];
  const project = ['--project', opts.gcpProject];
  return planOf(['cloud_b'], `GKE cluster ${name} in ${opts.gcpProject}: ${nodes} × ${opts.nodeType ?? 'e2-standard-4'}`, [
    {
      args: ['gcloud', 'container', 'clusters', 'create', name, '--num-nodes', String(nodes), '--machine-type', opts.nodeType ?? 'e2-standard-4', ...project, ...where, '--format', 'json'],
      reason: `create the GKE cluster ${name} with ${nodes} nodes (waits until it runs)`,
    },
    { args: ['gcloud', 'container', 'clusters', 'get-credentials', name, ...project, ...where], reason: `add its kubeconfig context` },
  ]);
}
