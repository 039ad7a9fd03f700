/**
 * `k8s create kubeadm <name> --workers <n> --provider cloud_a`, the machine part applied (issue 39 item 3):
 * the compiled plan's aws steps run by the real aws CLI against moto_server (test/support/moto.ts; without
 * moto or aws these tests print SKIP and pass). The cluster's security group with exactly its three rules,
 * exactly 1+1 Name-tagged instances, root's key in their user data; a kill -9 in the middle of a create
 * (an instance, a firewall rule) and --resume adopt what was in flight instead of making it twice. The
 * dry run, the SSH part, refusals and the budget: cli.k8s-kubeadm-cloud-a.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { applyKilledOnce, instanceIds, motoSuite, securityGroupsNamed } from '../support/moto.js';
import { CALLER, kubeadm, kubeadmCloudARig, planFile, T, type PlanDoc } from '../support/kubeadm-cloud-a.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);
const rig = kubeadmCloudARig();
test.after(() => rig.close());

motoTest('the machine part applied against moto: the group with exactly its three rules and 1+1 Name-tagged instances in it, root\'s key in their user data, each public IP bound', async (m) => {
  const home = await rig.homeWithKey();
  const { plan, machines } = await rig.compiled(m, home);
  assert.equal(plan.provider, ['cloud_a', 'ssh']);
  const r = await runCli(['ask', '--apply', '-o', 'json', '--plan-file', planFile(machines)], { ...T, env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { status: string; bindings: Record<string, string> };
  assert.is(report.status, 'succeeded');
  const groups = await securityGroupsNamed(m, 'lab-machines');
  assert.is(groups.length, 1);
  const sg = groups[0]!;
  assert.is(sg.id, report.bindings.SG_ID);
  assert.equal(sg.rules, [
    { protocol: 'tcp', port: 22, cidrs: [CALLER], groups: [] },
    { protocol: 'tcp', port: 6443, cidrs: [CALLER], groups: [] },
    { protocol: '-1', cidrs: [], groups: [sg.id] },
  ]);
  assert.equal(await instanceIds(m, 'lab-cp'), [report.bindings.CP_ID]);
  assert.equal(await instanceIds(m, 'lab-w1'), [report.bindings.W1_ID]);
  assert.is((await instanceIds(m)).length, 2, 'exactly 1+1 instances');
  for (const ip of [report.bindings.CP_IP, report.bindings.W1_IP]) assert.match(ip ?? '', /^\d+\.\d+\.\d+\.\d+$/);
  const vm = (m.aws(['ec2', 'describe-instances', '--instance-ids', report.bindings.CP_ID!]) as { Reservations: { Instances: { InstanceType: string; SecurityGroups: { GroupId: string }[] }[] }[] }).Reservations[0]!.Instances[0]!;
  assert.is(vm.InstanceType, 't3.small');
  assert.equal(vm.SecurityGroups.map((g) => g.GroupId), [sg.id]);
  const userData = m.aws(['ec2', 'describe-instance-attribute', '--instance-id', report.bindings.CP_ID!, '--attribute', 'userData']) as { UserData: { Value: string } };
  const text = Buffer.from(userData.UserData.Value, 'base64').toString('utf8');
  assert.match(text, /^#cloud-config\ndisable_root: false\n/);
  assert.ok(text.includes(await rig.publicKey()), 'root gets the public key of the key the SSH steps use');
});

motoTest('kill -9 while the machines are being made, then --resume: one security group and exactly 1+1 instances (the one in flight adopted, not made again)', async (m) => {
  const home = await rig.homeWithKey();
  const { machines } = await rig.compiled(m, home);
  const file = planFile(machines);
  // Killed once moto holds the control plane: its run-instances was on the wire or just answered.
  await applyKilledOnce(m, home, file, async () => (await instanceIds(m, 'lab-cp')).length > 0, 'run-instances', 4000);
  const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { ...T, env: m.env, home });
  assert.is(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout) as { bindings: Record<string, string>; steps: { index: number; deduplicated?: boolean }[] };
  // The create in flight when killed (the control plane's, or the worker's when the poll saw moto late) is adopted.
  const adopted = report.steps.filter((st) => st.deduplicated).map((st) => st.index);
  assert.ok(adopted.length <= 1 && adopted.every((i) => i === 4 || i === 5), `adopted: ${adopted.join(', ')}`);
  assert.is((await securityGroupsNamed(m, 'lab-machines')).length, 1);
  assert.equal(await instanceIds(m, 'lab-cp'), [report.bindings.CP_ID]);
  assert.equal(await instanceIds(m, 'lab-w1'), [report.bindings.W1_ID]);
  assert.is((await instanceIds(m)).length, 2, 'exactly 1+1 instances after the retry');
  // The same plan again from the start is refused by the duplicate-name check before anything is sent.
  const again = await runCli(['ask', '--apply', '--fresh', '--plan-file', file], { ...T, env: m.env, home });
  assert.is(again.code, 3, again.stderr);
  assert.match(again.stderr, /creates security-group "lab-machines", which already exists/);
  assert.is((await instanceIds(m)).length, 2);
});

motoTest('kill -9 while a firewall rule is being added, then --resume: the rule is adopted (not added again, which AWS would refuse), and the run completes with exactly three rules', async (m) => {
  const home = await rig.homeWithKey();
  const { machines } = await rig.compiled(m, home);
  const file = planFile(machines);
  const rules = async () => (await securityGroupsNamed(m, 'lab-machines'))[0]?.rules.length ?? 0;
  await applyKilledOnce(m, home, file, async () => (await rules()) > 0, 'authorize-security-group-ingress', 4000);
  const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { ...T, env: m.env, home });
  assert.is(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout) as { steps: { index: number; deduplicated?: boolean }[] };
  // The rule in flight when killed (the first, or a later one when the poll saw moto late) is adopted.
  const adopted = report.steps.filter((st) => st.deduplicated).map((st) => st.index);
  assert.ok(adopted.length <= 1 && adopted.every((i) => i >= 1 && i <= 3), `adopted: ${adopted.join(', ')}`);
  const groups = await securityGroupsNamed(m, 'lab-machines');
  assert.is(groups.length, 1);
  assert.is(groups[0]!.rules.length, 3);
  assert.is((await instanceIds(m)).length, 2);
});

motoTest('names are checked where the steps act (--location): a machine of the same name in that region refuses the plan (exit 3, nothing sent), a group of the same name in another region does not count', async (m) => {
  const home = await rig.homeWithKey();
  const r = await runCli(kubeadm('1', '--location', 'us-west-2', '--plan'), { ...T, env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as PlanDoc;
  const machines: PlanDoc = { version: 1, provider: 'cloud_a', commands: plan.commands.filter((c) => c.args[0] === 'aws') };
  const run = machines.commands.find((c) => c.args[2] === 'run-instances')!.args;
  m.aws(['ec2', 'run-instances', '--image-id', run[run.indexOf('--image-id') + 1]!, '--instance-type', 't3.small', '--tag-specifications', 'ResourceType=instance,Tags=[{Key=Name,Value=lab-w1}]', '--region', 'us-west-2']);
  m.aws(['ec2', 'create-security-group', '--group-name', 'lab-machines', '--description', 'another region', '--region', 'us-east-1']);
  const refused = await runCli(['ask', '--apply', '--plan-file', planFile(machines)], { ...T, env: m.env, home });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /creates instance "lab-w1", which already exists/);
  assert.not.match(refused.stderr, /security-group "lab-machines"/, 'us-east-1\'s group of that name is not where the plan acts');
  const west = m.aws(['ec2', 'describe-security-groups', '--filters', 'Name=group-name,Values=lab-machines', '--region', 'us-west-2']) as { SecurityGroups: unknown[] };
  assert.equal(west.SecurityGroups, [], 'nothing was sent');
});

test.run();
