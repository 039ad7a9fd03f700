/**
 * cloud_a plans applied for real: `assistant ask --apply --plan-file` (a CLI child) runs the real `aws`
 * CLI against `moto_server`. Creates, produces read from the JSON, the dry run, the destroyer gate
 * (every destructive form of the rules table refused with exit 3 and nothing run), --destroyer, the
 * duplicate-name check, and the three CLI failures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { applyKilledOnce, buckets, createBucket, instanceIds, instanceState, motoSuite, planFile, runInstance } from '../../support/moto.js';
import { DESTRUCTIVE_SAMPLES, LOCAL_EFFECT_SAMPLES, REFUSED_ROW_SAMPLES } from '../../support/aws-samples.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

const runInstanceStep = (name: string) => ({
  args: ['aws', 'ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', 't2.micro', '--tag-specifications', `ResourceType=instance,Tags=[{Key=Name,Value=${name}}]`],
  reason: `a VM called ${name}`,
  produces: { INSTANCE_ID: '$.Instances[0].InstanceId' },
});

motoTest('a plan of aws steps applies against moto: a bucket is created, an instance runs, produces read the JSON output', async (m) => {
  const file = planFile([
    { args: ['aws', 's3api', 'create-bucket', '--bucket', 'logs-eu'], reason: 'a bucket', produces: { WHERE: '$.Location' } },
    { args: ['aws', 's3', 'mb', 's3://assets-eu'], reason: 'another bucket (text output)' },
    runInstanceStep('web-1'),
    { args: ['aws', 'ec2', 'describe-instances', '--instance-ids', '<INSTANCE_ID>'], reason: 'read it back', produces: { STATE: '$.Reservations[0].Instances[0].State.Name' } },
  ]);
  const r = await runCli(['ask', '--apply', '-o', 'json', '--plan-file', file], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.is(report.status, 'succeeded');
  assert.is(report.bindings.WHERE, '/logs-eu');
  assert.equal(await buckets(m), ['assets-eu', 'logs-eu']);
  assert.equal(await instanceIds(m, 'web-1'), [report.bindings.INSTANCE_ID]);
  assert.is(report.bindings.STATE, 'running');
  // The progress shows each command line, not an HTTP status it does not have.
  assert.match(r.stderr, /aws s3api create-bucket --bucket logs-eu — a bucket/);
  assert.not.match(r.stderr, /HTTP -/);
});

motoTest('a create of a bucket or instance name that exists is refused before anything runs (exit 3)', async (m) => {
  await createBucket(m, 'taken');
  const file = planFile([{ args: ['aws', 's3api', 'create-bucket', '--bucket', 'fresh-one'], reason: 'new' }, { args: ['aws', 's3', 'mb', 's3://taken'], reason: 'exists' }]);
  const r = await runCli(['ask', '--apply', '--plan-file', file], { env: m.env });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /step 1 creates bucket "taken", which already exists/);
  assert.equal(await buckets(m), ['taken']);
});

motoTest('the dry run shows the table of what would run, marks the destructive step, and runs nothing', async (m) => {
  const file = planFile([
    { args: ['aws', 's3api', 'create-bucket', '--bucket', 'would-be'], reason: 'a bucket' },
    { args: ['aws', '--region', 'us-east-1', 'ec2', 'terminate-instances', '--instance-ids', 'i-123'], reason: 'gone' },
  ]);
  const r = await runCli(['ask', '--apply', '--dry-run', '--plan-file', file], { env: m.env });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stdout, /aws s3api create-bucket --bucket would-be/);
  assert.match(r.stdout, /aws --region us-east-1 ec2 terminate-instances --instance-ids i-123/);
  assert.match(r.stdout + r.stderr, /terminates|destructive/);
  assert.match(r.stderr, /applying it needs --destroyer/);
  assert.equal(await buckets(m), []);
});

motoTest('every destructive and every refused form of the allowlist is refused with exit 3 and nothing runs (moto state unchanged)', async (m) => {
  await createBucket(m, 'keep-me');
  const vm = await runInstance(m);
  const destructive = Object.values(DESTRUCTIVE_SAMPLES).flat();
  const refused = [...Object.values(REFUSED_ROW_SAMPLES).flat(), ...LOCAL_EFFECT_SAMPLES];
  // Each form targets the real resources where it can, and follows a create that would show if anything ran.
  const target = (args: string[]) => args.map((a) => (a === 'i-1' ? vm : a === 'b' ? 'keep-me' : a === 's3://b' ? 's3://keep-me' : a));
  // One plan holding every form after a create that would show if anything ran: refused whole, and the
  // refusal names each form as destructive or refused (each index on its own line).
  const file = planFile([
    { args: ['aws', 's3api', 'create-bucket', '--bucket', 'canary'], reason: 'shows whether anything ran', produces: { LIFECYCLE: '$.Location', COUNT: '$.Location' } },
    ...[...destructive, ...refused].map((args) => ({ args: ['aws', ...target(args)], reason: 'destructive or refused' })),
  ]);
  const files = tempHome('cloud-a-files-');
  const r = await runCli(['ask', '--apply', '--files', files, '--plan-file', file], { env: m.env });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /error: refused: /);
  destructive.forEach((args, i) => assert.match(r.stderr, new RegExp(`command ${i + 1} \\(args\\): destructive: `), args.join(' ')));
  refused.forEach((args, i) => assert.match(r.stderr, new RegExp(`command ${destructive.length + i + 1} \\(args\\): refused: `), args.join(' ')));
  assert.not.match(r.stderr, /command 0 \(args\)/);
  assert.equal(await buckets(m), ['keep-me']);
  assert.is(await instanceState(m, vm), 'running');
});

motoTest('--destroyer lets the destructive steps run: the instance is terminated and the bucket deleted', async (m) => {
  await createBucket(m, 'old-logs');
  const vm = await runInstance(m);
  const file = planFile([
    { args: ['aws', 'ec2', 'terminate-instances', '--instance-ids', vm], reason: 'stop paying', produces: { NOW: '$.TerminatingInstances[0].CurrentState.Name' } },
    { args: ['aws', 's3', 'rb', 's3://old-logs'], reason: 'no longer needed' },
  ]);
  const r = await runCli(['ask', '--apply', '--destroyer', '-o', 'json', '--plan-file', file], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(JSON.parse(r.stdout).bindings.NOW, /shutting-down|terminated/);
  assert.equal(await buckets(m), []);
  assert.is(await instanceState(m, vm), 'terminated');
});

motoTest('the aws CLI missing is cli_not_found, not logged in cli_not_authenticated, any other failure cli_failed with the message redacted (exit 1)', async (m) => {
  const file = planFile([{ args: ['aws', 's3api', 'list-buckets'], reason: 'see' }]);
  const noCli = await runCli(['ask', '--apply', '--plan-file', file], { env: { ...m.env, PATH: '/nonexistent' } });
  assert.is(noCli.code, 1, noCli.stderr);
  assert.match(noCli.stderr, /error: cli_not_found: the aws CLI is not installed/);
  assert.match(noCli.stderr, /hint: install the AWS CLI/);

  const noCreds = await runCli(['ask', '--apply', '--plan-file', file], {
    env: { ...m.env, AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined, AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent' },
  });
  assert.is(noCreds.code, 1, noCreds.stderr);
  assert.match(noCreds.stderr, /error: cli_not_authenticated: .*Unable to locate credentials/);
  assert.match(noCreds.stderr, /hint: log in with `aws configure`.*aws sso login/);

  const bad = planFile([{ args: ['aws', 'ec2', 'describe-instances', '--instance-ids', 'password=hunter2222'], reason: 'no such' }]);
  const failed = await runCli(['ask', '--apply', '--plan-file', bad], { env: m.env });
  assert.is(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /error: cli_failed: aws ec2 describe-instances --instance-ids password=\*\*\* .*failed \(exit 255\): .*InvalidInstanceID\.NotFound/);
  assert.not.match(failed.stderr, /hunter2222/);
});

motoTest('kill -9 while run-instances is in flight, then --resume: the instance exists once and is adopted, not created again', async (m) => {
  const file = planFile([runInstanceStep('once-1'), { args: ['aws', 'ec2', 'describe-instances', '--instance-ids', '<INSTANCE_ID>'], reason: 'read it' }]);
  const home = tempHome();
  // Killed once moto holds the instance: the aws process it started outlives it, the journal says "started".
  await applyKilledOnce(m, home, file, async () => (await instanceIds(m, 'once-1')).length > 0, 'run-instances', 1200);
  const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json', '--plan-file', file], { env: m.env, home });
  assert.is(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout);
  assert.is(report.steps[0].deduplicated, true);
  assert.equal(await instanceIds(m, 'once-1'), [report.bindings.INSTANCE_ID]);
});

motoTest('cloud_a creates are priced from the local EC2 table under a budget; an unpriced one is refused unless --allow-unpriced', async (m) => {
  const step = (type: string, count: string) => ({ args: ['aws', 'ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', type, '--count', count], reason: `${count} × ${type}` });
  const priced = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1', '-o', 'json', '--plan-file', planFile([step('t3.medium', '2')])], { env: m.env });
  assert.is(priced.code, 0, priced.stderr);
  const doc = JSON.parse(priced.stdout);
  assert.ok(Math.abs(doc.costs[0].per_hour - 0.0832) < 1e-9, JSON.stringify(doc.costs));
  assert.equal(doc.budget.not_counted, [], 'cloud_a says what it burns now');
  assert.is(doc.budget.within, true);

  const unknown = planFile([step('x9.enormous', '1')]);
  const refused = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', unknown], { env: m.env });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /^error: budget_unpriced: cannot check the plan against the budget .*no price is known for step 0: .*x9\.enormous/m);
  assert.equal(await instanceIds(m), [], 'nothing ran');
  const allowed = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--allow-unpriced', '--plan-file', unknown], { env: m.env });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.is((await instanceIds(m)).length, 1);
});

test.run();
