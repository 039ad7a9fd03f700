/**
 * `k8s create eks <name>`: cloud_a CLI steps (provider `cloud_a`, argv `["aws", …]` run without a
 * shell): the control plane, a wait until it is active, one managed node group, a wait for it, and
 * `update-kubeconfig` with the context aliased to `<name>`. Profile and region are written into each
 * step when known (flags, else `kubernetes.clusters.<name>`), so the plan applies the same later.
 */
import { UsageError } from '../../core/errors.js';
import type { Plan } from '../../../schemas/plan.js';
import { planOf, positiveCount, requireClusterName } from './common.js';

export interface EksCreateOptions {
  name: string;
  nodes?: unknown;
  nodeType?: string;
  roleArn?: string;
  nodeRoleArn?: string;
  subnets?: string;
  region?: string;
  profile?: string;
  /** kubernetes.kubeconfig, when configured: update-kubeconfig writes there. */
  kubeconfig?: string;
}

export function compileEksCreate(opts: EksCreateOptions): Plan {
  const name = requireClusterName(opts.name, 'eks');
  const nodes = positiveCount(opts.nodes, '--nodes', 2);
  const nodeType = opts.nodeType ?? 't3.medium';
  if (!opts.roleArn) throw new UsageError('k8s create eks needs --role-arn (the IAM role EKS uses for the control plane)', { hint: 'e.g. --role-arn arn:aws:iam::123456789012:role/eks-cluster' });
  const subnets = (opts.subnets ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (subnets.length < 2) throw new UsageError('k8s create eks needs --subnets with at least two subnet IDs in different zones', { hint: 'e.g. --subnets subnet-0a1,subnet-0b2' });
  const where = [...(opts.region ? ['--region', opts.region] : []), ...(opts.profile ? ['--profile', opts.profile] : [])];
  const nodegroup = `${name}-nodes`;
  return planOf(['cloud_a'], `EKS cluster ${name}: ${nodes} × ${nodeType}; kubeconfig context ${name}`, [
    {
      args: ['aws', 'eks', 'create-cluster', '--name', name, '--role-arn', opts.roleArn, '--resources-vpc-config', `subnetIds=${subnets.join(',')}`, ...where],
      reason: `create the EKS control plane ${name}`,
    },
    { args: ['aws', 'eks', 'wait', 'cluster-active', '--name', name, ...where], reason: `wait until ${name} is active` },
    {
      args: [
        'aws', 'eks', 'create-nodegroup', '--cluster-name', name, '--nodegroup-name', nodegroup,
        '--node-role', opts.nodeRoleArn ?? opts.roleArn, '--subnets', ...subnets,
        '--scaling-config', `minSize=${nodes},maxSize=${nodes},desiredSize=${nodes}`, '--instance-types', nodeType, ...where,
      ],
      reason: `add ${nodes} × ${nodeType} worker nodes (node group ${nodegroup})`,
    },
    { args: ['aws', 'eks', 'wait', 'nodegroup-active', '--cluster-name', name, '--nodegroup-name', nodegroup, ...where], reason: `wait until the nodes are active` },
    {
      args: ['aws', 'eks', 'update-kubeconfig', '--name', name, '--alias', name, ...(opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : []), ...where],
      reason: `add kubeconfig context ${name} (credentials through aws eks get-token)`,
    },
  ]);
}
