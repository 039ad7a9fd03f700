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
 * applying the compiled plan's aws steps against moto (cli.k8s-kubeadm-cloud-a-apply.test.ts, with the
 * kill -9 and --resume tests).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { instanceIds, motoSuite, operationsDuring, securityGroupsNamed } from '../support/moto.js';
import { CALLER, kubeadm, kubeadmCloudARig, planFile, T, type PlanDoc } from '../support/kubeadm-cloud-a.js';
import { assertKubeadmInstall } from '../support/kubeadm.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);
const rig = kubeadmCloudARig();
test.after(() => rig.close());

motoTest('--dry-run: the security group, its three rules, 1+2 run-instances priced from the EC2 table, the waits and IP reads, then the SSH steps; the defaults in the notes; only reads sent', async (m) => {
  const home = await rig.homeWithKey();
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
  assert.is((await rig.sshServer()).commands.length, 0, 'no SSH');
});

motoTest('the SSH part: the compiled plan\'s own kubeadm steps, with the machines\' IPs given as the SSH stand-in\'s addresses, install, init, join and fetch the kubeconfig', async (m) => {
  const home = await rig.homeWithKey();
  const { ssh } = await rig.compiled(m, home);
  const s = await rig.sshServer();
  const before = s.execs.length;
  const at: Record<string, string> = { CP_IP: '127.0.0.1', W1_IP: '127.0.0.2' };
  const steps = JSON.parse(JSON.stringify(ssh).replace(/<(CP_IP|W1_IP)>/g, (_, k: string) => at[k]!)) as PlanDoc;
  const r = await runCli(['ask', '--apply', '-o', 'json', '--plan-file', planFile(steps)], { ...T, env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  assertKubeadmInstall(s.execs.slice(before), r.stdout + r.stderr);
});

motoTest('refused before anything is sent: a cloud without machines (exit 2, naming those that can), bad --workers, no --ssh-from, a type below kubeadm\'s minimum', async (m) => {
  const home = await rig.homeWithKey();
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
  const home = await rig.homeWithKey('budget:\n  max_hourly: 0.05\n');
  const r = await runCli(kubeadm('2', '--yes'), { ...T, env: m.env, home });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /budget/i);
  assert.equal(await securityGroupsNamed(m, 'lab-machines'), []);
  assert.equal(await instanceIds(m), []);
});

test.run();
