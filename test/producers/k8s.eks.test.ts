/**
 * `k8s create eks` applied for real: the CLI runs the real `aws` CLI (c1's cloud_a provider) against
 * `moto_server`. Without moto or aws on PATH each test prints one SKIP line and passes (CI has both).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';
import { motoSuite } from '../support/moto.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

const create = ['k8s', 'create', 'eks', 'e1', '--role-arn', 'arn:aws:iam::123456789012:role/eks', '--subnets', 'subnet-a,subnet-b', '--nodes', '3', '--node-type', 'm5.large'];

motoTest('k8s create eks against moto: control plane, a node group of 3, and kubeconfig context e1 with aws eks get-token', async (m) => {
  const home = tempHome();
  const r = await runCli([...create, '--yes'], { home, env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.equal(m.aws(['eks', 'list-clusters']), { clusters: ['e1'] });
  const ng = (m.aws(['eks', 'describe-nodegroup', '--cluster-name', 'e1', '--nodegroup-name', 'e1-nodes']) as { nodegroup: { scalingConfig: Record<string, number>; instanceTypes: string[] } }).nodegroup;
  assert.equal(ng.scalingConfig, { minSize: 3, maxSize: 3, desiredSize: 3 });
  assert.equal(ng.instanceTypes, ['m5.large']);
  const kube = parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as { contexts: { name: string; context: { user: string } }[]; users: { name: string; user: { exec: { args: string[] } } }[] };
  const ctx = kube.contexts.find((c) => c.name === 'e1')!;
  assert.ok(ctx, 'context aliased to the cluster name');
  assert.ok(kube.users.find((u) => u.name === ctx.context.user)!.user.exec.args.includes('get-token'));
  // The same command again: the finished plan is not applied twice (exit 3), nothing more is created.
  const again = await runCli([...create, '--yes'], { home, env: m.env });
  assert.is(again.code, 3, again.stderr);
  assert.match(again.stderr, /already applied/);
});

motoTest('k8s create eks --dry-run runs only reads, and its plan validates without --destroyer', async (m) => {
  const home = tempHome();
  const shown = await runCli([...create, '--plan'], { home, env: m.env });
  assert.is(shown.code, 0, shown.stderr);
  writeFileSync(join(home, 'eks.json'), shown.stdout);
  const valid = await runCli(['plan', 'validate', join(home, 'eks.json')], { home, env: m.env });
  assert.is(valid.code, 0, valid.stderr);
  const dry = await runCli([...create, '--dry-run'], { home, env: m.env });
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /aws eks create-cluster/);
  assert.equal(m.aws(['eks', 'list-clusters']), { clusters: [] });
});

// Issue 39 item 4: the SPEC's form, without --role-arn and --subnets: the plan makes the roles and the VPC.
const spec = ['k8s', 'create', 'eks', 'e2', '--nodes', '2', '--node-type', 't3.medium'];
type Json = Record<string, any>;

motoTest('k8s create eks as the SPEC writes it: without --destroyer nothing is sent (roles and routing are gated); with it, the roles, a VPC over two zones, the cluster and nodes', async (m) => {
  const home = tempHome();
  const refused = await runCli([...spec, '--yes'], { home, env: m.env });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /aws iam create-role: changes identities, credentials, permissions/);
  assert.match(refused.stderr, /run again with --destroyer/);
  assert.equal((m.aws(['iam', 'list-roles']) as Json).Roles, [], 'no role was made');
  assert.equal((m.aws(['ec2', 'describe-vpcs', '--filters', 'Name=cidr,Values=192.168.0.0/16']) as Json).Vpcs, [], 'no VPC was made');
  assert.equal(m.aws(['eks', 'list-clusters']), { clusters: [] });

  // 31 aws CLI runs against moto: a ceiling for a busy machine, not a measure.
  const r = await runCli([...spec, '--yes', '--destroyer'], { home, env: m.env, timeoutMs: 600_000 });
  assert.is(r.code, 0, r.stderr);
  const attached = (role: string) => ((m.aws(['iam', 'list-attached-role-policies', '--role-name', role]) as Json).AttachedPolicies as Json[]).map((p) => p.PolicyName).sort();
  assert.equal(attached('e2-cluster-role'), ['AmazonEKSClusterPolicy']);
  assert.equal(attached('e2-node-role'), ['AmazonEC2ContainerRegistryReadOnly', 'AmazonEKSWorkerNodePolicy', 'AmazonEKS_CNI_Policy']);
  const vpc = ((m.aws(['ec2', 'describe-vpcs', '--filters', 'Name=cidr,Values=192.168.0.0/16']) as Json).Vpcs as Json[])[0]!;
  const subnets = (m.aws(['ec2', 'describe-subnets', '--filters', `Name=vpc-id,Values=${vpc.VpcId}`]) as Json).Subnets as Json[];
  assert.equal(subnets.map((s) => s.CidrBlock).sort(), ['192.168.0.0/19', '192.168.32.0/19', '192.168.64.0/19', '192.168.96.0/19']);
  assert.is(new Set(subnets.map((s) => s.AvailabilityZone)).size, 2, 'two zones');
  const publicIds = subnets.filter((s) => s.MapPublicIpOnLaunch === true).map((s) => s.SubnetId).sort();
  const privateIds = subnets.filter((s) => s.MapPublicIpOnLaunch !== true).map((s) => s.SubnetId).sort();
  assert.equal([publicIds.length, privateIds.length], [2, 2]);
  const nats = (m.aws(['ec2', 'describe-nat-gateways', '--filter', `Name=vpc-id,Values=${vpc.VpcId}`]) as Json).NatGateways as Json[];
  assert.is(nats.length, 1);
  assert.ok(publicIds.includes(nats[0]!.SubnetId), 'the NAT gateway is in a public subnet');
  const cluster = (m.aws(['eks', 'describe-cluster', '--name', 'e2']) as Json).cluster;
  assert.match(cluster.roleArn, /:role\/e2-cluster-role$/);
  assert.equal([...cluster.resourcesVpcConfig.subnetIds].sort(), [...publicIds, ...privateIds].sort());
  const ng = (m.aws(['eks', 'describe-nodegroup', '--cluster-name', 'e2', '--nodegroup-name', 'e2-nodes']) as Json).nodegroup;
  assert.match(ng.nodeRole, /:role\/e2-node-role$/);
  assert.equal([...ng.subnets].sort(), privateIds, 'the nodes are in the private subnets');
});

motoTest('k8s create eks --dry-run without --role-arn/--subnets: each made thing is its own step, the gated ones say so, the NAT gateway and its address are priced; nothing is made', async (m) => {
  const home = tempHome();
  // Exit 3: applying it as written would be refused (the dry run's rule); with --destroyer it would run.
  const dry = await runCli([...spec, '--dry-run'], { home, env: { ...m.env, COLUMNS: '250' } });
  assert.is(dry.code, 3, dry.stderr);
  const out = dry.stdout + dry.stderr;
  assert.equal(out.match(/aws iam create-role .*\[DESTRUCTIVE/g)?.length, 2, out);
  assert.equal(out.match(/aws ec2 create-subnet /g)?.length, 4);
  assert.match(out, /step \d+: nat gateway NAT gateway in us-east-1\s+0\.04\/hour/);
  assert.match(out, /step \d+: public ipv4 Elastic IP/);
  assert.match(out, /made because --role-arn was not given: the IAM roles e2-cluster-role and e2-node-role/);
  assert.match(out, /applying it needs --destroyer/);
  const permitted = await runCli([...spec, '--dry-run', '--destroyer'], { home, env: m.env });
  assert.is(permitted.code, 0, permitted.stderr);
  assert.equal((m.aws(['iam', 'list-roles']) as Json).Roles, []);
  assert.equal((m.aws(['ec2', 'describe-vpcs', '--filters', 'Name=cidr,Values=192.168.0.0/16']) as Json).Vpcs, []);
});

test.run();
