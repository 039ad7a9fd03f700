/**
 * `ask --compliance`, `ask --discovery` and `--workspace` (issue 14 items 4 and 7) against
 * `moto_server` with the real `aws` CLI: the controls table, the inventory, and the terraform
 * workspace context with its drift against the buckets moto holds. (IAM: cloud_a.iam.test.ts.)
 */
import { copyFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, configFile, runCli, withEmulator } from '../../support/cli.js';
import { createBucket, motoSuite, runInstance } from '../../support/moto.js';
import { terraformMissing, terraformWorkspace } from '../../support/terraform.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

const WILDCARD_S3 = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] });

motoTest('ask --compliance: one row per control with pass/fail/unknown and its evidence', async (m) => {
  // A compliant bucket, a non-compliant one, a password policy, EBS default encryption, a logging trail.
  for (const b of ['good-bucket', 'bad-bucket', 'trail-logs']) await createBucket(m, b);
  for (const b of ['good-bucket', 'trail-logs']) {
    m.aws(['s3api', 'put-public-access-block', '--bucket', b, '--public-access-block-configuration', 'BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true']);
    m.aws(['s3api', 'put-bucket-encryption', '--bucket', b, '--server-side-encryption-configuration', '{"Rules":[{"ApplyServerSideEncryptionByDefault":{"SSEAlgorithm":"AES256"}}]}']);
  }
  m.aws(['iam', 'update-account-password-policy', '--minimum-password-length', '16']);
  m.aws(['ec2', 'enable-ebs-encryption-by-default']);
  m.aws(['cloudtrail', 'create-trail', '--name', 'main', '--s3-bucket-name', 'trail-logs']);
  m.aws(['cloudtrail', 'start-logging', '--name', 'main']);
  m.aws(['iam', 'create-user', '--user-name', 'ops']);
  m.aws(['iam', 'put-user-policy', '--user-name', 'ops', '--policy-name', 'all', '--policy-document', WILDCARD_S3]);
  const r = await runCli(['-o', 'json', 'ask', '--ai-profile', 'builtin', '--compliance'], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  const { report, answer } = JSON.parse(r.stdout);
  const rows = Object.fromEntries(report.controls.map((c: { id: string; status: string; evidence: string }) => [c.id, `${c.status}: ${c.evidence}`]));
  assert.equal(rows, {
    root_mfa: 'fail: AccountMFAEnabled = 0',
    password_policy: 'pass: MinimumPasswordLength = 16',
    s3_public_access_block: 'fail: 1 of 3 bucket(s) without it: bad-bucket',
    s3_encryption: 'fail: 1 of 3 bucket(s) without it: bad-bucket',
    cloudtrail: 'pass: logging: main',
    ebs_default_encryption: 'pass: EbsEncryptionByDefault = true',
    iam_wildcard_policies: 'fail: user/ops: inline:all',
  });
  assert.equal(report.summary, { pass: 3, fail: 4, unknown: 0 });
  assert.match(answer, /^S3 buckets block public access\s+FAIL\s+1 of 3 bucket\(s\) without it: bad-bucket$/m);
});

const tfMissing = () => terraformMissing();

/** PATH with terraform's folder taken out: running it would fail (cli_not_found) instead of passing unseen. */
function withoutTerraform(): string {
  const dirs = (process.env.PATH ?? '').split(':');
  return dirs.filter((d) => !existsSync(join(d, 'terraform'))).join(':');
}

motoTest(
  'ask --discovery --workspace: services with counts and names per region, the terraform state by type, and drift (a bucket missing, one unmanaged)',
  async (m) => {
    for (const b of ['site-assets', 'unmanaged-tmp']) await createBucket(m, b);
    await runInstance(m, 'batch-1');
    const dir = terraformWorkspace([
      { type: 'aws_s3_bucket', name: 'assets', attributes: { id: 'site-assets', bucket: 'site-assets' } },
      { type: 'aws_s3_bucket', name: 'archive', attributes: { id: 'old-archive', bucket: 'old-archive' } },
    ]);
    const cfg = configFile(`terraform:\n  default_workspace: prod\n  workspaces:\n    prod:\n      path: ${JSON.stringify(dir)}\n`);
    const r = await runCli(['--config', cfg, '-o', 'json', 'ask', '--ai-profile', 'builtin', '--discovery'], { env: m.env });
    assert.is(r.code, 0, r.stderr);
    const { report, answer } = JSON.parse(r.stdout);
    const row = (s: string) => report.services.find((x: { service: string }) => x.service === s);
    assert.equal(row('ec2'), { service: 'ec2', what: 'EC2 instances', region: 'us-east-1', count: 1, names: ['batch-1'] });
    assert.equal(row('s3'), { service: 's3', what: 'S3 buckets', region: 'global', count: 2, names: ['site-assets', 'unmanaged-tmp'] });
    assert.is(row('lambda').count, 0);
    assert.ok(report.active.includes('ec2') && report.active.includes('s3') && !report.active.includes('lambda'));
    assert.equal(report.iac.by_type, { aws_s3_bucket: 2 });
    assert.equal(
      report.iac.drift.map((d: { status: string; address: string }) => `${d.status} ${d.address}`),
      ['missing aws_s3_bucket.archive', 'extra unmanaged-tmp'],
    );
    assert.match(answer, /^Terraform workspace prod \(.*\): 2 resource\(s\): 2 aws_s3_bucket\.$/m);
    assert.match(answer, /^missing\s+aws_s3_bucket\s+aws_s3_bucket\.archive\s+old-archive\s+in the state, not in the cloud$/m);
  },
  tfMissing,
);

motoTest(
  'ask --workspace adds the state and its drift to a question; an unknown workspace is exit 2',
  async (m) => {
    await createBucket(m, 'site-assets');
    const dir = terraformWorkspace([{ type: 'aws_s3_bucket', name: 'assets', attributes: { id: 'site-assets', bucket: 'site-assets' } }]);
    const cfg = configFile(`terraform:\n  workspaces:\n    staging:\n      path: ${JSON.stringify(dir)}\n`);
    const r = await runCli(['--config', cfg, 'ask', '--ai-profile', 'builtin', '--workspace', 'staging', 'which s3 buckets do I have?'], { env: m.env });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^1 S3 bucket:\n- site-assets$/m);
    assert.match(r.stdout, /^Terraform workspace staging .*1 aws_s3_bucket\.\nDrift: none \(aws_s3_bucket compared\)\.$/m);
    const unknown = await runCli(['--config', cfg, 'ask', '--ai-profile', 'builtin', '--workspace', 'prod', 'which s3 buckets?'], { env: m.env });
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /^error: usage: the terraform workspace "prod" is not in the config\nhint: configured workspaces: staging/m);
    // A folder whose configuration names a backend terraform init never set up: where its state is, is
    // unknown, and the stray terraform.tfstate beside it is not read (the state is read as data, so a
    // missing provider plugin alone no longer stops a read).
    const raw = tempDir('tf-raw-');
    copyFileSync(join(dir, 'terraform.tfstate'), join(raw, 'terraform.tfstate'));
    writeFileSync(join(raw, 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
    const rawCfg = configFile(`terraform:\n  workspaces:\n    raw:\n      path: ${JSON.stringify(raw)}\n`);
    const notInit = await runCli(['--config', rawCfg, 'ask', '--ai-profile', 'builtin', '--workspace', 'raw', 'which s3 buckets?'], { env: { ...m.env, TF_CLI_CONFIG_FILE: join(raw, 'none.rc') } });
    assert.is(notInit.code, 1, notInit.stderr);
    assert.match(notInit.stderr, /^error: terraform_not_initialised: the terraform workspace "raw" .* is not initialised/m);
    assert.match(notInit.stderr, /^hint: run `terraform init` in /m);
    // The same workspace as terraform.default_workspace: noted, and the question is still answered.
    const defCfg = configFile(`terraform:\n  default_workspace: raw\n  workspaces:\n    raw:\n      path: ${JSON.stringify(raw)}\n`);
    const noted = await runCli(['--config', defCfg, 'ask', '--ai-profile', 'builtin', 'which s3 buckets?'], { env: { ...m.env, TF_CLI_CONFIG_FILE: join(raw, 'none.rc') } });
    assert.is(noted.code, 0, noted.stderr);
    assert.match(noted.stdout, /^1 S3 bucket:\n- site-assets\nTerraform workspace raw .* could not be read: terraform_not_initialised: /m);
    // A question about gpucloud alone does not run terraform for the default workspace.
    await withEmulator(async ({ env }) => {
      const gpu = await runCli(['--config', defCfg, 'ask', '--ai-profile', 'builtin', '--gpucloud', 'what is my balance'], { env: { ...m.env, ...env, PATH: withoutTerraform() } });
      assert.is(gpu.code, 0, gpu.stderr);
      assert.not.match(gpu.stdout, /[Tt]erraform/);
    });
  },
  tfMissing,
);

test.run();
