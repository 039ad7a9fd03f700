/**
 * How many aws processes an apply of a cloud_a plan starts before its own steps (issue 40): the real aws
 * CLI against moto (test/support/moto.ts), each run counted by its argv as it starts (onAwsRun; without the
 * warm CLI these tests print SKIP and pass). The pre-run reads (one name listing per kind and region) run
 * once per command, and they are taken at apply time: a name taken after the plan was compiled is refused.
 * A resume after kill -9 waits only for the name its dead run had in flight, not for the plan's others.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { applyKilledOnce, instanceIds, motoSuite, securityGroupsNamed, type RunningMoto } from '../../support/moto.js';
import { reportSkip } from '../../support/skip.js';
import { kubeadmCloudARig, planFile, T } from '../../support/kubeadm-cloud-a.js';

cliInThisProcess();

const motoTest = motoSuite(test);
const rig = kubeadmCloudARig();
test.after(() => rig.close());

/** A moto test that counts aws runs: it needs the warm CLI, which announces each (the cold one announces nothing). */
const countingTest = (name: string, fn: (m: RunningMoto) => Promise<void>) =>
  motoTest(name, async (m) => (m.onAwsRun ? fn(m) : reportSkip(name, 'the cold aws CLI announces no runs (TEST_AWS_WARM=0 or no Python aws)')));

/** The aws runs `fn` makes (the product's and the test's own), by argv joined with spaces. */
async function awsRunsOf(m: RunningMoto, fn: () => Promise<void>): Promise<string[]> {
  const runs: string[] = [];
  const stop = m.onAwsRun!((argv) => runs.push(argv.join(' ')));
  try {
    await fn();
  } finally {
    stop();
  }
  return runs;
}

const LISTINGS = ['ec2 describe-security-groups --region us-east-1', 'ec2 describe-security-group-rules --region us-east-1', 'ec2 describe-instances --filters'];
const countOf = (runs: readonly string[], start: string) => runs.filter((r) => r.startsWith(start)).length;

countingTest('a kubeadm machines apply lists each kind once before its steps and never repeats a read before its first create', async (m) => {
  const home = await rig.homeWithKey();
  const { machines } = await rig.compiled(m, home);
  const runs = await awsRunsOf(m, async () => {
    const r = await runCli(['ask', '--apply', '-o', 'json', '--plan-file', planFile(machines)], { ...T, env: m.env, home });
    assert.is(r.code, 0, r.stderr);
  });
  const firstCreate = runs.findIndex((r) => r.startsWith('ec2 create-security-group'));
  assert.ok(firstCreate > 0, runs.join('\n'));
  const before = runs.slice(0, firstCreate);
  assert.equal(before.length, new Set(before).size, `a read repeated before the first create:\n${before.join('\n')}`);
  for (const listing of LISTINGS) assert.is(countOf(runs, listing), 1, `${listing}:\n${runs.join('\n')}`);
  assert.is(countOf(runs, 'ec2 run-instances'), 2);
});

motoTest('a name taken after the plan was compiled, by another process, is refused at apply time (exit 3) and nothing is sent', async (m) => {
  const home = await rig.homeWithKey();
  const { machines } = await rig.compiled(m, home);
  const run = machines.commands.find((c) => c.args[2] === 'run-instances')!.args;
  m.aws(['ec2', 'run-instances', '--image-id', run[run.indexOf('--image-id') + 1]!, '--instance-type', 't3.small', '--tag-specifications', 'ResourceType=instance,Tags=[{Key=Name,Value=lab-cp}]']);
  const r = await runCli(['ask', '--apply', '--plan-file', planFile(machines)], { ...T, env: m.env, home });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /creates instance "lab-cp", which already exists/);
  assert.equal(await securityGroupsNamed(m, 'lab-machines'), [], 'nothing was sent');
  assert.is((await instanceIds(m)).length, 1);
});

countingTest('kill -9 while a firewall rule is being added, then --resume: the instances are listed once (their names were not in flight: no wait for them), and the run completes', async (m) => {
  const home = await rig.homeWithKey();
  const { machines } = await rig.compiled(m, home);
  const file = planFile(machines);
  const rules = async () => (await securityGroupsNamed(m, 'lab-machines'))[0]?.rules.length ?? 0;
  await applyKilledOnce(m, home, file, async () => (await rules()) > 0, 'authorize-security-group-ingress', 4000);
  let report: { steps: { index: number; deduplicated?: boolean }[] } | undefined;
  const runs = await awsRunsOf(m, async () => {
    const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { ...T, env: m.env, home });
    assert.is(resumed.code, 0, resumed.stderr);
    report = JSON.parse(resumed.stdout);
  });
  const adopted = report!.steps.filter((st) => st.deduplicated).map((st) => st.index);
  assert.ok(adopted.every((i) => i >= 1 && i <= 3), `adopted: ${adopted.join(', ')}`);
  assert.is(countOf(runs, 'ec2 describe-instances --filters'), 1, runs.join('\n'));
  assert.is(countOf(runs, 'ec2 run-instances'), 2);
  assert.is((await securityGroupsNamed(m, 'lab-machines'))[0]!.rules.length, 3);
  assert.is((await instanceIds(m)).length, 2);
});

test.run();
