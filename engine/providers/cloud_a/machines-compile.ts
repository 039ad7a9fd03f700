/**
 * Machines as EC2 instances (`k8s create kubeadm --workers <n> --provider cloud_a`, issue 39 item 3):
 * a security group of their own with exactly the openings asked for (from the caller's CIDR, or from
 * the group itself), one `run-instances` per machine (Name-tagged, so the duplicate-name check and
 * exactly-once see each), a wait until each runs, and its public IP read into `<CP_IP>`, `<W1_IP>`, ….
 *
 * Read at compile time through the executor, so the plan names exactly what it makes: the region (when
 * --location is not given: the aws CLI's own, written into every step so the plan applies the same
 * later), the instance type's size and architecture (`describe-instance-types`: refused below the
 * minimum), and the image (`describe-images`: Canonical's newest Ubuntu server AMI for that
 * architecture, or the --image given, checked to exist). Root logs in with the caller's key: EC2 has no
 * key registry the SSH steps could name, so cloud-init's user data puts the key there.
 */
import { isIPv4 } from 'node:net';
import type { DeployContext, MachineIngress, MachinesCompiled, MachinesRequest } from '../../core/capabilities.js';
import { AssistantError, InvalidInputError, UsageError } from '../../core/errors.js';
import type { PlanCommand } from '../../../schemas/plan.js';
import { PUBLIC_IPV4_HOURLY } from './prices.js';

/** Canonical's account: the owner of the official Ubuntu AMIs. */
export const CANONICAL_OWNER = '099720109477';
/** The smallest general-purpose type with 2 vCPUs and 2 GiB (kubeadm's minimum), when --instance-type is not given. */
export const DEFAULT_MACHINE_TYPE = 't3.small';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
const AMI = /^ami-[0-9a-f]{8,17}$/;

type Rec = Record<string, unknown>;
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((r): r is Rec => typeof r === 'object' && r !== null) : []);

/** The placeholder names of machine `i` (0 is the first): `CP` for a control plane, `W<i>` after it. */
const machineId = (i: number) => (i === 0 ? 'CP' : `W${i}`);

/** One `aws` read through the executor, its JSON answer. */
async function awsRead(ctx: DeployContext, args: string[], reason: string): Promise<Rec> {
  const [data] = await ctx.read({ version: 1, provider: 'cloud_a', commands: [{ args: ['aws', ...args], reason }] });
  return (data && typeof data === 'object' ? data : {}) as Rec;
}

/** An IPv4 CIDR as given (`203.0.113.7/32`; a bare address is /32), or a usage error. */
export function callerCidr(value: string | undefined): string {
  if (!value) throw new UsageError('the EC2 machines open SSH and the Kubernetes API only to your address, and --ssh-from was not given', { hint: 'pass --ssh-from <your public IPv4>/32 (e.g. from: curl https://checkip.amazonaws.com)' });
  const [ip, bits, ...rest] = value.trim().split('/');
  const prefix = bits === undefined ? 32 : /^\d{1,2}$/.test(bits) ? Number(bits) : NaN;
  if (!ip || !isIPv4(ip) || rest.length || !(prefix >= 0 && prefix <= 32)) throw new UsageError(`--ssh-from must be an IPv4 address or CIDR such as 203.0.113.7/32 (got "${value}")`);
  return `${ip}/${prefix}`;
}

/** The instance type's vCPUs, memory and architectures, or a usage error for a type the region does not have. */
async function instanceType(ctx: DeployContext, type: string, region: string): Promise<{ vcpus: number; memoryGib: number; arch: string }> {
  let data: Rec;
  try {
    data = await awsRead(ctx, ['ec2', 'describe-instance-types', '--instance-types', type, '--region', region], 'read the instance type\'s size and architecture to compile the plan');
  } catch (err) {
    if (err instanceof AssistantError && /InvalidInstanceType|not a valid instance type|does not exist/i.test(err.message)) throw new UsageError(`"${type}" is not an EC2 instance type in ${region}`, { hint: `e.g. --instance-type ${DEFAULT_MACHINE_TYPE}` });
    throw err;
  }
  const t = recs(data.InstanceTypes).find((x) => x.InstanceType === type);
  if (!t) throw new UsageError(`"${type}" is not an EC2 instance type in ${region}`, { hint: `e.g. --instance-type ${DEFAULT_MACHINE_TYPE}` });
  const vcpus = Number((t.VCpuInfo as Rec | undefined)?.DefaultVCpus);
  const memoryGib = Number((t.MemoryInfo as Rec | undefined)?.SizeInMiB) / 1024;
  const archs = ((t.ProcessorInfo as Rec | undefined)?.SupportedArchitectures as unknown[] | undefined)?.map(String) ?? [];
  const arch = archs.includes('x86_64') ? 'x86_64' : archs.includes('arm64') ? 'arm64' : undefined;
  if (!arch) throw new InvalidInputError('unsupported_architecture', `${type} runs ${archs.join(', ') || 'no known architecture'}; the machines need x86_64 or arm64`, { hint: `e.g. --instance-type ${DEFAULT_MACHINE_TYPE}` });
  return { vcpus, memoryGib, arch };
}

/** The Ubuntu release in a Canonical image name (`…/ubuntu-noble-24.04-amd64-server-20250115` → [24, 4]). */
const releaseOf = (name: string): number[] => (/-(\d+)\.(\d+)-/.exec(name)?.slice(1).map(Number) ?? [0, 0]);

/** A long-term-support release (`24.04`: an even year's April), which pkgs.k8s.io and kubeadm are tested on. */
const lts = (release: number[]) => (release[0]! % 2 === 0 && release[1] === 4 ? 1 : 0);

/** Canonical's newest Ubuntu server AMI for `arch` in the region: an LTS release first, the highest, then the newest build. */
async function ubuntuImage(ctx: DeployContext, arch: string, region: string): Promise<{ id: string; name: string }> {
  const data = await awsRead(
    ctx,
    ['ec2', 'describe-images', '--owners', CANONICAL_OWNER, '--filters', 'Name=name,Values=ubuntu/images/*/ubuntu-*-server-*', `Name=architecture,Values=${arch}`, 'Name=state,Values=available', '--region', region],
    'find Canonical\'s newest Ubuntu server image to compile the plan',
  );
  const images = recs(data.Images)
    .filter((i) => typeof i.ImageId === 'string' && typeof i.Name === 'string')
    .map((i) => ({ id: i.ImageId as string, name: i.Name as string, created: typeof i.CreationDate === 'string' ? i.CreationDate : '' }))
    .sort((a, b) => {
      const [ra, rb] = [releaseOf(a.name), releaseOf(b.name)];
      return lts(rb) - lts(ra) || rb[0]! - ra[0]! || rb[1]! - ra[1]! || b.created.localeCompare(a.created) || b.name.localeCompare(a.name);
    });
  if (!images[0]) throw new InvalidInputError('unknown_image', `no Ubuntu server image of Canonical (${CANONICAL_OWNER}) for ${arch} in ${region}`, { hint: 'name one with --image ami-…' });
  return images[0];
}

/** The AMI given with --image: it exists in the region and runs on the type's architecture. */
async function givenImage(ctx: DeployContext, id: string, arch: string, region: string): Promise<{ id: string; name: string }> {
  if (!AMI.test(id)) throw new UsageError(`--image must be an AMI ID such as ami-0abcdef1234567890 for cloud_a (got "${id}")`);
  let data: Rec;
  try {
    data = await awsRead(ctx, ['ec2', 'describe-images', '--image-ids', id, '--region', region], 'check the image given with --image');
  } catch (err) {
    if (err instanceof AssistantError && /InvalidAMIID/i.test(err.message)) throw new UsageError(`no image ${id} in ${region}`, { hint: 'leave --image out to use Canonical\'s newest Ubuntu server image' });
    throw err;
  }
  const image = recs(data.Images).find((i) => i.ImageId === id);
  if (!image) throw new UsageError(`no image ${id} in ${region}`, { hint: 'leave --image out to use Canonical\'s newest Ubuntu server image' });
  if (typeof image.Architecture === 'string' && image.Architecture !== arch) throw new UsageError(`image ${id} is for ${image.Architecture} and the instance type runs ${arch}`, { hint: 'choose an image and an --instance-type of one architecture' });
  return { id, name: typeof image.Name === 'string' ? image.Name : id };
}

/** The cloud-init user data that lets root log in with the caller's key (sshd allows root by key only on Ubuntu). */
export function rootKeyUserData(publicKey: string): string {
  return ['#cloud-config', 'disable_root: false', 'ssh_authorized_keys:', `  - ${JSON.stringify(publicKey)}`, ''].join('\n');
}

/** A rule's Name tag (`lab-machines-tcp-22-from-caller`). */
const ruleName = (group: string, rule: MachineIngress) => `${group}-${rule.protocol}${rule.port === undefined ? '' : `-${rule.port}`}-from-${rule.from}`;

/** The `authorize-security-group-ingress` arguments of one opening. */
function opening(rule: MachineIngress, cidr: string | undefined): { args: string[]; what: string } {
  const ports = rule.protocol === 'all' ? [] : ['--port', String(rule.port)];
  const proto = ['--protocol', rule.protocol];
  const port = rule.protocol === 'all' ? 'every port' : `${rule.protocol} ${rule.port}`;
  return rule.from === 'group'
    ? { args: [...proto, ...ports, '--source-group', '<SG_ID>'], what: `${port} between the machines (${rule.why})` }
    : { args: [...proto, ...ports, '--cidr', cidr!], what: `${port} from ${cidr} (${rule.why})` };
}

export async function compileCloudAMachines(req: MachinesRequest, ctx: DeployContext): Promise<MachinesCompiled> {
  const cidr = req.ingress.some((r) => r.from === 'caller') ? callerCidr(req.callerCidr) : undefined;
  if (!req.sshPublicKey) throw new InvalidInputError('ssh_key_missing', 'the EC2 machines get the public key of the SSH key the steps log in with, and none is configured', { hint: 'set gpucloud.ssh_key_path to your private key (its public key goes on the machines)' });
  if (req.instanceType !== undefined && !INSTANCE_TYPE.test(req.instanceType)) throw new UsageError(`--instance-type must be an EC2 type such as ${DEFAULT_MACHINE_TYPE} (got "${req.instanceType}")`);
  if (req.location !== undefined && !REGION.test(req.location)) throw new UsageError(`--location is the AWS region for cloud_a, such as us-east-1 (got "${req.location}")`);

  const region =
    req.location ??
    (recs((await awsRead(ctx, ['ec2', 'describe-availability-zones'], 'read the aws CLI\'s region to compile the plan')).AvailabilityZones).map((z) => z.RegionName).find((r): r is string => typeof r === 'string'));
  if (!region) throw new InvalidInputError('no_region', 'cannot tell which region the aws CLI uses', { hint: 'pass --location <region>, e.g. us-east-1' });
  const type = req.instanceType ?? DEFAULT_MACHINE_TYPE;
  const size = await instanceType(ctx, type, region);
  if (size.vcpus < req.minCores || size.memoryGib < req.minMemoryGb) {
    throw new UsageError(`${type} has ${size.vcpus} vCPUs and ${+size.memoryGib.toFixed(1)} GiB; the machines need at least ${req.minCores} and ${req.minMemoryGb} GiB`, { hint: `e.g. --instance-type ${DEFAULT_MACHINE_TYPE}` });
  }
  const image = req.image ? await givenImage(ctx, req.image, size.arch, region) : await ubuntuImage(ctx, size.arch, region);

  const at = ['--region', region];
  const group = `${req.name}-machines`;
  const tags = (type: string, name: string, role?: string) => `ResourceType=${type},Tags=[{Key=Name,Value=${name}},{Key=assistant-machines,Value=${req.name}}${role ? `,{Key=assistant-role,Value=${role.replace(/\s+/g, '-')}}` : ''}]`;
  const openings = req.ingress.map((r) => opening(r, cidr));
  const commands: PlanCommand[] = [
    {
      args: ['aws', 'ec2', 'create-security-group', '--group-name', group, '--description', `${req.purpose}: its machines`, '--tag-specifications', tags('security-group', group), ...at],
      reason: `create the security group ${group} of ${req.name}'s machines (nothing open yet)`,
      produces: { SG_ID: '$.GroupId' },
    },
    // Each rule Name-tagged: it is a named create, checked and adopted exactly once like the group and the instances.
    ...openings.map(({ args, what }, i) => ({ args: ['aws', 'ec2', 'authorize-security-group-ingress', '--group-id', '<SG_ID>', ...args, '--tag-specifications', tags('security-group-rule', ruleName(group, req.ingress[i]!)), ...at], reason: `open ${what}` })),
    ...req.machines.map(({ hostname, role }, i) => ({
      args: ['aws', 'ec2', 'run-instances', '--image-id', image.id, '--instance-type', type, '--count', '1', '--security-group-ids', '<SG_ID>', '--user-data', rootKeyUserData(req.sshPublicKey!), '--tag-specifications', tags('instance', hostname, role), ...at],
      reason: `create ${type} instance ${hostname} in ${region}, the ${role} of ${req.name}`,
      produces: { [`${machineId(i)}_ID`]: '$.Instances[0].InstanceId' },
    })),
    ...req.machines.flatMap(({ hostname }, i): PlanCommand[] => [
      { args: ['aws', 'ec2', 'wait', 'instance-running', '--instance-ids', `<${machineId(i)}_ID>`, ...at], reason: `wait until ${hostname} is running` },
      { args: ['aws', 'ec2', 'describe-instances', '--instance-ids', `<${machineId(i)}_ID>`, ...at], reason: `read ${hostname}'s public IP`, produces: { [`${machineId(i)}_IP`]: '$.Reservations[0].Instances[0].PublicIpAddress' } },
    ]),
  ];
  const n = req.machines.length;
  const notes = [
    ...(req.instanceType ? [] : [`default chosen: instance type ${type} (${size.vcpus} vCPUs, ${+size.memoryGib.toFixed(1)} GiB, the smallest general-purpose type with the minimum asked for) for all ${n} machines, because --instance-type was not given`]),
    ...(req.location ? [] : [`default chosen: region ${region}, the aws CLI's own, because --location was not given (written into every step, so the plan applies there later too)`]),
    req.image ? `image ${image.id} (${image.name}), as given with --image: the steps after the machines are written for Ubuntu` : `default chosen: image ${image.id} (${image.name}), Canonical's newest Ubuntu ${lts(releaseOf(image.name)) ? 'LTS ' : ''}server image for ${size.arch} in ${region} (found now; the plan keeps this one), because --image was not given`,
    `security group ${group} opens ${openings.map((o) => o.what).join('; ')}; nothing else`,
    'root logs in over SSH with your key (the public key of gpucloud.ssh_key_path, put there by cloud-init user data); the machines are in the default VPC with public IPv4 addresses',
    `billed on top of the instance hours priced here: each machine's public IPv4 address (${PUBLIC_IPV4_HOURLY} USD/hour) and its EBS root volume; they bill until you delete them: aws ec2 terminate-instances --instance-ids <ids> (${req.machines.map((m) => m.hostname).join(', ')}), then aws ec2 delete-security-group --group-name ${group}`,
  ];
  return { providers: ['cloud_a'], commands, ips: req.machines.map((_, i) => `<${machineId(i)}_IP>`), remarks: notes, chosen: `${n} × ${type} in ${region}, image ${image.id}` };
}
