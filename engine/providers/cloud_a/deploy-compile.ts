/**
 * `deploy --provider cloud_a`: the same analysis compiled into `aws` steps (c1's provider; the steps
 * are command lines run without a shell, their JSON output read by `produces`).
 *
 * target `container` (default, the container service): secrets in Secrets Manager (values bound at
 * apply time only) → an ECS cluster → a Fargate task definition → the default subnet → a service.
 * target `vm`: an Ubuntu AMI (SSM public parameter, or `--ami`) → a security group opening the port →
 * an EC2 instance whose user data is the same startup script as on gpucloud → wait until running → its
 * public IP for the URL.
 *
 * Not done here: redeploys (a second deploy of a name is refused by the duplicate-name check for VMs,
 * and by ECS for services), load balancers, and IAM roles (a task execution role is needed in a real
 * account to read secrets and private images; the plan notes say so).
 */
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { InvalidInputError } from '../../core/errors.js';
import type { DeployCompiled } from '../../core/capabilities.js';
import type { DeployRequest } from '../../core/deploy-types.js';
import { secretBinding } from '../../core/kits/deploy/names.js';
import { deployScript } from '../../core/kits/deploy/startup-script.js';

export type CloudATarget = 'container' | 'vm';

/** Canonical's public SSM parameter for the current Ubuntu 24.04 LTS AMI of the region. */
export const UBUNTU_AMI_PARAMETER = '/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id';

/** The smallest (cheapest) general-purpose type, or a GPU type with enough GPU memory (on-demand list prices, us-east-1). */
const GPU_TYPES: { type: string; gpuMemGb: number }[] = [
  { type: 'g4dn.xlarge', gpuMemGb: 16 }, // 1x T4
  { type: 'g5.xlarge', gpuMemGb: 24 }, // 1x A10G
  { type: 'g6e.xlarge', gpuMemGb: 48 }, // 1x L40S
  { type: 'p4d.24xlarge', gpuMemGb: 320 }, // 8x A100 40GB
];

export function awsInstanceType(req: Pick<DeployRequest, 'instanceType' | 'stack'>): string {
  if (req.instanceType) return req.instanceType;
  if (!req.stack.gpu.needed) return 't3.small';
  const need = req.stack.gpu.memoryGb ?? 0;
  const fit = GPU_TYPES.find((t) => t.gpuMemGb >= need);
  if (!fit) throw new InvalidInputError('no_fitting_type', `no cloud_a GPU type in deploy's list has ${need} GB of GPU memory`, { hint: 'name one with --instance-type' });
  return fit.type;
}

export function compileCloudA(req: DeployRequest & { awsTarget: CloudATarget; ami?: string; region?: string }): DeployCompiled {
  const region = req.region ? ['--region', req.region] : [];
  const aws = (...args: string[]) => ['aws', ...args, ...region];
  return req.awsTarget === 'vm' ? compileVm(req, aws) : compileService(req, aws);
}

function compileVm(req: DeployRequest & { ami?: string }, aws: (...a: string[]) => string[]): DeployCompiled {
  const type = awsInstanceType(req);
  const secretNames = req.env.filter((e) => e.secret).map((e) => e.name);
  const script = deployScript(req);
  const commands: PlanCommand[] = [];
  if (!req.ami) {
    commands.push({ args: aws('ssm', 'get-parameters', '--names', UBUNTU_AMI_PARAMETER), reason: 'the current Ubuntu 24.04 AMI of the region (Canonical\'s public parameter)', produces: { AMI_ID: '$.Parameters[0].Value' } });
  }
  commands.push(
    ...openPort(req, aws),
    {
      args: aws(
        'ec2',
        'run-instances',
        '--image-id',
        req.ami ?? '<AMI_ID>',
        '--instance-type',
        type,
        '--count',
        '1',
        '--security-group-ids',
        '<SG_ID>',
        '--user-data',
        script,
        '--tag-specifications',
        `ResourceType=instance,Tags=[{Key=Name,Value=${req.name}}]`,
      ),
      reason: `create ${type} VM ${req.name} (${req.stack.gpu.needed ? 'GPU' : 'CPU'}); its user data installs the runtime, fetches ${req.url} at ${req.sha.slice(0, 7)} and runs it under systemd`,
      produces: { INSTANCE_ID: '$.Instances[0].InstanceId' },
    },
    { args: aws('ec2', 'wait', 'instance-running', '--instance-ids', '<INSTANCE_ID>'), reason: `wait until ${req.name} is running` },
    {
      args: aws('ec2', 'describe-instances', '--instance-ids', '<INSTANCE_ID>'),
      reason: `read ${req.name}'s public IP`,
      produces: { INSTANCE_IP: '$.Reservations[0].Instances[0].PublicIpAddress' },
    },
  );
  const notes: string[] = [];
  if (secretNames.length) notes.push(`secret variables are not put on the VM by this plan: add ${secretNames.join(', ')} to /etc/assistant-deploy/${req.name}.env on it, then: systemctl restart assistant-deploy-${req.name}`);
  if (req.privateRepo) notes.push('the repository is private: the VM clones it itself, so give it read access of its own (a deploy key)');
  return {
    plan: plan(`deploy ${req.url} at ${req.sha.slice(0, 7)} as ${req.name} on a ${type} VM (cloud_a); then http://<INSTANCE_IP>:${req.port}`, commands, notes),
    secretBindings: {},
    url: `http://<INSTANCE_IP>:${req.port}`,
    mode: 'create',
    chosen: type,
  };
}

/** A security group of the default VPC that lets the world reach the service's port (produces SG_ID). */
function openPort(req: DeployRequest, aws: (...a: string[]) => string[]): PlanCommand[] {
  return [
    {
      args: aws('ec2', 'create-security-group', '--group-name', `deploy-${req.name}`, '--description', `assistant deploy ${req.name}: port ${req.port}`),
      reason: `a security group for ${req.name}`,
      produces: { SG_ID: '$.GroupId' },
    },
    {
      args: aws('ec2', 'authorize-security-group-ingress', '--group-id', '<SG_ID>', '--protocol', 'tcp', '--port', String(req.port), '--cidr', '0.0.0.0/0'),
      reason: `open port ${req.port} to the world (the service's URL)`,
    },
  ];
}

function compileService(req: DeployRequest, aws: (...a: string[]) => string[]): DeployCompiled {
  if (!req.image) throw new InvalidInputError('no_image', 'the cloud_a container service runs a prebuilt image', { hint: 'name it with --image <registry/name:tag>, or deploy to a VM (--target vm)' });
  if (req.stack.gpu.needed) throw new InvalidInputError('no_gpu_containers', 'the service needs a GPU and the cloud_a container service (Fargate) has none', { hint: 'deploy to a VM (--target vm)' });
  const commands: PlanCommand[] = [];
  const secretBindings: Record<string, string> = {};
  const secrets: { name: string; valueFrom: string }[] = [];
  for (const e of req.env.filter((v) => v.secret)) {
    const binding = secretBinding(e.name);
    const arn = `SECRET_ARN_${binding.slice('DEPLOY_SECRET_'.length)}`;
    secretBindings[binding] = e.value;
    commands.push({
      args: aws('secretsmanager', 'create-secret', '--name', `deploy/${req.name}/${e.name}`, '--secret-string', `<${binding}>`),
      reason: `secret ${e.name} in Secrets Manager (its value comes from --env-file when applied; it is never in the plan)`,
      produces: { [arn]: '$.ARN' },
    });
    secrets.push({ name: e.name, valueFrom: `<${arn}>` });
  }
  const container = {
    name: 'main',
    image: req.image,
    essential: true,
    portMappings: [{ containerPort: req.port, protocol: 'tcp' }],
    environment: req.env.filter((e) => !e.secret).map((e) => ({ name: e.name, value: e.value })),
    ...(secrets.length ? { secrets } : {}),
  };
  commands.push(
    { args: aws('ecs', 'create-cluster', '--cluster-name', req.name), reason: `an ECS cluster for ${req.name}` },
    {
      args: aws('ecs', 'register-task-definition', '--family', req.name, '--requires-compatibilities', 'FARGATE', '--network-mode', 'awsvpc', '--cpu', '512', '--memory', '1024', '--container-definitions', JSON.stringify([container])),
      reason: `task definition: ${req.image} on port ${req.port} (0.5 vCPU, 1 GB)`,
      produces: { TASK_DEFINITION: '$.taskDefinition.taskDefinitionArn' },
    },
    { args: aws('ec2', 'describe-subnets', '--filters', 'Name=default-for-az,Values=true'), reason: 'a default subnet for the service', produces: { SUBNET_ID: '$.Subnets[0].SubnetId' } },
    ...openPort(req, aws),
    {
      args: aws(
        'ecs',
        'create-service',
        '--cluster',
        req.name,
        '--service-name',
        req.name,
        '--task-definition',
        '<TASK_DEFINITION>',
        '--desired-count',
        String(Math.max(1, req.minReplicas)),
        '--launch-type',
        'FARGATE',
        '--network-configuration',
        'awsvpcConfiguration={subnets=[<SUBNET_ID>],securityGroups=[<SG_ID>],assignPublicIp=ENABLED}',
      ),
      reason: `run ${Math.max(1, req.minReplicas)} task(s) of ${req.name} on Fargate`,
      produces: { SERVICE_ARN: '$.service.serviceArn' },
    },
  );
  const notes = ['the service has no load balancer: each task gets a public IP on port ' + req.port + ' (see it with aws ecs list-tasks / describe-tasks)'];
  if (secrets.length) notes.push('reading secrets needs a task execution role with secretsmanager:GetSecretValue (register-task-definition --execution-role-arn); deploy does not create IAM roles');
  return {
    plan: plan(`deploy ${req.image} (from ${req.url} at ${req.sha.slice(0, 7)}) as ECS service ${req.name} (cloud_a)`, commands, notes),
    secretBindings,
    url: '', // no load balancer: no single URL (the notes say where the task IPs are)
    mode: 'create',
    chosen: 'FARGATE 0.5 vCPU / 1 GB',
  };
}

function plan(summary: string, commands: PlanCommand[], notes: string[]): Plan {
  return { version: 1, provider: 'cloud_a', summary, commands, notes: notes.length ? notes : undefined };
}
