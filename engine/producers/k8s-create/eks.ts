/**
 * `k8s create eks <name>`: cloud_a CLI steps (provider `cloud_a`, argv `["aws", …]` run without a
 * shell): the control plane, a wait until it is active, one managed node group, a wait for it, and
 * `update-kubeconfig` with the context aliased to `<name>`. Profile and region are written into each
 * step when known (flags, else `kubernetes.clusters.<name>`), so the plan applies the same later.
 */
import { InvalidInputError, UsageError } from '../../core/errors.js';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
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

/** What a step of the plan reads at compile time (through the executor): the answer of one `aws …` read. */
export type AwsRead = (args: string[]) => Promise<unknown>;

/** The VPC eksctl makes by default: 192.168.0.0/16, a public and a private /19 in each of two zones. */
export const EKS_VPC_CIDR = '192.168.0.0/16';
const SUBNET_CIDRS = { public: ['192.168.0.0/19', '192.168.32.0/19'], private: ['192.168.64.0/19', '192.168.96.0/19'] };
/** The AWS-managed policies of the roles eksctl makes. */
export const EKS_CLUSTER_POLICIES = ['arn:aws:iam::aws:policy/AmazonEKSClusterPolicy'];
export const EKS_NODE_POLICIES = ['arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy', 'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy', 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly'];
const trust = (service: string) => JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: service }, Action: 'sts:AssumeRole' }] });

/**
 * `k8s create eks <name> --nodes N --node-type T` as the SPEC writes it: what is not given is made by
 * the plan, each as its own step, as eksctl would — the cluster and node roles with the AWS-managed
 * policies (when --role-arn is not given), and a VPC with a public and a private subnet in each of two
 * zones, an internet gateway, one NAT gateway for the private subnets (when --subnets is not given).
 * The two zones are read at compile time (`ec2 describe-availability-zones`) so the plan names them.
 */
export async function compileEksCreate(opts: EksCreateOptions, read?: AwsRead): Promise<Plan> {
  const name = requireClusterName(opts.name, 'eks');
  const nodes = positiveCount(opts.nodes, '--nodes', 2);
  const nodeType = opts.nodeType ?? 't3.medium';
  const given = (opts.subnets ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (opts.subnets !== undefined && given.length < 2) throw new UsageError('k8s create eks needs --subnets with at least two subnet IDs in different zones (or no --subnets: the plan makes a VPC)', { hint: 'e.g. --subnets subnet-0a1,subnet-0b2' });
  if (opts.nodeRoleArn && !opts.roleArn) throw new UsageError('--node-role-arn goes with --role-arn (without both, the plan makes the two roles)', { hint: 'give --role-arn too, or neither' });
  const where = [...(opts.region ? ['--region', opts.region] : []), ...(opts.profile ? ['--profile', opts.profile] : [])];
  const aws = (...args: string[]) => ['aws', ...args, ...where];
  const commands: PlanCommand[] = [];
  const notes: string[] = [];

  let roleArn = opts.roleArn;
  let nodeRoleArn = opts.nodeRoleArn ?? opts.roleArn;
  if (!roleArn) {
    const role = (id: 'CLUSTER' | 'NODE', roleName: string, service: string, policies: string[], what: string) => {
      commands.push({ args: aws('iam', 'create-role', '--role-name', roleName, '--assume-role-policy-document', trust(service), '--description', `${what} of EKS cluster ${name} (assistant k8s create eks)`), reason: `create the IAM role ${roleName}, the ${what} (trusted by ${service})`, produces: { [`${id}_ROLE_ARN`]: '$.Role.Arn' } });
      for (const p of policies) commands.push({ args: aws('iam', 'attach-role-policy', '--role-name', roleName, '--policy-arn', p), reason: `attach the AWS-managed ${p.slice(p.lastIndexOf('/') + 1)} to ${roleName}` });
    };
    role('CLUSTER', `${name}-cluster-role`, 'eks.amazonaws.com', EKS_CLUSTER_POLICIES, 'control plane role');
    role('NODE', `${name}-node-role`, 'ec2.amazonaws.com', EKS_NODE_POLICIES, 'node role');
    roleArn = '<CLUSTER_ROLE_ARN>';
    nodeRoleArn = '<NODE_ROLE_ARN>';
    notes.push(`made because --role-arn was not given: the IAM roles ${name}-cluster-role and ${name}-node-role with the AWS-managed policies eksctl attaches; creating a role changes who may do what, so it needs --destroyer`);
  }

  let clusterSubnets = given;
  let nodeSubnets = given;
  if (!given.length) {
    if (!read) throw new UsageError('k8s create eks without --subnets reads the zones of the region to make its VPC, and no read was given');
    const zones = ((await read(aws('ec2', 'describe-availability-zones', '--filters', 'Name=state,Values=available'))) as { AvailabilityZones?: { ZoneName?: string; ZoneType?: string }[] } | null)?.AvailabilityZones
      ?.filter((z) => typeof z.ZoneName === 'string' && (z.ZoneType ?? 'availability-zone') === 'availability-zone')
      .map((z) => z.ZoneName!)
      .sort()
      .slice(0, 2);
    if (!zones || zones.length < 2) throw new InvalidInputError('not_enough_zones', 'EKS needs subnets in two zones and the region has fewer than two available', { hint: 'choose another --region, or give --subnets' });
    const tag = (type: string, extra = '') => `ResourceType=${type},Tags=[{Key=Name,Value=${name}-${type === 'vpc' ? 'vpc' : extra}},{Key=kubernetes.io/cluster/${name},Value=shared}${type === 'subnet' ? `,{Key=kubernetes.io/role/${extra.startsWith('public') ? 'elb' : 'internal-elb'},Value=1}` : ''}]`;
    commands.push({ args: aws('ec2', 'create-vpc', '--cidr-block', EKS_VPC_CIDR, '--tag-specifications', tag('vpc')), reason: `create the VPC of ${name} (${EKS_VPC_CIDR})`, produces: { VPC_ID: '$.Vpc.VpcId' } });
    const subnets: Record<'public' | 'private', string[]> = { public: [], private: [] };
    for (const kind of ['public', 'private'] as const) {
      zones.forEach((zone, i) => {
        const id = `${kind.toUpperCase()}_SUBNET_${i + 1}`;
        commands.push({
          args: aws('ec2', 'create-subnet', '--vpc-id', '<VPC_ID>', '--cidr-block', SUBNET_CIDRS[kind][i]!, '--availability-zone', zone, '--tag-specifications', tag('subnet', `${kind}-${zone}`)),
          reason: `create the ${kind} subnet ${SUBNET_CIDRS[kind][i]} in ${zone}`,
          produces: { [id]: '$.Subnet.SubnetId' },
        });
        subnets[kind].push(`<${id}>`);
      });
    }
    commands.push({ args: aws('ec2', 'create-internet-gateway'), reason: 'create the internet gateway of the public subnets', produces: { IGW_ID: '$.InternetGateway.InternetGatewayId' } });
    commands.push({ args: aws('ec2', 'attach-internet-gateway', '--vpc-id', '<VPC_ID>', '--internet-gateway-id', '<IGW_ID>'), reason: 'attach it to the VPC' });
    commands.push({ args: aws('ec2', 'create-route-table', '--vpc-id', '<VPC_ID>'), reason: 'create the public route table', produces: { PUBLIC_RT_ID: '$.RouteTable.RouteTableId' } });
    commands.push({ args: aws('ec2', 'create-route', '--route-table-id', '<PUBLIC_RT_ID>', '--destination-cidr-block', '0.0.0.0/0', '--gateway-id', '<IGW_ID>'), reason: 'route the public subnets to the internet gateway' });
    for (const s of subnets.public) {
      commands.push({ args: aws('ec2', 'associate-route-table', '--route-table-id', '<PUBLIC_RT_ID>', '--subnet-id', s), reason: `use the public route table in ${s}` });
      commands.push({ args: aws('ec2', 'modify-subnet-attribute', '--subnet-id', s, '--map-public-ip-on-launch'), reason: `give what starts in ${s} a public IP (load balancers)` });
    }
    commands.push({ args: aws('ec2', 'allocate-address', '--domain', 'vpc'), reason: 'allocate the NAT gateway\'s public IPv4 address', produces: { NAT_EIP_ID: '$.AllocationId' } });
    commands.push({ args: aws('ec2', 'create-nat-gateway', '--subnet-id', subnets.public[0]!, '--allocation-id', '<NAT_EIP_ID>'), reason: `create one NAT gateway (in ${zones[0]}) for the private subnets`, produces: { NAT_ID: '$.NatGateway.NatGatewayId' } });
    commands.push({ args: aws('ec2', 'wait', 'nat-gateway-available', '--nat-gateway-ids', '<NAT_ID>'), reason: 'wait until the NAT gateway is available' });
    commands.push({ args: aws('ec2', 'create-route-table', '--vpc-id', '<VPC_ID>'), reason: 'create the private route table', produces: { PRIVATE_RT_ID: '$.RouteTable.RouteTableId' } });
    commands.push({ args: aws('ec2', 'create-route', '--route-table-id', '<PRIVATE_RT_ID>', '--destination-cidr-block', '0.0.0.0/0', '--nat-gateway-id', '<NAT_ID>'), reason: 'route the private subnets through the NAT gateway' });
    for (const s of subnets.private) commands.push({ args: aws('ec2', 'associate-route-table', '--route-table-id', '<PRIVATE_RT_ID>', '--subnet-id', s), reason: `use the private route table in ${s}` });
    clusterSubnets = [...subnets.public, ...subnets.private];
    nodeSubnets = subnets.private;
    notes.push(`made because --subnets was not given: the VPC ${EKS_VPC_CIDR} with a public and a private subnet in ${zones.join(' and ')}, an internet gateway, and one NAT gateway with its public IPv4 address (billed per hour, and per GB it carries) for the nodes in the private subnets; associating route tables and the subnets' public IPs change routing, so they need --destroyer`);
  }

  const nodegroup = `${name}-nodes`;
  commands.push(
    {
      args: aws('eks', 'create-cluster', '--name', name, '--role-arn', roleArn, '--resources-vpc-config', `subnetIds=${clusterSubnets.join(',')}`),
      reason: `create the EKS control plane ${name}`,
    },
    { args: aws('eks', 'wait', 'cluster-active', '--name', name), reason: `wait until ${name} is active` },
    {
      args: aws('eks', 'create-nodegroup', '--cluster-name', name, '--nodegroup-name', nodegroup, '--node-role', nodeRoleArn!, '--subnets', ...nodeSubnets, '--scaling-config', `minSize=${nodes},maxSize=${nodes},desiredSize=${nodes}`, '--instance-types', nodeType),
      reason: `add ${nodes} × ${nodeType} worker nodes (node group ${nodegroup})`,
    },
    { args: aws('eks', 'wait', 'nodegroup-active', '--cluster-name', name, '--nodegroup-name', nodegroup), reason: `wait until the nodes are active` },
    {
      args: ['aws', 'eks', 'update-kubeconfig', '--name', name, '--alias', name, ...(opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : []), ...where],
      reason: `add kubeconfig context ${name} (credentials through aws eks get-token)`,
    },
  );
  if (opts.nodeType === undefined) notes.push(`default chosen: node type ${nodeType}, because --node-type was not given`);
  if (opts.nodes === undefined) notes.push(`default chosen: ${nodes} nodes, because --nodes was not given`);
  return planOf(['cloud_a'], `EKS cluster ${name}: ${nodes} × ${nodeType}${given.length ? '' : ', in a new VPC'}${opts.roleArn ? '' : ', with new IAM roles'}; kubeconfig context ${name}`, commands, notes);
}
