/**
 * `deploy --provider cloud_a` (issue 15 §3, on c1's provider): the analysis compiled into `aws` steps,
 * applied by the real aws CLI against moto_server (test/support/moto.ts; without moto or aws the moto
 * tests print SKIP and pass). VM target: security group, instance with the startup script as user data,
 * wait, public IP in the URL. Container service (the default): Secrets Manager, ECS cluster, Fargate
 * task definition and service; the secret value reaches AWS but no output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';
import { COMPOSE_IMAGE, FASTAPI_TORCH, httpRepoUrl, makeRepo, NODE_DOCKER } from '../support/git-repos.js';
import { motoSuite } from '../support/moto.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): git takes the command's environment (ctx.env).
cliInThisProcess();

const T = { timeoutMs: 120_000 };
const motoTest = motoSuite(test);

const words = (plan: { commands: { args: string[] }[] }) => plan.commands.map((c) => c.args.slice(0, 3).join(' '));

test('cloud_a plans: the container service by default, a VM with --target vm (the Ubuntu AMI from SSM, a GPU type when the service needs one)', async () => {
  const web = makeRepo('compose-img', COMPOSE_IMAGE);
  const r = await runCli(['deploy', web.url, '--provider', 'cloud_a'], T);
  assert.is(r.code, 0, r.stderr);
  const service = JSON.parse(r.stdout);
  assert.is(service.provider, 'cloud_a');
  assert.equal(words(service), ['aws ecs create-cluster', 'aws ecs register-task-definition', 'aws ec2 describe-subnets', 'aws ec2 create-security-group', 'aws ec2 authorize-security-group-ingress', 'aws ecs create-service']);
  const gpu = makeRepo('fastapi-gpu', FASTAPI_TORCH);
  const vm = await runCli(['deploy', gpu.url, '--provider', 'cloud_a', '--target', 'vm', '--location', 'eu-west-1'], T);
  assert.is(vm.code, 0, vm.stderr);
  const plan = JSON.parse(vm.stdout);
  assert.equal(words(plan), ['aws ssm get-parameters', 'aws ec2 create-security-group', 'aws ec2 authorize-security-group-ingress', 'aws ec2 run-instances', 'aws ec2 wait', 'aws ec2 describe-instances']);
  const run = plan.commands[3].args as string[];
  assert.is(run[run.indexOf('--instance-type') + 1], 'g5.xlarge', '20 GB of GPU memory: an A10G (24 GB), not a T4 (16 GB)');
  assert.is(run[run.indexOf('--image-id') + 1], '<AMI_ID>');
  assert.ok(run[run.indexOf('--user-data') + 1]!.includes(`assistant-deploy-fastapi-gpu ${gpu.sha}`));
  for (const c of plan.commands) assert.equal(c.args.slice(-2), ['--region', 'eu-west-1'], '--location is the region');
  const noGpuContainers = await runCli(['deploy', gpu.url, '--provider', 'cloud_a', '--image', 'ghcr.io/acme/llm:1.0'], T);
  assert.is(noGpuContainers.code, 2);
  assert.match(noGpuContainers.stderr, /error: no_gpu_containers: .*Fargate/);
  const badTarget = await runCli(['deploy', gpu.url, '--provider', 'cloud_a', '--target', 'instance'], T);
  assert.is(badTarget.code, 2);
  assert.match(badTarget.stderr, /--target must be container or vm for cloud_a/);
});

motoTest('deploy --provider cloud_a --target vm --apply: a tagged EC2 instance running the startup script, the URL with its public IP', async (m) => {
  const repo = makeRepo('node-web', NODE_DOCKER);
  // A VM clones the repository itself: it must be a URL it could reach (a file:// URL is refused).
  const served = await httpRepoUrl(repo);
  const r = await runCli(['deploy', served.url, '--provider', 'cloud_a', '--target', 'vm', '--ami', 'ami-12c6146b', '--apply', '-o', 'json'], { ...T, env: m.env });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.is(report.status, 'succeeded');
  assert.match(report.url, /^http:\/\/\d+\.\d+\.\d+\.\d+:3000$/);
  const reservations = (m.aws(['ec2', 'describe-instances', '--instance-ids', report.bindings.INSTANCE_ID]) as { Reservations: { Instances: { InstanceType: string; Tags: { Key: string; Value: string }[]; SecurityGroups: { GroupId: string }[] }[] }[] }).Reservations;
  const vm = reservations[0]!.Instances[0]!;
  assert.is(vm.InstanceType, 't3.small');
  assert.is(vm.Tags.find((t) => t.Key === 'Name')?.Value, 'node-web');
  assert.is(vm.SecurityGroups[0]!.GroupId, report.bindings.SG_ID);
  const userData = m.aws(['ec2', 'describe-instance-attribute', '--instance-id', report.bindings.INSTANCE_ID, '--attribute', 'userData']) as { UserData: { Value: string } };
  assert.ok(Buffer.from(userData.UserData.Value, 'base64').toString('utf8').includes(`/usr/local/sbin/assistant-deploy-node-web ${repo.sha}`));
  // A second deploy of the name is refused by the duplicate-name check before anything runs.
  const again = await runCli(['deploy', served.url, '--provider', 'cloud_a', '--target', 'vm', '--ami', 'ami-12c6146b', '--apply'], { ...T, env: m.env, home: tempHome() });
  assert.is(again.code, 3, again.stderr);
  assert.match(again.stderr, /node-web/);
  await served.close();
});

motoTest('deploy --provider cloud_a --apply: secret in Secrets Manager (the value reaches AWS, no output), Fargate task definition and service', async (m) => {
  const repo = makeRepo('compose-img', COMPOSE_IMAGE);
  const secret = 'aws-side-secret-value-4242';
  const envFile = join(tempDir('deploy-env-'), 'prod.env');
  writeFileSync(envFile, `API_KEY=${secret}\nLOG_LEVEL=info\n`, { mode: 0o600 });
  const r = await runCli(['--debug', 'deploy', repo.url, '--provider', 'cloud_a', '--env-file', envFile, '--apply'], { ...T, env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.not.ok((r.stdout + r.stderr).includes(secret), 'the secret value is in the output');
  const stored = m.aws(['secretsmanager', 'get-secret-value', '--secret-id', 'deploy/compose-img/API_KEY']) as { SecretString: string; ARN: string };
  assert.is(stored.SecretString, secret);
  const services = m.aws(['ecs', 'describe-services', '--cluster', 'compose-img', '--services', 'compose-img']) as { services: { status: string; launchType: string; taskDefinition: string }[] };
  assert.is(services.services[0]!.launchType, 'FARGATE');
  const td = m.aws(['ecs', 'describe-task-definition', '--task-definition', services.services[0]!.taskDefinition]) as {
    taskDefinition: { containerDefinitions: { image: string; portMappings: { containerPort: number }[]; secrets: { name: string; valueFrom: string }[]; environment: { name: string; value: string }[] }[] };
  };
  const c = td.taskDefinition.containerDefinitions[0]!;
  assert.is(c.image, 'ghcr.io/acme/inference:1.4.2');
  assert.is(c.portMappings[0]!.containerPort, 9000);
  assert.equal(c.secrets, [{ name: 'API_KEY', valueFrom: stored.ARN }], 'referenced by ARN, never inlined');
  assert.equal(c.environment, [{ name: 'LOG_LEVEL', value: 'info' }]);
});

test.run();
