/**
 * `assistant migrate config`: a config written for the original tool (its example's shape: `infra.aws`,
 * `infra.gcp`, `github:`, `aws.service_keywords`, plus `verda:` and `vercel.team_id`) renamed to this
 * build's names, driven as a person does: the CLI with a temp HOME.
 */
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const ORIGINAL = `# written for the original tool
verda:
  client_id: abc   # from the console
  client_secret: s3cret-value-1234
infra:
  default_provider: aws
  default_environment: dev
  aws:
    environments:
      dev:
        profile: your-aws-profile
        region: us-east-1
  gcp:
    project_id: your-gcp-project-id
github:
  token: ghp_example
  owner: your-org
vercel:
  team_id: team_1   # the team
sentry:
  org_slug: acme
notion:
  integration_token: secret_n
aws:
  service_keywords:
    api: [api, gateway]
`;

function homeWith(text: string, mode = 0o600): string {
  const home = tempHome('assistant-migrate-');
  writeFileSync(join(home, '.assistant.yaml'), text, { mode });
  return home;
}

test('migrate config without --write lists every rename and changes nothing', async () => {
  const home = homeWith(ORIGINAL);
  const r = await runCli(['migrate', 'config'], { home });
  assert.is(r.code, 0, r.stderr);
  for (const line of ['verda → gpucloud', 'infra.aws → infra.cloud_a', 'infra.gcp → infra.cloud_b', 'infra.default_provider: aws → infra.default_provider: cloud_a', 'github → repohost', 'vercel → appplatform', 'appplatform.team_id → appplatform.workspace_id', 'sentry → errtracker', 'notion → notes', 'aws → cloud_a']) {
    assert.ok(r.stdout.includes(line), `missing "${line}" in\n${r.stdout}`);
  }
  assert.match(r.stdout, /dry run: nothing written/);
  assert.is(readFileSync(join(home, '.assistant.yaml'), 'utf8'), ORIGINAL);
  assert.not.ok(existsSync(join(home, '.assistant.yaml.bak')));
});

test('migrate config --write renames, keeps comments and a 0600 backup of the original, and the result loads cleanly', async () => {
  const home = homeWith(ORIGINAL, 0o644);
  const r = await runCli(['migrate', 'config', '--write', '-o', 'json'], { home });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { written: boolean; backup: string; renames: { from: string; to: string }[] };
  assert.ok(report.written);
  assert.is(report.backup, join(home, '.assistant.yaml.bak'));
  const file = join(home, '.assistant.yaml');
  assert.is(readFileSync(report.backup, 'utf8'), ORIGINAL);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(statSync(report.backup).mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^# written for the original tool/);
  assert.match(text, /client_id: abc +# from the console/);
  assert.match(text, /workspace_id: team_1 +# the team/);
  const data = parseYaml(text) as Record<string, any>;
  assert.equal(Object.keys(data), ['gpucloud', 'infra', 'repohost', 'appplatform', 'errtracker', 'notes', 'cloud_a']);
  assert.is(data.infra.default_provider, 'cloud_a');
  assert.equal(data.infra.cloud_a.environments.dev, { profile: 'your-aws-profile', region: 'us-east-1' });
  assert.equal(data.infra.cloud_b, { project_id: 'your-gcp-project-id' });
  // The renamed file is read as written: no warnings, the values under their new names.
  const show = await runCli(['config', 'show', '-o', 'json'], { home });
  assert.is(show.code, 0, show.stderr);
  assert.is(show.stderr, '');
  const shown = JSON.parse(show.stdout) as { config: Record<string, any> };
  assert.is(shown.config.gpucloud.client_id, 'abc');
  assert.is(shown.config.appplatform.workspace_id, 'team_1');
  assert.not.ok(show.stdout.includes('s3cret-value-1234'), 'the secret stays masked');
});

test('migrate config is idempotent: a second --write finds nothing and writes no second backup', async () => {
  const home = homeWith(ORIGINAL);
  assert.is((await runCli(['migrate', 'config', '--write'], { home })).code, 0);
  const once = readFileSync(join(home, '.assistant.yaml'), 'utf8');
  const again = await runCli(['migrate', 'config', '--write'], { home });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /nothing to migrate/);
  assert.is(readFileSync(join(home, '.assistant.yaml'), 'utf8'), once);
  assert.not.ok(existsSync(join(home, '.assistant.yaml.bak.1')));
});

test('an earlier backup is never overwritten', async () => {
  const home = homeWith(ORIGINAL);
  writeFileSync(join(home, '.assistant.yaml.bak'), 'precious: 1\n');
  assert.is((await runCli(['migrate', 'config', '--write'], { home })).code, 0);
  assert.is(readFileSync(join(home, '.assistant.yaml.bak'), 'utf8'), 'precious: 1\n');
  assert.is(readFileSync(join(home, '.assistant.yaml.bak.1'), 'utf8'), ORIGINAL);
});

test('a section under both names is refused (exit 2) and nothing is written', async () => {
  const text = 'verda:\n  client_id: old\ngpucloud:\n  client_id: new\ngithub:\n  owner: o\n';
  const home = homeWith(text);
  const r = await runCli(['migrate', 'config', '--write'], { home });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /error: config_conflict: .*verda \(line 1\) and gpucloud \(line 3\) are both present/);
  assert.match(r.stderr, /hint: .*merge/);
  assert.is(r.stdout, '');
  assert.is(readFileSync(join(home, '.assistant.yaml'), 'utf8'), text);
  assert.not.ok(existsSync(join(home, '.assistant.yaml.bak')));
});

test('--write through a symlinked config rewrites the file it points at and keeps the link', async () => {
  const home = tempHome('assistant-migrate-');
  const real = join(home, 'dotfiles.yaml');
  writeFileSync(real, ORIGINAL, { mode: 0o600 });
  symlinkSync(real, join(home, '.assistant.yaml'));
  assert.is((await runCli(['migrate', 'config', '--write'], { home })).code, 0);
  assert.ok(statSync(join(home, '.assistant.yaml')).isFile());
  assert.match(readFileSync(real, 'utf8'), /^gpucloud:/m);
});

test("the loader names the migration once for sections under the original tool's names", async () => {
  const home = homeWith('verda:\n  client_id: abc\ngithub:\n  owner: o\ninfra:\n  gcp:\n    project_id: p\n');
  const r = await runCli(['config', 'show', '-o', 'json'], { home });
  assert.is(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.includes('migrate config'));
  assert.is(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /verda is gpucloud here, github is repohost here, infra\.gcp is infra\.cloud_b here/);
  assert.not.match(r.stderr, /did you mean/);
  const shown = JSON.parse(r.stdout) as { config: Record<string, unknown> };
  assert.is(shown.config.gpucloud, undefined, 'not read until renamed');
});

test('migrate config on a missing file says so (exit 2)', async () => {
  const r = await runCli(['migrate', 'config'], { home: tempHome('assistant-migrate-') });
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: config_not_found: /);
});

test.run();
