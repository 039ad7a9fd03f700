/**
 * cloud_a's classification of `aws` steps, from the parsed argument vector (issue 14 item 2): every
 * destructive form of the rules table, the spellings that must not hide one, reads, creates with their
 * names, and docs/safety.md's table generated from the same rows.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCommand } from '../../../engine/core/kits/cli/argv.js';
import { matchRule, rulesMarkdown } from '../../../engine/core/kits/cli/rules.js';
import { AWS_RULE_SET, AWS_RULES, AWS_SYNTAX } from '../../../engine/providers/cloud_a/destroyer.js';
import { awsArgs, awsVerb, resolveAwsTarget } from '../../../engine/providers/cloud_a/provider.js';
import { allProviders } from '../../../engine/providers/index.js';
import { validatePlan } from '../../../engine/core/plan/validate.js';
import { configSchema } from '../../../engine/providers/config.js';
import { DESTRUCTIVE_SAMPLES, LOCAL_EFFECT_SAMPLES, REFUSED_ROW_SAMPLES, UNDECODABLE_SAMPLES } from '../../support/aws-samples.js';

const ConfigSchema = await configSchema();

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const classify = (...args: string[]) => awsVerb.classify(['aws', ...args]);

const parse = (args: string[]) => parseCommand(args, AWS_SYNTAX);

/** Every row of the allowlist with `effect` has samples, each decided by exactly that row; `check` asserts what its class must be. */
function eachRowSample(effect: string, samples: Record<string, readonly (readonly string[])[]>, check: (args: string[], cls: ReturnType<typeof classify>) => void): void {
  const rows = AWS_RULES.filter((r) => r.effect === effect).map((r) => r.command);
  assert.equal(Object.keys(samples).sort(), [...rows].sort());
  for (const [row, list] of Object.entries(samples)) {
    for (const sample of list) {
      const args = [...sample];
      check(args, classify(...args));
      assert.is(matchRule(AWS_RULE_SET, parse(args))?.command, row, args.join(' '));
    }
  }
}

test('every destroy row of the allowlist has samples, each decided by exactly that row and classified destroy with a reason', () => {
  eachRowSample('destroy', DESTRUCTIVE_SAMPLES, (args, cls) => {
    assert.is(cls.effect, 'destroy', args.join(' '));
    assert.not.ok(cls.refused, `not refused: ${args.join(' ')}`);
    assert.ok(cls.reasons.length > 0 && cls.reasons.every((r) => r.length > 0), args.join(' '));
    assert.equal(awsVerb.checkArgs(['aws', ...args]), [], args.join(' '));
  });
});

test('every refused row has samples decided by that row: the step is refused (never runs, --destroyer or not)', () => {
  eachRowSample('refused', REFUSED_ROW_SAMPLES, (args, cls) => {
    assert.ok(cls.refused?.length, `refused: ${args.join(' ')}`);
    assert.is(cls.effect, 'destroy', 'a refused step is also destructive for consumers that only read the effect');
  });
});

test('a step that would read or write a local file is refused whatever its row, naming the file; an artefact of --files is not', () => {
  for (const args of LOCAL_EFFECT_SAMPLES) {
    const cls = classify(...args);
    assert.ok(cls.refused?.length, `refused: ${args.join(' ')}`);
    assert.match(cls.refused!.join(' '), /local|file|symlink|artefact|this machine|another server|TLS/, args.join(' '));
  }
  for (const args of [
    ['s3', 'cp', '<FILES>/model.bin', 's3://b/model.bin'],
    ['s3', 'sync', '<FILES>/site', 's3://b/site'],
    ['s3api', 'put-object', '--bucket', 'b', '--key', 'k', '--body', '<FILES>/model.bin'],
    ['iam', 'list-policies', '--cli-input-json', 'file://<FILES>/in.json'],
    ['s3', 'cp', 's3://b/k', '-'],
  ]) {
    const cls = classify(...args);
    assert.not.ok(cls.refused, args.join(' '));
    assert.is.not(cls.effect, 'destroy', args.join(' '));
  }
  // An artefact path stays inside --files DIR as written.
  for (const bad of ['<FILES>/../x', '<FILES>//etc/passwd', '<FILES>/a/./b', '<FILES>/~x', '<FILES>/$HOME', '<FILES>/']) {
    assert.ok(classify('s3', 'cp', bad, 's3://b/k').refused?.length, bad);
  }
});

test('a parameter the gate cannot decode as aws-cli would makes the plan invalid (never passed through)', () => {
  for (const args of UNDECODABLE_SAMPLES) {
    assert.match(awsVerb.checkArgs(['aws', ...args]).map((p) => p.message).join(' '), /cannot decode/, args.join(' '));
    assert.is(classify(...args).effect, 'destroy', args.join(' '));
  }
});

test('default deny: an operation no row names needs --destroyer, and the reason says it is not known to be safe', () => {
  for (const args of [
    ['ec2', 'frobnicate-instances'],
    ['ec2', 'modify-instance-attribute', '--instance-id', 'i-1', '--instance-initiated-shutdown-behavior', 'terminate'],
    ['sqs', 'send-message', '--queue-url', 'q', '--message-body', 'x'],
    ['lambda', 'update-function-code', '--function-name', 'f', '--s3-bucket', 'b', '--s3-key', 'k'],
    ['rds', 'modify-db-instance', '--db-instance-identifier', 'd', '--backup-retention-period', '0'],
    ['s3api', 'put-bucket-cors', '--bucket', 'b', '--cors-configuration', '{"CORSRules":[]}'],
  ]) {
    const cls = classify(...args);
    assert.is(cls.effect, 'destroy', args.join(' '));
    assert.match(cls.reasons.join(' '), /not known to be safe/, args.join(' '));
  }
});

test('what cannot be decided from the argv is destructive: placeholders in command words or option names, unknown globals, aliases', () => {
  for (const args of [
    ['<SERVICE>', 'describe-instances'],
    ['ec2', '<OPERATION>'],
    ['ec2', 'describe-<WHAT>'],
    ['s3', 'sync', '.', 's3://b', '--<FLAG>'],
    ['--unknown-global', 'x', 'ec2', 'describe-instances'],
    ['myalias', 'list-things'],
    ['ec2'],
  ]) {
    const cls = classify(...args);
    assert.is(cls.effect, 'destroy', args.join(' '));
    assert.match(cls.reasons.join(' '), /treated as destructive/);
  }
});

test('the harmless controls run freely: reads, creates, and changes that remove nothing (counts above 0, sync without --delete, CREATE records)', () => {
  const cases: [string[], string][] = [
    [['ecs', 'update-service', '--cluster', 'c', '--service', 's', '--desired-count', '2'], 'update'],
    [['ecs', 'update-service', '--cli-input-json', '{"cluster":"c","service":"s","desiredCount":10}'], 'update'],
    [['autoscaling', 'set-desired-capacity', '--auto-scaling-group-name', 'g', '--desired-capacity', '10'], 'update'],
    [['eks', 'update-nodegroup-config', '--cluster-name', 'c', '--nodegroup-name', 'n', '--scaling-config', 'minSize=0,maxSize=20,desiredSize=10'], 'update'],
    [['s3', 'sync', 's3://a', 's3://b'], 'update'],
    [['s3', 'cp', 's3://a/k', 's3://b/k'], 'update'],
    [['route53', 'change-resource-record-sets', '--hosted-zone-id', 'z', '--change-batch', '{"Changes":[{"Action":"CREATE","ResourceRecordSet":{"Name":"a"}}]}'], 'update'],
    [['ec2', 'stop-instances', '--instance-ids', 'i-1'], 'update'],
    [['ec2', 'start-instances', '--instance-ids', 'i-1'], 'update'],
    [['ec2', 'describe-instances'], 'read'],
    [['--region', 'us-east-1', '--output', 'json', 's3api', 'list-buckets'], 'read'],
    [['sts', 'get-caller-identity'], 'read'],
    [['s3', 'ls'], 'read'],
    [['s3api', 'head-bucket', '--bucket', 'b'], 'read'],
    [['ec2', 'wait', 'instance-running', '--instance-ids', 'i-1'], 'read'],
    [['ec2', 'create-security-group', '--group-name', 'g', '--description', 'd'], 'create'],
    [['s3api', 'create-bucket', '--bucket', 'b'], 'create'],
  ];
  for (const [args, effect] of cases) assert.is(classify(...args).effect, effect, args.join(' '));
});

test('creates carry the kind and the name the argv gives: buckets and Name-tagged instances', () => {
  assert.equal(classify('s3', 'mb', 's3://logs-eu'), { effect: 'create', kind: 'bucket', name: 'logs-eu', nameAt: 'the s3:// URL', reasons: [] });
  assert.equal(classify('s3api', 'create-bucket', '--bucket=logs-eu'), { effect: 'create', kind: 'bucket', name: 'logs-eu', nameAt: '--bucket', reasons: [] });
  const short = classify('ec2', 'run-instances', '--image-id', 'ami-1', '--tag-specifications', 'ResourceType=instance,Tags=[{Key=Name,Value=web-1}]');
  assert.equal([short.effect, short.kind, short.name], ['create', 'instance', 'web-1']);
  const json = classify('ec2', 'run-instances', '--tag-specifications', '[{"ResourceType":"instance","Tags":[{"Key":"Name","Value":"web-2"}]}]');
  assert.equal([json.kind, json.name], ['instance', 'web-2']);
  assert.equal([classify('ec2', 'create-security-group', '--group-name', 'g').effect, classify('ec2', 'create-security-group').kind], ['create', 'security-group']);
});

test('checkArgs: a service and an operation, no empty args or NUL bytes, no --output other than json', () => {
  const problems = (...args: string[]) => awsVerb.checkArgs(['aws', ...args]).map((p) => p.message).join('\n');
  assert.is(problems('s3api', 'list-buckets'), '');
  assert.is(problems('s3api', 'list-buckets', '--output', 'json'), '');
  assert.match(problems('s3api'), /aws steps are \["aws", "<service>", "<operation>"/);
  assert.match(problems('s3api', 'list-buckets', ''), /empty argument/);
  assert.match(problems('s3api', 'list-buckets', '--query', 'a\u0000b'), /NUL byte/);
  assert.match(problems('s3api', 'list-buckets', '--output', 'text'), /--output text: aws steps always print JSON/);
  assert.match(problems('--output=table', 's3api', 'list-buckets'), /--output table/);
  // Debug output prints request headers and tokens: the tool's own --debug is the way.
  assert.match(problems('s3api', 'list-buckets', '--debug'), /--debug is not allowed in a aws step/);
});

test('a bound value inside inline JSON is JSON-escaped and cannot add keys; one that turns a step destructive is caught by reclassifying', () => {
  const args = ['aws', 'ecs', 'update-service', '--cli-input-json', '{"cluster":"c","service":"<S>","desiredCount":2}'];
  assert.is(awsVerb.classify(args).effect, 'update');
  const bound = awsVerb.substitute(args, { S: 'x","desiredCount":0,"y":"' });
  assert.equal(JSON.parse(bound[4]!), { cluster: 'c', service: 'x","desiredCount":0,"y":"', desiredCount: 2 });
  assert.is(awsVerb.classify(bound).effect, 'update');
  const flag = awsVerb.substitute(['aws', 's3', 'sync', '.', 's3://b', '<EXTRA>'], { EXTRA: '--delete' });
  assert.is(awsVerb.classify(flag).effect, 'destroy');
});

test('the plan validates through the engine with the registered provider; its destroy steps need --destroyer', () => {
  const plan = {
    version: 1,
    provider: 'cloud_a',
    commands: [
      { args: ['aws', 's3api', 'list-buckets'], reason: 'see' },
      { args: ['aws', 'ec2', 'terminate-instances', '--instance-ids', 'i-1'], reason: 'gone' },
    ],
  };
  const gated = validatePlan(plan, { providers: PROVIDERS, destroyer: false });
  assert.not.ok(gated.ok);
  assert.equal(gated.destructive[1], ['aws ec2 terminate-instances: deletes, terminates, closes, disables, detaches, revokes, replaces or cancels something']);
  assert.ok(validatePlan(plan, { providers: PROVIDERS, destroyer: true }).ok);
});

test('the provider adds JSON output, and the profile and region of the selected environment unless the step names them', () => {
  const config = ConfigSchema.parse({ infra: { default_environment: 'prod', cloud_a: { environments: { prod: { profile: 'p-prod', region: 'eu-west-1' }, dev: { profile: 'p-dev' } } } } });
  const target = resolveAwsTarget(config, {});
  assert.equal([target.profile, target.region], ['p-prod', 'eu-west-1']);
  assert.equal(awsArgs(['s3api', 'list-buckets'], target), ['s3api', 'list-buckets', '--output', 'json', '--profile', 'p-prod', '--region', 'eu-west-1']);
  assert.equal(awsArgs(['--region=us-east-2', 's3api', 'list-buckets', '--output', 'json'], target), ['--region=us-east-2', 's3api', 'list-buckets', '--output', 'json', '--profile', 'p-prod']);
  assert.equal(resolveAwsTarget(config, {}, 'dev').profile, 'p-dev');
  assert.equal(resolveAwsTarget(config, {}, 'someprofile').profile, 'someprofile');
  // The aws CLI's own environment is honoured (how tests point it at moto); --profile still wins.
  assert.equal(resolveAwsTarget(config, { AWS_PROFILE: 'mine' }).profile, undefined);
  assert.equal(resolveAwsTarget(config, { AWS_PROFILE: 'mine' }, 'dev').profile, 'p-dev');
});

test("docs/safety.md's destroyer table for aws steps is the rules table", () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../../docs/safety.md', import.meta.url)), 'utf8');
  const m = /<!-- cloud_a rules: generated by rulesMarkdown\(AWS_RULE_SET\) -->\n([\s\S]*?)\n<!-- \/cloud_a rules -->/.exec(readme);
  assert.ok(m, 'docs/safety.md has the generated cloud_a rules table');
  assert.fixture(m![1]!, rulesMarkdown(AWS_RULE_SET));
});

test.run();
