/**
 * `ask --iam` (issue 14 item 4) against `moto_server` with the real `aws` CLI: findings on users,
 * roles and policies the test creates (exactly), `--role-arn` narrowing, the report in an AI prompt.
 * (Compliance, discovery and workspaces: cloud_a.reports.test.ts.)
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, configFile, runCli } from '../../support/cli.js';
import { motoSuite, type RunningMoto } from '../../support/moto.js';
import { openAiServerFor } from '../../support/openai-server.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);
const srv = openAiServerFor(test);

const WILDCARD_S3 = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] });
const READ_ONLY = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::b/*' }] });
const TRUST = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }] });

/** alice: AdministratorAccess, no MFA. bob: an access key, an inline s3:* policy, no MFA. carol: MFA, a narrow inline policy. Two roles. */
function seedIam(m: RunningMoto): { key: string; deployer: string } {
  for (const u of ['alice', 'bob', 'carol']) m.aws(['iam', 'create-user', '--user-name', u]);
  m.aws(['iam', 'attach-user-policy', '--user-name', 'alice', '--policy-arn', 'arn:aws:iam::aws:policy/AdministratorAccess']);
  const key = (m.aws(['iam', 'create-access-key', '--user-name', 'bob']) as { AccessKey: { AccessKeyId: string } }).AccessKey.AccessKeyId;
  m.aws(['iam', 'put-user-policy', '--user-name', 'bob', '--policy-name', 's3-everything', '--policy-document', WILDCARD_S3]);
  m.aws(['iam', 'put-user-policy', '--user-name', 'carol', '--policy-name', 'read-one', '--policy-document', READ_ONLY]);
  const qr = join(tempDir('mfa-'), 'qr.png');
  const serial = (m.aws(['iam', 'create-virtual-mfa-device', '--virtual-mfa-device-name', 'carol-phone', '--outfile', qr, '--bootstrap-method', 'QRCodePNG']) as { VirtualMFADevice: { SerialNumber: string } })
    .VirtualMFADevice.SerialNumber;
  m.aws(['iam', 'enable-mfa-device', '--user-name', 'carol', '--serial-number', serial, '--authentication-code1', '123456', '--authentication-code2', '654321']);
  const deployer = (m.aws(['iam', 'create-role', '--role-name', 'deployer', '--assume-role-policy-document', TRUST]) as { Role: { Arn: string } }).Role.Arn;
  m.aws(['iam', 'put-role-policy', '--role-name', 'deployer', '--policy-name', 'ec2-all', '--policy-document', JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'ec2:*', Resource: '*' }] })]);
  m.aws(['iam', 'create-role', '--role-name', 'admin-role', '--assume-role-policy-document', TRUST]);
  m.aws(['iam', 'attach-role-policy', '--role-name', 'admin-role', '--policy-arn', 'arn:aws:iam::aws:policy/AdministratorAccess']);
  return { key, deployer };
}

const triples = (findings: { kind: string; principal: string; subject: string }[]) => findings.map((f) => `${f.kind} ${f.principal} ${f.subject}`);

motoTest('ask --iam -o json: administrator and wildcard policies (attached and inline, users and roles), users without MFA, a never-used key; exactly', async (m) => {
  const { key } = seedIam(m);
  const r = await runCli(['-o', 'json', 'ask', '--ai-profile', 'builtin', '--iam'], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.report.report, 'iam');
  assert.equal(triples(doc.report.findings), [
    'administrator_policy role/admin-role AdministratorAccess',
    'administrator_policy user/alice AdministratorAccess',
    'wildcard_policy role/deployer inline:ec2-all',
    'no_mfa user/alice MFA',
    'no_mfa user/bob MFA',
    `unused_access_key user/bob …${key.slice(-4)}`,
    'wildcard_policy user/bob inline:s3-everything',
  ]);
  assert.equal(doc.report.unread, []);
  const carol = doc.report.principals.find((p: { name: string }) => p.name === 'carol');
  assert.is(carol.mfa, true);
  assert.equal(carol.policies, [{ name: 'read-one', how: 'inline', verdict: 'ok', wildcards: [] }]);
  // The report shows a key by its last four characters only.
  assert.not.ok(r.stdout.includes(key));
  assert.match(doc.answer, /^IAM report \(all users, groups and roles\): 3 user\(s\), 0 group\(s\), 2 role\(s\) checked, 7 finding\(s\)\./);
});

motoTest('ask --iam --role-arn narrows the report to that role; a malformed ARN is exit 2 before anything is read', async (m) => {
  const { deployer } = seedIam(m);
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--iam', '--role-arn', deployer], { env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^IAM report \(role arn:aws:iam::\d{12}:role\/deployer\): 0 user\(s\), 0 group\(s\), 1 role\(s\) checked, 1 finding\(s\)\./);
  assert.match(r.stdout, /^medium\s+wildcard_policy\s+role\/deployer\s+inline:ec2-all\s+inline policy allows Action "ec2:\*"$/m);
  assert.not.match(r.stdout, /alice|admin-role|bob/);
  const bad = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--iam', '--role-arn', 'deployer'], { env: m.env });
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^error: usage: --role-arn "deployer" is not an IAM role ARN/m);
  assert.not.match(bad.stderr, /step 0 started/);
  const alone = await runCli(['ask', '--role-arn', deployer, 'who can deploy?'], { env: m.env });
  assert.is(alone.code, 2);
  assert.match(alone.stderr, /--role-arn narrows the IAM report/);
});

motoTest('with an AI provider the structured report goes into the prompt and the answer summarises it', async (m) => {
  m.aws(['iam', 'create-user', '--user-name', 'dave']);
  const cfg = configFile(`ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`);
  srv.reply({ text: 'dave has no MFA; fix that first.' });
  const r = await runCli(['--config', cfg, 'ask', '--iam'], { env: { ...m.env, TEST_AI_KEY: 'sk-reports-1' } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'dave has no MFA; fix that first.');
  const prompt = srv.chatRequests()[0]!.body.messages.at(-1).content as string;
  assert.match(prompt, /^iam-report: \{"report":"iam".*"kind":"no_mfa","principal":"user\/dave"/m);
  assert.match(prompt, /Question: Summarise this IAM security report/);
});

test.run();
