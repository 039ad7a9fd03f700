/**
 * `k8s create kubeadm <name> --workers <n> --provider cloud_a` (issue 39 item 3): the machines are EC2
 * instances made through cloud_a's `machines` capability, with the real aws CLI against moto_server
 * (test/support/moto.ts; without moto or aws the moto tests print SKIP and pass): a security group of
 * the cluster's own (SSH and 6443 from --ssh-from, everything within the group), one Name-tagged
 * run-instances per machine, a wait and a public-IP read each, then the same SSH steps as on gpucloud.
 *
 * moto's public IPs lead nowhere, and the engine lets no binding override what a step produces: the
 * SSH part is proven by applying the compiled plan's own SSH steps with <CP_IP>/<W1_IP> replaced by the
 * loopback addresses of an in-test SSH server (test/support/ssh-server.ts), and the machine part by
 * applying the compiled plan's aws steps against moto.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ssh2 from 'ssh2';
import { BIN, childEnv, runCli, tempHome } from './support/cli.js';
import { instanceIds, motoSuite, operationsDuring, securityGroupsNamed, type RunningMoto } from './support/moto.js';
import { headNodeKubeconfig, startSshServer, type SshTestServer } from './support/ssh-server.js';
import { tempDir } from './support/temp.js';

const motoTest = motoSuite(test);
const T = { timeoutMs: 400_000 };
const CALLER = '203.0.113.7/32';
const TOKEN = 'abcdef.0123456789abcdef';

type PlanDoc = { version: number; provider: string | string[]; summary?: string; notes?: string[]; commands: { args: string[]; reason: string; produces?: Record<string, string> }[] };

// One in-test SSH server for the file: its client key is the key the plan puts on the machines, and it
// answers as the control plane (127.0.0.1) and the worker (127.0.0.2).
let srv: SshTestServer | undefined;
async function sshServer(): Promise<SshTestServer> {
  srv ??= await startSshServer(tempDir('assistant-kubeadm-a-'), {
    files: { '/root/.kube/config': headNodeKubeconfig({ server: 'https://10.1.0.5:6443' }) },
    alsoOn: ['127.0.0.2'],
    filesAt: { '127.0.0.2': {} },
    exec: (command) => (command.startsWith('kubeadm token create') ? { stdout: JSON.stringify({ endpoint: '10.1.0.5:6443', token: TOKEN, ca_cert_hash: 'sha256:0f1e2d' }) + '\n', code: 0 } : { code: 0 }),
  });
  return srv;
}
test.after(async () => {
  await srv?.close();
});

/** A home whose config names the SSH server's key and port (and `extra` config lines). */
async function homeWithKey(extra = ''): Promise<string> {
  const s = await sshServer();
  const home = tempHome();
  writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  ssh_key_path: ${s.clientKeyPath}\n  ssh_port: ${s.port}\n${extra}`, { mode: 0o600 });
  return home;
}

/** The OpenSSH public key line of the SSH server's client key (what root's authorized_keys must get). */
async function publicKey(): Promise<string> {
  const key = ssh2.utils.parseKey((await import('node:fs')).readFileSync((await sshServer()).clientKeyPath)) as ssh2.ParsedKey;
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
}

const kubeadm = (workers: string, ...more: string[]) => ['k8s', 'create', 'kubeadm', 'lab', '--workers', workers, '--provider', 'cloud_a', '--ssh-from', CALLER, ...more];

/**
 * The compiled plan (`--plan`), split into its aws steps (the machines) and the rest (SSH); compiled once
 * for the file (each aws call costs seconds on a busy machine; moto's reset keeps its default images).
 */
let compiledOnce: Promise<{ plan: PlanDoc; machines: PlanDoc; ssh: PlanDoc }> | undefined;
function compiled(m: RunningMoto, home: string): Promise<{ plan: PlanDoc; machines: PlanDoc; ssh: PlanDoc }> {
  compiledOnce ??= compile(m, home);
  return compiledOnce;
}
async function compile(m: RunningMoto, home: string): Promise<{ plan: PlanDoc; machines: PlanDoc; ssh: PlanDoc }> {
  const r = await runCli(kubeadm('1', '--plan'), { ...T, env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as PlanDoc;
  const aws = plan.commands.filter((c) => c.args[0] === 'aws');
  return {
    plan,
    machines: { version: 1, provider: 'cloud_a', commands: aws },
    ssh: { version: 1, provider: 'ssh', commands: plan.commands.slice(aws.length) },
  };
}

function planFile(plan: PlanDoc): string {
  const file = join(tempDir('kubeadm-a-plan-'), 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

motoTest('--dry-run: the security group, its three rules, 1+2 run-instances priced from the EC2 table, the waits and IP reads, then the SSH steps; the defaults in the notes; only reads sent', async (m) => {
  const home = await homeWithKey();
  let r = { code: null as number | null, stdout: '', stderr: '' };
  const ops = await operationsDuring(m, async () => {
    r = await runCli(kubeadm('2', '--dry-run', '-o', 'json'), { ...T, env: m.env, home });
  });
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { steps: { index: number; request: string; destructive: unknown[] }[]; costs: { step: number; type: string; location: string; per_hour: number }[]; notes: string[] };
  const shape = doc.steps.map((s) => s.request.replace(/^(aws ec2 \S+|RUN on \S+|FETCH kubeconfig from \S+).*$/s, '$1'));
  assert.equal(shape, [
    'aws ec2 create-security-group',
    'aws ec2 authorize-security-group-ingress',
    'aws ec2 authorize-security-group-ingress',
    'aws ec2 authorize-security-group-ingress',
    'aws ec2 run-instances',
    'aws ec2 run-instances',
    'aws ec2 run-instances',
    'aws ec2 wait', 'aws ec2 describe-instances',
    'aws ec2 wait', 'aws ec2 describe-instances',
    'aws ec2 wait', 'aws ec2 describe-instances',
    'RUN on <CP_IP>:', 'RUN on <CP_IP>:',
    'RUN on <W1_IP>:', 'RUN on <CP_IP>:', 'RUN on <W1_IP>:',
    'RUN on <W2_IP>:', 'RUN on <CP_IP>:', 'RUN on <W2_IP>:',
    'FETCH kubeconfig from <CP_IP>',
  ], doc.steps.map((s) => s.request.slice(0, 80)).join('\n'));
  assert.match(doc.steps[0]!.request, /--group-name lab-machines /);
  assert.match(doc.steps[1]!.request, new RegExp(`--protocol tcp --port 22 --cidr ${CALLER.replace(/\./g, '\\.')} `));
  assert.match(doc.steps[2]!.request, /--protocol tcp --port 6443 --cidr 203\.0\.113\.7\/32 /);
  assert.match(doc.steps[3]!.request, /--protocol all --source-group "<SG_ID>"/);
  for (const [i, name] of [[4, 'lab-cp'], [5, 'lab-w1'], [6, 'lab-w2']] as const) assert.match(doc.steps[i]!.request, new RegExp(`--instance-type t3\\.small .*Key=Name,Value=${name}\\b`));
  assert.ok(doc.steps.every((s) => s.destructive.length === 0), 'nothing needs --destroyer: the group, its rules and the instances are allowed creates');
  // Priced from cloud_a's own table: t3.small in us-east-1, one line per run-instances.
  assert.equal(doc.costs.map((c) => [c.step, c.type, c.location, c.per_hour]), [[4, 't3.small', 'us-east-1', 0.0208], [5, 't3.small', 'us-east-1', 0.0208], [6, 't3.small', 'us-east-1', 0.0208]]);
  const notes = doc.notes.join('\n');
  assert.match(notes, /default chosen: instance type t3\.small \(2 vCPUs, 2 GiB/);
  assert.match(notes, /default chosen: region us-east-1/);
  assert.match(notes, /default chosen: image ami-[0-9a-f]+ \(ubuntu\/images\/[^)]*ubuntu-[a-z]+-\d+\.04-amd64-server-[^)]*\), Canonical's newest Ubuntu LTS server image/);
  assert.match(notes, /security group lab-machines opens tcp 22 from 203\.0\.113\.7\/32 \(SSH\); tcp 6443 from 203\.0\.113\.7\/32 \(the Kubernetes API\); every port between the machines/);
  assert.ok(ops.length > 0 && ops.every((op) => /^Describe/.test(op)), `only reads reached moto: ${ops.join(', ')}`);
  assert.equal(await instanceIds(m), []);
  assert.is(srv!.commands.length, 0, 'no SSH');
});

motoTest('the machine part applied against moto: the group with exactly its three rules and 1+1 Name-tagged instances in it, root\'s key in their user data, each public IP bound', async (m) => {
  const home = await homeWithKey();
  const { plan, machines } = await compiled(m, home);
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
  assert.ok(text.includes(await publicKey()), 'root gets the public key of the key the SSH steps use');
});

motoTest('kill -9 while the machines are being made, then --resume: one security group and exactly 1+1 instances (the one in flight adopted, not made again)', async (m) => {
  const home = await homeWithKey();
  const { machines } = await compiled(m, home);
  const file = planFile(machines);
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', '--plan-file', file], { env: childEnv(home, m.env), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  // Killed once moto holds the control plane: its run-instances was on the wire or just answered.
  for (let i = 0; !(await instanceIds(m, 'lab-cp')).length; i++) {
    if (i > 4000) throw new Error('run-instances never reached moto');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await exited;
  const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { ...T, env: m.env, home });
  assert.is(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout) as { bindings: Record<string, string>; steps: { index: number; deduplicated?: boolean }[] };
  assert.equal(report.steps.filter((st) => st.deduplicated).map((st) => st.index), [4], 'the control plane\'s run-instances, in flight when killed, is adopted');
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
  const home = await homeWithKey();
  const { machines } = await compiled(m, home);
  const file = planFile(machines);
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', '--plan-file', file], { env: childEnv(home, m.env), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const rules = async () => (await securityGroupsNamed(m, 'lab-machines'))[0]?.rules.length ?? 0;
  for (let i = 0; (await rules()) === 0; i++) {
    if (i > 4000) throw new Error('authorize-security-group-ingress never reached moto');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await exited;
  const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { ...T, env: m.env, home });
  assert.is(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout) as { steps: { index: number; deduplicated?: boolean }[] };
  assert.equal(report.steps.filter((st) => st.deduplicated).map((st) => st.index), [1], 'the first rule, in flight when killed, is adopted');
  const groups = await securityGroupsNamed(m, 'lab-machines');
  assert.is(groups.length, 1);
  assert.is(groups[0]!.rules.length, 3);
  assert.is((await instanceIds(m)).length, 2);
});

motoTest('the SSH part: the compiled plan\'s own kubeadm steps, with the machines\' IPs given as the SSH stand-in\'s addresses, install, init, join and fetch the kubeconfig', async (m) => {
  const home = await homeWithKey();
  const { ssh } = await compiled(m, home);
  const s = await sshServer();
  const before = s.execs.length;
  const at: Record<string, string> = { CP_IP: '127.0.0.1', W1_IP: '127.0.0.2' };
  const steps = JSON.parse(JSON.stringify(ssh).replace(/<(CP_IP|W1_IP)>/g, (_, k: string) => at[k]!)) as PlanDoc;
  const r = await runCli(['ask', '--apply', '-o', 'json', '--plan-file', planFile(steps)], { ...T, env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  const e = s.execs.slice(before);
  assert.equal(e.map((x) => x.address), ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.1', '127.0.0.2', '127.0.0.1'], e.map((x) => `${x.address} ${x.command.slice(0, 40)}`).join('\n'));
  assert.match(e[0]!.command, /apt-get install -y -q kubelet kubeadm kubectl/);
  assert.match(e[1]!.command, /kubeadm init --pod-network-cidr=10\.244\.0\.0\/16 --apiserver-cert-extra-sans='?127\.0\.0\.1'?\n/);
  assert.match(e[3]!.command, /^kubeadm token create --ttl 30m/);
  assert.is(e[4]!.command, `test -f /etc/kubernetes/kubelet.conf || kubeadm join '10.1.0.5:6443' --token '${TOKEN}' --discovery-token-ca-cert-hash 'sha256:0f1e2d'`);
  assert.is(e[5]!.command, 'cat /root/.kube/config');
  assert.not.ok((r.stdout + r.stderr).includes(TOKEN), 'the join token is a credential: never in the output');
});

motoTest('refused before anything is sent: a cloud without machines (exit 2, naming those that can), bad --workers, no --ssh-from, a type below kubeadm\'s minimum', async (m) => {
  const home = await homeWithKey();
  const ops = await operationsDuring(m, async () => {
    for (const cloud of ['cloud_b', 'cloud_c', 'terraform', 'nope']) {
      const r = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '2', '--provider', cloud, '--dry-run'], { ...T, env: m.env, home });
      assert.is(r.code, 2, `${cloud}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`error: usage: --provider ${cloud} cannot make machines for kubeadm`));
      assert.match(r.stderr, /hint: providers that can: gpucloud, cloud_a/);
    }
    for (const workers of ['0', '51', '2.5']) {
      const r = await runCli(kubeadm(workers, '--dry-run'), { ...T, env: m.env, home });
      assert.is(r.code, 2, `${workers}: ${r.stderr}`);
    }
    const noFrom = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '1', '--provider', 'cloud_a', '--dry-run'], { ...T, env: m.env, home });
    assert.is(noFrom.code, 2, noFrom.stderr);
    assert.match(noFrom.stderr, /--ssh-from was not given/);
    const badFrom = await runCli(['k8s', 'create', 'kubeadm', 'lab', '--workers', '1', '--provider', 'cloud_a', '--ssh-from', '0.0.0.0/99', '--dry-run'], { ...T, env: m.env, home });
    assert.is(badFrom.code, 2, badFrom.stderr);
  });
  assert.equal(ops, [], 'nothing reached moto');
  const small = await runCli(kubeadm('1', '--instance-type', 't3.micro', '--dry-run'), { ...T, env: m.env, home });
  assert.is(small.code, 2, small.stderr);
  assert.match(small.stderr, /t3\.micro has 2 vCPUs and 1 GiB; the machines need at least 2 and 2 GiB/);
  assert.equal(await instanceIds(m), []);
});

motoTest('under a budget the run is refused (exit 3) when the machines cost more per hour, and nothing is created', async (m) => {
  const home = await homeWithKey('budget:\n  max_hourly: 0.05\n');
  const r = await runCli(kubeadm('2', '--yes'), { ...T, env: m.env, home });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /budget/i);
  assert.equal(await securityGroupsNamed(m, 'lab-machines'), []);
  assert.equal(await instanceIds(m), []);
});

test.run();
