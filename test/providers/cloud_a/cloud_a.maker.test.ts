/**
 * `ask --maker --cloud-a` with the built-in planner, applied with `ask --apply` against moto through
 * the real aws CLI (issue 14 item 5); what it refuses; and `ask --profile` selecting the cloud_a
 * environment the steps run with.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCloudAIntent, planCloudA } from '../../../engine/providers/cloud_a/planner.js';
import { cloudAMakerPrompt } from '../../../engine/providers/cloud_a/maker-prompt.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { startOpenAiServer } from '../../support/openai-server.js';
import { buckets, instanceState, motoSuite, planFile, runInstance, type Moto } from '../../support/moto.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

/** `ask --maker --cloud-a --ai-profile builtin "<request>"`, then `ask --apply` of what it wrote. */
async function makeAndApply(m: Moto, request: string, flags: string[] = []) {
  const made = await runCli(['ask', '--maker', '--cloud-a', '--ai-profile', 'builtin', ...flags, request], { env: m.env });
  if (made.code !== 0) return { made, applied: undefined };
  const applied = await runCli(['ask', '--apply', '-o', 'json', ...flags], { env: m.env, input: made.stdout });
  return { made, applied };
}

motoTest('built-in maker → apply: create a bucket, then delete it (the delete needs --destroyer on both)', async (m) => {
  const { made, applied } = await makeAndApply(m, 'create a bucket called made-by-maker');
  assert.is(made.code, 0, made.stderr);
  assert.equal(JSON.parse(made.stdout).commands[0].args, ['aws', 's3api', 'create-bucket', '--bucket', 'made-by-maker']);
  assert.is(applied!.code, 0, applied!.stderr);
  assert.equal(await buckets(m), ['made-by-maker']);

  const refused = await runCli(['ask', '--maker', '--cloud-a', '--ai-profile', 'builtin', 'delete the bucket made-by-maker'], { env: m.env });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /destructive: aws s3api delete-bucket/);
  const gone = await makeAndApply(m, 'delete the bucket made-by-maker', ['--destroyer']);
  assert.is(gone.applied!.code, 0, gone.applied!.stderr);
  assert.equal(await buckets(m), []);
});

motoTest('built-in maker → apply: stop and terminate an instance found by its Name tag; list instances reads them', async (m) => {
  const id = await runInstance(m, 'web-1');
  const other = await runInstance(m, 'Web-1');

  const stop = await makeAndApply(m, 'stop the instance web-1');
  assert.is(stop.made.code, 0, stop.made.stderr);
  assert.equal(JSON.parse(stop.made.stdout).commands[0].args, ['aws', 'ec2', 'stop-instances', '--instance-ids', id]);
  assert.is(stop.applied!.code, 0, stop.applied!.stderr);
  assert.is(await instanceState(m, id), 'stopped');
  assert.is(await instanceState(m, other), 'running', 'Name tags are matched with their case');

  const list = await makeAndApply(m, 'list my ec2 instances');
  assert.is(list.applied!.code, 0, list.applied!.stderr);

  const terminate = await makeAndApply(m, 'terminate instance web-1', ['--destroyer']);
  assert.is(terminate.applied!.code, 0, terminate.applied!.stderr);
  assert.is(await instanceState(m, id), 'terminated');
  // A terminated instance no longer answers to its name.
  const again = await runCli(['ask', '--maker', '--cloud-a', '--ai-profile', 'builtin', '--destroyer', 'terminate instance web-1'], { env: m.env });
  assert.is(again.code, 2, again.stderr);
  assert.match(again.stderr, /error: not_found: no instance has the Name tag "web-1"/);
});

test('the built-in cloud_a planner refuses what it does not read whole, and names that are not valid', () => {
  for (const q of ['make me a sandwich', 'list my instances and then delete them', 'create a bucket', 'resize the instance web-1', 'create 1000 buckets called x']) {
    assert.throws(() => parseCloudAIntent(q), /cannot plan .* for cloud_a/, q);
  }
  assert.throws(() => parseCloudAIntent('create a bucket called Bad_Name'), /"Bad_Name" is not a valid S3 bucket name/);
  assert.throws(() => planCloudA('stop instance web-1', []), /no instance has the Name tag "web-1"/);
  assert.throws(
    () => planCloudA('stop instance web-1', [
      { id: 'i-0000000000000001', name: 'web-1', state: 'running' },
      { id: 'i-0000000000000002', name: 'web-1', state: 'stopped' },
    ]),
    /2 instances have the Name tag "web-1": i-0000000000000001, i-0000000000000002/,
  );
  assert.equal(planCloudA('Create a new S3 bucket named logs.eu-1 in EU-WEST-1').commands[0]!.args, [
    'aws', 's3api', 'create-bucket', '--bucket', 'logs.eu-1', '--region', 'eu-west-1', '--create-bucket-configuration', 'LocationConstraint=eu-west-1',
  ]);
  assert.equal(planCloudA('reboot i-0123456789abcdef0').commands[0]!.args, ['aws', 'ec2', 'reboot-instances', '--instance-ids', 'i-0123456789abcdef0']);
});

test("the AI maker's cloud_a prompt carries the aws step schema, the destroyer table and the current data", () => {
  const prompt = cloudAMakerPrompt({ destroyer: false, current: { instances: [{ id: 'i-1', name: 'web' }], buckets: '(could not be read: cli_not_authenticated)' } });
  assert.match(prompt, /"provider":"cloud_a"/);
  assert.match(prompt, /\["aws","ec2","describe-instances"/);
  assert.match(prompt, /never pass --output or --profile/);
  assert.match(prompt, /\| `aws s3 sync` \| `--delete` \| needs --destroyer \|/);
  assert.match(prompt, /did NOT pass --destroyer/);
  assert.match(prompt, /\{"id":"i-1","name":"web"\}/);
  assert.match(prompt, /could not be read: cli_not_authenticated/);
});

test('a request for another cloud or for two at once is refused by the maker before any read (exit 2)', async () => {
  const other = await runCli(['ask', '--maker', '--ai-profile', 'builtin', '--cloud-b', 'list my gce instances']);
  assert.is(other.code, 2, other.stderr);
  assert.match(other.stderr, /error: provider_not_integrated: the maker writes gpucloud and cloud_a plans; this request was routed to cloud_b/);
  const two = await runCli(['ask', '--maker', '--ai-profile', 'builtin', '--gpucloud', '--cloud-a', 'list my instances']);
  assert.is(two.code, 2, two.stderr);
  assert.match(two.stderr, /one provider at a time/);
});

motoTest('ask --profile <environment> runs the cloud_a steps with that environment\'s profile and region', async (m) => {
  appendFileSync(m.env.AWS_CONFIG_FILE!, '[profile moto-eu]\nregion = us-east-1\n');
  appendFileSync(m.env.AWS_SHARED_CREDENTIALS_FILE!, '[moto-eu]\naws_access_key_id = testing\naws_secret_access_key = testing\n');
  const dir = tempDir('cloud-a-cfg-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, 'infra:\n  cloud_a:\n    environments:\n      eu:\n        profile: moto-eu\n        region: eu-west-1\n', { mode: 0o600 });
  const file = planFile([{ args: ['aws', 'ec2', 'describe-availability-zones'], reason: 'which region', produces: { REGION: '$.AvailabilityZones[0].RegionName' } }]);
  const withEnv = await runCli(['--config', config, 'ask', '--apply', '--profile', 'eu', '-o', 'json', '--plan-file', file], { env: m.env });
  assert.is(withEnv.code, 0, withEnv.stderr);
  assert.is(JSON.parse(withEnv.stdout).bindings.REGION, 'eu-west-1');
  const without = await runCli(['--config', config, 'ask', '--apply', '-o', 'json', '--plan-file', file], { env: m.env });
  assert.is(JSON.parse(without.stdout).bindings.REGION, 'us-east-1');
  // A profile the aws CLI does not know is a login problem with the fix, not a crash.
  const unknown = await runCli(['--config', config, 'ask', '--apply', '--profile', 'nosuch', '--plan-file', file], { env: m.env });
  assert.is(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /error: cli_not_authenticated: .*The config profile \(nosuch\) could not be found/);
});

motoTest('the AI maker, when the request routes to cloud_a, gets the aws step format, the rules and the current instances; its plan is validated', async (m) => {
  const id = await runInstance(m, 'ai-web');
  const srv = await startOpenAiServer();
  try {
    const plan = { version: 1, provider: 'cloud_a', commands: [{ args: ['aws', 'ec2', 'stop-instances', '--instance-ids', id], reason: 'stop ai-web' }] };
    // A plan with --output text first: sent back with the problem, repaired on the second attempt.
    srv.reply({ text: JSON.stringify({ ...plan, commands: [{ ...plan.commands[0], args: [...plan.commands[0]!.args, '--output', 'text'] }] }) }, { text: JSON.stringify(plan) });
    const dir = tempDir('cloud-a-ai-');
    writeFileSync(join(dir, 'c.yaml'), `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`, { mode: 0o600 });
    const r = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--maker', 'stop my ec2 instance ai-web'], { env: { ...m.env, TEST_AI_KEY: 'sk-test-key-123456' } });
    assert.is(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).commands[0].args, plan.commands[0]!.args);
    const chats = srv.chatRequests();
    assert.is(chats.length, 2);
    const system = JSON.stringify(chats[0]!.body);
    assert.match(system, /This request is about cloud_a/);
    assert.match(system, new RegExp(id));
    assert.match(JSON.stringify(chats[1]!.body), /--output text: aws steps always print JSON/);
  } finally {
    await srv.close();
  }
});

test('a request whose words route it to cloud_a gets a cloud_a plan without the flag', async () => {
  const r = await runCli(['ask', '--maker', '--ai-profile', 'builtin', 'list my s3 buckets']);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).commands[0].args, ['aws', 's3api', 'list-buckets']);
});

motoTest('--autostop is refused for a cloud_a plan (only a maker that names its scripts read adds a watcher); nothing is created', async (m) => {
  const r = await runCli(['ask', '--maker', '--cloud-a', '--ai-profile', 'builtin', '--autostop', '30m', 'create a bucket called watched-1'], { env: m.env });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: usage: --autostop is for gpucloud instances$/m);
  assert.match(r.stderr, /leave --autostop out/);
  assert.is(r.stdout, '', 'no plan on stdout');
  assert.equal(await buckets(m), []);
});

test.run();
