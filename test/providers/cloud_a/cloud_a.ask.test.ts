/**
 * `assistant ask` about cloud_a (issue 14 item 3), end to end: the CLI child reads the real `aws` CLI
 * against `moto_server` through a read-only context plan; the built-in provider answers with the names
 * the test created; several provider flags read one combined plan; `cloud_a.service_keywords` routes
 * by whole words; an AI provider receives the aws records; history is kept per provider set.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, configFile, runCli, tempHome, withEmulator } from '../../support/cli.js';
import { createBucket, motoSuite, runInstance, type RunningMoto } from '../../support/moto.js';
import { openAiServerFor } from '../../support/openai-server.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);
const srv = openAiServerFor(test);
const KEY = 'sk-cloud-a-ask-5d1e';

const aiConfig = () =>
  configFile(`ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`);

/** Two buckets and a t2.micro named api-server-7, made over HTTP (set-up only; the CLI's aws runs are what is tested). */
async function seed(m: RunningMoto): Promise<void> {
  await createBucket(m, 'invoices-2026');
  await createBucket(m, 'ml-datasets');
  await runInstance(m, 'api-server-7');
}

motoTest('ask --cloud-a: the built-in provider answers with the instances and buckets the test created (aws steps through the executor)', async (m) => {
  await seed(m);
  const r = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--cloud-a', 'which instances and buckets do I have?'], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 EC2 instance:\n- api-server-7 \(i-[0-9a-f]+, t2\.micro, running\)$/m);
  assert.match(r.stdout, /^2 S3 buckets:\n- invoices-2026\n- ml-datasets$/m);
  // The context is a plan: each aws step is run (and reported) by the executor.
  assert.match(r.stderr, /debug: run: step 0 started: aws ec2 describe-instances/);
  assert.match(r.stderr, /debug: run: step 1 started: aws s3api list-buckets/);
  assert.match(r.stderr, /ask: route cloud_a, context read: cloud_a\/ec2, cloud_a\/s3/);
  assert.not.match(r.stderr, /gpucloud-api|\/v1\/instances/);
});

motoTest('a question naming aws services goes to cloud_a without a flag; only the flag reads the default set', async (m) => {
  await seed(m);
  const named = await runCli(['ask', '--ai-profile', 'builtin', 'how many s3 buckets do I have'], { env: m.env });
  assert.is(named.code, 0, named.stderr);
  assert.is(named.stdout.trim(), '2 S3 buckets.');
  const flagOnly = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--cloud-a', 'what is there'], { env: m.env });
  assert.is(flagOnly.code, 0, flagOnly.stderr);
  assert.match(flagOnly.stderr, /context read: cloud_a\/ec2, cloud_a\/s3, cloud_a\/lambda/);
  assert.match(flagOnly.stdout, /You have no Lambda functions\./);
});

motoTest('--gpucloud --cloud-a reads both contexts in one plan and answers about both', async (m) => {
  await seed(m);
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--gpucloud', '--cloud-a', 'what am I paying for'], { env: { ...m.env, ...env } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /ask: route gpucloud\+cloud_a, context read: instances, balance, cloud_a\/ec2, cloud_a\/s3, cloud_a\/lambda/);
    // One plan: the aws steps follow the gpucloud ones in the same run (step numbers continue).
    assert.match(r.stderr, /debug: run: step 0 started: GET \/v1\/instances/);
    assert.match(r.stderr, /debug: run: step 2 started: aws ec2 describe-instances/);
    assert.match(r.stdout, /Your balance is/);
    assert.match(r.stdout, /api-server-7/);
    assert.match(r.stdout, /invoices-2026/);
  });
});

motoTest('cloud_a.service_keywords from the config route whole words to the service they extend (not inside other words)', async (m) => {
  m.aws(['dynamodb', 'create-table', '--table-name', 'ledger-entries', '--attribute-definitions', 'AttributeName=id,AttributeType=S', '--key-schema', 'AttributeName=id,KeyType=HASH', '--billing-mode', 'PAY_PER_REQUEST']);
  const cfg = configFile('cloud_a:\n  service_keywords:\n    dynamodb: [ledger, bookkeeping]\n');
  const r = await runCli(['--config', cfg, '--debug', 'ask', '--ai-profile', 'builtin', 'what is in my ledger?'], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /ask: route cloud_a, context read: cloud_a\/dynamodb;/);
  assert.match(r.stdout, /^1 DynamoDB table:\n- ledger-entries$/m);
  const inside = await runCli(['--config', cfg, 'ask', '--route-only', '-o', 'json', 'ledgerly speaking, how are my instances'], { env: m.env });
  assert.is(inside.code, 0, inside.stderr);
  assert.equal(JSON.parse(inside.stdout).providers, ['gpucloud']);
});

motoTest('with an AI provider the aws records go into the prompt, and history is kept per provider set', async (m) => {
  await seed(m);
  const cfg = aiConfig();
  const home = tempHome();
  // The same gpucloud endpoint for every question: only the provider set tells the conversations apart.
  await withEmulator(async ({ env: gpu }) => {
    const env = { ...m.env, ...gpu, TEST_AI_KEY: KEY };
    srv.reply({ text: 'You run api-server-7.' });
    const first = await runCli(['--config', cfg, 'ask', '--cloud-a', 'what runs on ec2?'], { env, home });
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout.trim(), 'You run api-server-7.');
    const prompt = srv.chatRequests()[0]!.body.messages.at(-1).content as string;
    assert.match(prompt, /^cloud_a\/ec2: .*"InstanceId":"i-/m);
    assert.match(prompt, /api-server-7/);
    // A second cloud_a question sees the first turn; a gpucloud question does not.
    srv.reply({ text: 'still api-server-7' });
    const second = await runCli(['--config', cfg, 'ask', '--cloud-a', 'and now?'], { env, home });
    assert.is(second.code, 0, second.stderr);
    assert.ok(srv.chatRequests()[1]!.body.messages.some((x: { content: string }) => x.content === 'what runs on ec2?'));
    srv.reply({ text: 'gpucloud things' });
    const third = await runCli(['--config', cfg, 'ask', '--gpucloud', 'list my instances'], { env, home });
    assert.is(third.code, 0, third.stderr);
    const earlier = srv.chatRequests()[2]!.body.messages.filter((x: { content: string }) => ['what runs on ec2?', 'and now?'].includes(x.content));
    assert.equal(earlier, [], 'no turn of the cloud_a conversation');
  });
});

motoTest('--profile selects the cloud_a environment: its region is where the context is read', async (m) => {
  await seed(m);
  m.aws(['ec2', 'run-instances', '--region', 'eu-west-1', '--image-id', 'ami-12c6146b', '--instance-type', 't3.nano', '--tag-specifications', 'ResourceType=instance,Tags=[{Key=Name,Value=eu-worker}]']);
  const cfg = configFile('infra:\n  cloud_a:\n    environments:\n      europe:\n        region: eu-west-1\n');
  const r = await runCli(['--config', cfg, '--debug', 'ask', '--ai-profile', 'builtin', '--cloud-a', '--profile', 'europe', 'which ec2 instances do I have'], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /cloud_a: aws CLI with settings from --profile environment "europe"/);
  assert.match(r.stdout, /^1 EC2 instance:\n- eu-worker \(i-[0-9a-f]+, t3\.nano, running\)$/m);
  assert.not.match(r.stdout, /api-server-7/);
  // A plan applied with --profile runs in that environment too.
  const plan = join(tempDir('cloud-a-plan-'), 'plan.json');
  const create = ['aws', 'ec2', 'run-instances', '--image-id', 'ami-12c6146b', '--instance-type', 't3.nano', '--tag-specifications', 'ResourceType=instance,Tags=[{Key=Name,Value=eu-second}]'];
  writeFileSync(plan, JSON.stringify({ version: 1, provider: 'cloud_a', commands: [{ args: create, reason: 'a VM in Europe' }] }));
  const applied = await runCli(['--config', cfg, 'ask', '--apply', '--profile', 'europe', '--plan-file', plan], { env: m.env });
  assert.is(applied.code, 0, applied.stderr);
  const names = (region: string) =>
    (m.aws(['ec2', 'describe-instances', '--region', region]) as { Reservations: { Instances: { Tags?: { Key: string; Value: string }[] }[] }[] }).Reservations.flatMap((x) =>
      x.Instances.map((i) => i.Tags?.find((t) => t.Key === 'Name')?.Value),
    );
  assert.equal(names('eu-west-1').sort(), ['eu-second', 'eu-worker']);
  assert.equal(names('us-east-1'), ['api-server-7']);
});

test.run();
