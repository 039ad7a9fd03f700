/**
 * No `create-*` wildcard on the CLI clouds (issue 35 §4): each service lists the creates known to be
 * harmless, and only those run without --destroyer. Checked on the real classification of every
 * provider: every listed create (each alternative of each row) is a create; creates that run code,
 * grant access or delete data later need --destroyer with their reason (the samples of the rules
 * tests, test/support/aws-samples.ts and test/providers/cloud_bc/cloud_bc.standin.test.ts, cover every such row); a create
 * no list names needs --destroyer as "not known to be safe"; and the option spellings aws-cli expands
 * (`--e` is `--endpoint-url`) cannot dodge a rule, while gcloud, which expands none, is not over-read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CliRule } from '../../engine/core/kits/cli/rules.js';
import { AWS_RULES } from '../../engine/providers/cloud_a/destroyer.js';
import { awsVerb } from '../../engine/providers/cloud_a/provider.js';
import { GCLOUD_RULES } from '../../engine/providers/cloud_b/destroyer.js';
import { gcloudVerb } from '../../engine/providers/cloud_b/provider.js';
import { AZ_RULES } from '../../engine/providers/cloud_c/destroyer.js';
import { azVerb } from '../../engine/providers/cloud_c/provider.js';

/** Every command a row's words name: `a b|c` → `a b`, `a c` (no wildcards in create rows). */
function expand(command: string): string[][] {
  return command.split(' ').reduce<string[][]>((acc, word) => acc.flatMap((prefix) => word.split('|').map((w) => [...prefix, w])), [[]]);
}

const createRows = (rules: readonly CliRule[]) => rules.filter((r) => r.effect === 'create');

test('every create an allowlist names runs freely as a create (aws, gcloud, az), and no create row is a wildcard', () => {
  for (const [tool, rules, verb, extra] of [
    ['aws', AWS_RULES, awsVerb, [] as string[]],
    ['gcloud', GCLOUD_RULES, gcloudVerb, ['name-1', '--zone', 'us-central1-a']],
    ['az', AZ_RULES, azVerb, ['--name', 'n', '--resource-group', 'rg']],
  ] as const) {
    const rows = createRows(rules);
    assert.ok(rows.length > 5, `${tool} lists its creates`);
    for (const row of rows) {
      assert.not.match(row.command, /\*/, `${tool} ${row.command}: a create row names its operations`);
      for (const words of expand(row.command)) {
        const args = [tool, ...words, ...extra];
        const cls = verb.classify(args);
        assert.is(cls.effect, 'create', `${args.join(' ')}: ${cls.reasons.join('; ')}`);
        assert.not.ok(cls.refused, args.join(' '));
      }
    }
  }
});

test('creates no list names need --destroyer, said to be "not known to be safe" (aws, gcloud, az)', () => {
  const unknown: [typeof awsVerb, string[]][] = [
    [awsVerb, ['aws', 'sagemaker', 'create-notebook-instance', '--notebook-instance-name', 'n', '--instance-type', 'ml.p4d.24xlarge', '--role-arn', 'r']],
    [awsVerb, ['aws', 'apigateway', 'create-rest-api', '--name', 'a']],
    [awsVerb, ['aws', 'cognito-idp', 'create-user-pool', '--pool-name', 'p']],
    [awsVerb, ['aws', 'ec2', 'create-vpc-peering-connection', '--vpc-id', 'v', '--peer-owner-id', '111122223333', '--peer-vpc-id', 'p']],
    [awsVerb, ['aws', 'ec2', 'create-instance-export-task', '--instance-id', 'i-1', '--target-environment', 'vmware', '--export-to-s3-task', 'S3Bucket=other-account']],
    [awsVerb, ['aws', 'ec2', 'associate-iam-instance-profile', '--instance-id', 'i-1', '--iam-instance-profile', 'Name=admin']],
    [awsVerb, ['aws', 'emr', 'create-cluster', '--release-label', 'emr-7.0.0', '--instance-type', 'm5.xlarge', '--instance-count', '3']],
    [gcloudVerb, ['gcloud', 'compute', 'instances', 'create-with-container', 'vm-1', '--container-image', 'alpine']],
    [gcloudVerb, ['gcloud', 'logging', 'sinks', 'create', 's', 'storage.googleapis.com/other-bucket']],
    [gcloudVerb, ['gcloud', 'pubsub', 'subscriptions', 'create', 's', '--topic', 't', '--push-endpoint', 'https://example.com']],
    [gcloudVerb, ['gcloud', 'projects', 'create', 'p-1']],
    [azVerb, ['az', 'monitor', 'autoscale', 'create', '-g', 'rg', '--resource', 'vmss', '--max-count', '100', '--count', '1']],
    [azVerb, ['az', 'automation', 'runbook', 'create', '-g', 'rg', '--automation-account-name', 'a', '-n', 'r', '--type', 'PowerShell']],
    [azVerb, ['az', 'logic', 'workflow', 'create', '-g', 'rg', '-n', 'w', '--definition', '@<FILES>/w.json']],
  ];
  for (const [verb, args] of unknown) {
    const cls = verb.classify(args);
    assert.is(cls.effect, 'destroy', args.join(' '));
    assert.match(cls.reasons.join(' '), /not known to be safe/, args.join(' '));
  }
});

test("the issue's creates, each needing --destroyer with a reason that says what it does (not a guess)", () => {
  const cases: [typeof awsVerb, string[], RegExp][] = [
    [awsVerb, ['aws', 'cloudformation', 'create-stack', '--stack-name', 's', '--template-url', 'https://s3.amazonaws.com/b/admin.yaml', '--capabilities', 'CAPABILITY_IAM'], /IAM users and keys/],
    [awsVerb, ['aws', 'iam', 'create-user', '--user-name', 'u'], /identities, credentials, permissions/],
    [awsVerb, ['aws', 'ssm', 'create-association', '--name', 'AWS-RunShellScript', '--targets', 'Key=InstanceIds,Values=i-1'], /runs commands on instances/],
    [awsVerb, ['aws', 'scheduler', 'create-schedule', '--name', 's'], /runs its target/],
    [awsVerb, ['aws', 'glue', 'create-trigger', '--name', 't', '--type', 'ON_DEMAND', '--actions', 'JobName=j'], /runs code with its role/],
    [awsVerb, ['aws', 's3control', 'create-job', '--account-id', '1'], /batch job acts on every object/],
    [awsVerb, ['aws', 'logs', 'put-retention-policy', '--log-group-name', 'g', '--retention-in-days', '1'], /older than the retention are deleted/],
    [awsVerb, ['aws', 'backup', 'create-backup-plan', '--backup-plan', '{}'], /deletes recovery points/],
    [gcloudVerb, ['gcloud', 'deployment-manager', 'deployments', 'create', 'd', '--config', 'gs://b/d.yaml'], /whatever its configuration says/],
    [gcloudVerb, ['gcloud', 'scheduler', 'jobs', 'create', 'http', 'j', '--schedule', '* * * * *', '--uri', 'https://example.com'], /on a schedule/],
    [azVerb, ['az', 'deployment', 'group', 'create', '-g', 'rg', '--template-uri', 'https://example.com/t.json', '--mode', 'Incremental'], /whatever its template says/],
    [azVerb, ['az', 'deployment', 'sub', 'create', '-l', 'westeurope', '--template-uri', 'https://example.com/t.json'], /whatever its template says/],
  ];
  for (const [verb, args, why] of cases) {
    const cls = verb.classify(args);
    assert.is(cls.effect, 'destroy', args.join(' '));
    assert.not.ok(cls.refused, args.join(' '));
    assert.match(cls.reasons.join(' '), why, args.join(' '));
  }
});

test('option prefixes aws-cli expands cannot dodge a rule (--e is --endpoint-url, --ac is --acl, --deb is --debug); gcloud expands none', () => {
  for (const args of [
    ['aws', 's3api', 'list-buckets', '--e', 'http://attacker.example'],
    ['aws', 's3api', 'list-buckets', '--en=http://attacker.example'],
    ['aws', '--e', 'http://attacker.example', 's3api', 'list-buckets'],
    ['aws', 's3api', 'list-buckets', '--ca', 'bundle.pem'],
    ['aws', 's3api', 'list-buckets', '--no-v'],
  ]) {
    assert.ok(awsVerb.classify(args).refused?.length, args.join(' '));
  }
  assert.is(awsVerb.classify(['aws', 's3api', 'create-bucket', '--bucket', 'b', '--ac', 'public-read']).effect, 'destroy');
  assert.match(awsVerb.checkArgs(['aws', 's3api', 'list-buckets', '--deb']).map((p) => p.message).join(' '), /--debug is not allowed/);
  // gcloud reads `--config` as itself, never as a prefix of `--configuration` (calliope refuses abbreviations).
  const g = gcloudVerb.classify(['gcloud', 'builds', 'list', '--config', 'gs://b/c.yaml']);
  assert.not.ok(g.refused, g.refused?.join('; '));
  assert.ok(gcloudVerb.classify(['gcloud', 'compute', 'instances', 'list', '--configuration', 'other']).refused?.length);
});

test.run();
