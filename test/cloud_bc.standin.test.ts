/**
 * cloud_b (`gcloud`) and cloud_c (`az`) plans: no emulator exists here, so a stand-in executable on
 * PATH records each call's argv and answers canned JSON. Applied through `assistant ask --apply` (a CLI
 * child): the project/subscription and JSON output the providers add, produces, a plan spanning both,
 * the gate (every destructive form refused, nothing run), --destroyer, the dry run and the CLI failures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rulesMarkdown, type CliRuleSet } from '../engine/cli/rules.js';
import { GCLOUD_RULE_SET } from '../engine/cloud_b/destroyer.js';
import { gcloudVerb } from '../engine/cloud_b/provider.js';
import { AZ_RULE_SET } from '../engine/cloud_c/destroyer.js';
import { azVerb } from '../engine/cloud_c/provider.js';
import { spawn } from 'node:child_process';
import { BIN, childEnv, runCli, tempHome } from './support/cli.js';
import { planFile } from './support/moto.js';
import { standIn } from './support/standin.js';
import { tempDir } from './support/temp.js';

function config(): string {
  const file = join(tempDir('cloud-bc-cfg-'), 'config.yaml');
  writeFileSync(file, 'infra:\n  cloud_b:\n    project_id: my-proj\n  cloud_c:\n    subscription_id: sub-123\n', { mode: 0o600 });
  return file;
}

/** Destructive forms per rule row (every destroy row of both tables has at least one). */
const GCLOUD_DESTRUCTIVE: Record<string, string[][]> = {
  '** delete|delete-*|remove-*|detach-*|cancel|abandon-instances|recreate-instances': [
    ['compute', 'instances', 'delete', 'vm-1', '--zone', 'europe-west1-b'],
    ['--project', 'other', 'compute', 'instances', 'delete', 'vm-1'],
    ['compute', '--verbosity=error', 'instances', 'delete', 'vm-1'],
    ['compute', 'instance-groups', 'managed', 'delete-instances', 'g', '--instances', 'vm-1'],
    ['projects', 'remove-iam-policy-binding', 'p', '--member', 'user:a@b.c', '--role', 'roles/owner'],
    ['compute', 'instances', 'detach-disk', 'vm-1', '--disk', 'd'],
    ['builds', 'cancel', 'b-1'],
    ['compute', 'instance-groups', 'managed', 'abandon-instances', 'g', '--instances', 'vm-1'],
    ['compute', 'instance-groups', 'managed', 'recreate-instances', 'g', '--instances', 'vm-1'],
  ],
  '** rm|rb': [
    ['storage', 'rm', '--recursive', 'gs://b/dir'],
    ['storage', 'rb', 'gs://b'],
  ],
  'storage rsync': [['storage', 'rsync', 'dir', 'gs://b', '--delete-unmatched-destination-objects']],
  '** resize': [
    ['compute', 'instance-groups', 'managed', 'resize', 'g', '--size', '0'],
    ['container', 'clusters', 'resize', 'c', '--num-nodes=0'],
  ],
  'services disable': [['services', 'disable', 'compute.googleapis.com']],
  '** set-iam-policy': [['projects', 'set-iam-policy', 'p', 'policy.json']],
  'compute ssh': [['compute', 'ssh', 'vm-1', '--command', 'rm -rf /data']],
};

const AZ_DESTRUCTIVE: Record<string, string[][]> = {
  '** delete|delete-*|purge|remove|remove-*|revoke|revoke-*': [
    ['vm', 'delete', '--name', 'vm-1', '-g', 'rg', '--yes'],
    ['--subscription', 'other', 'group', 'delete', '--name', 'rg'],
    ['storage', 'blob', 'delete-batch', '--source', 'c'],
    ['keyvault', 'purge', '--name', 'kv'],
    ['role', 'assignment', 'remove', '--ids', 'x'],
    ['network', 'nsg', 'rule', 'remove-something', '-n', 'r'],
    ['disk', 'revoke-access', '--name', 'd', '-g', 'rg'],
  ],
  '** deallocate|reimage': [
    ['vm', 'deallocate', '--name', 'vm-1', '-g', 'rg'],
    ['vmss', 'reimage', '--name', 's', '-g', 'rg'],
  ],
  'storage blob sync': [
    ['storage', 'blob', 'sync', '--container', 'c', '--source', 'dir'],
    ['storage', 'blob', 'sync', '--container', 'c', '--source', 'dir', '--delete-destination', 'true'],
  ],
  '** scale': [
    ['vmss', 'scale', '--name', 's', '-g', 'rg', '--new-capacity', '0'],
    ['aks', 'nodepool', 'scale', '--cluster-name', 'k', '--name', 'np', '--node-count=0'],
  ],
  'deployment * create': [['deployment', 'group', 'create', '-g', 'rg', '--template-file', 't.json', '--mode', 'Complete']],
  'vm|vmss run-command': [['vm', 'run-command', 'invoke', '-g', 'rg', '-n', 'vm-1', '--command-id', 'RunShellScript', '--scripts', 'rm -rf /']],
};

function checkTable(set: CliRuleSet, samples: Record<string, string[][]>, classify: (args: string[]) => { effect: string }) {
  assert.equal(Object.keys(samples).sort(), set.rules.filter((r) => r.effect === 'destroy').map((r) => r.command).sort());
  for (const args of Object.values(samples).flat()) assert.is(classify([set.tool, ...args]).effect, 'destroy', args.join(' '));
}

test('every destroy row of the gcloud and az tables has samples, each classified destroy from the parsed argv', () => {
  checkTable(GCLOUD_RULE_SET, GCLOUD_DESTRUCTIVE, (a) => gcloudVerb.classify(a));
  checkTable(AZ_RULE_SET, AZ_DESTRUCTIVE, (a) => azVerb.classify(a));
});

test('gcloud and az: reads, creates with their names, updates, and what cannot be decided', () => {
  const g = (...a: string[]) => gcloudVerb.classify(['gcloud', ...a]);
  const z = (...a: string[]) => azVerb.classify(['az', ...a]);
  assert.is(g('compute', 'instances', 'list').effect, 'read');
  assert.is(g('compute', 'instances', 'describe', 'vm-1', '--zone', 'z').effect, 'read');
  assert.is(g('compute', 'instances', 'stop', 'vm-1').effect, 'update');
  assert.is(g('compute', 'instances', 'stop', '<VM>').effect, 'update', 'a positional after the verb may be bound later');
  assert.is(g('compute', 'instance-groups', 'managed', 'resize', 'g', '--size', '3').effect, 'update');
  assert.is(g('storage', 'rsync', 'dir', 'gs://b').effect, 'update');
  assert.equal(g('compute', 'instances', 'create', 'vm-1', '--zone', 'z'), { effect: 'create', kind: 'instances', name: 'vm-1', nameAt: 'the NAME argument', reasons: [] });
  assert.is(g('compute', '<KIND>', 'delete', 'x').effect, 'destroy');
  assert.is(g('compute', 'instances', '<VERB>', 'x').effect, 'destroy');
  assert.is(g('--unknown', 'compute', 'instances', 'list').effect, 'destroy');
  assert.is(z('vm', 'list').effect, 'read');
  assert.is(z('vm', 'show', '-n', 'x', '-g', 'rg').effect, 'read');
  assert.is(z('vm', 'stop', '-n', 'x', '-g', 'rg').effect, 'update');
  assert.is(z('storage', 'blob', 'sync', '--container', 'c', '--source', 'dir', '--delete-destination', 'false').effect, 'update');
  assert.is(z('vmss', 'scale', '--name', 's', '--new-capacity', '2').effect, 'update');
  assert.is(z('deployment', 'group', 'create', '-g', 'rg', '--template-file', 't.json').effect, 'create', 'incremental mode only adds');
  assert.equal(z('group', 'create', '--name', 'rg1', '--location', 'westeurope'), { effect: 'create', kind: 'group', name: 'rg1', nameAt: '--name', reasons: [] });
  assert.match(gcloudVerb.checkArgs(['gcloud', 'compute', 'instances', 'list', '--format', 'table']).map((p) => p.message).join(), /gcloud steps always print JSON/);
  assert.equal(gcloudVerb.checkArgs(['gcloud', 'compute', 'instances', 'list', '--format=json(name,zone)']), []);
  assert.match(azVerb.checkArgs(['az', 'vm', 'list', '-o', 'table']).map((p) => p.message).join(), /az steps always print JSON/);
  assert.match(azVerb.checkArgs(['az', 'vm', 'list', '--debug']).map((p) => p.message).join(), /--debug is not allowed/);
  assert.match(gcloudVerb.checkArgs(['gcloud', 'compute', 'instances', 'list', '--log-http']).map((p) => p.message).join(), /--log-http is not allowed/);
  assert.match(gcloudVerb.checkArgs(['gcloud', '--verbosity=debug', 'compute', 'instances', 'list']).map((p) => p.message).join(), /--verbosity debug is not allowed/);
  assert.equal(gcloudVerb.checkArgs(['gcloud', '--verbosity=error', 'compute', 'instances', 'list']), []);
});

test("the README's destroyer tables for gcloud and az steps are the rules tables", () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  for (const [name, set] of [
    ['cloud_b', GCLOUD_RULE_SET],
    ['cloud_c', AZ_RULE_SET],
  ] as const) {
    const m = new RegExp(`<!-- ${name} rules: generated by rulesMarkdown\\(\\w+\\) -->\\n([\\s\\S]*?)\\n<!-- /${name} rules -->`).exec(readme);
    assert.ok(m, `README has the generated ${name} rules table`);
    assert.fixture(m![1]!, rulesMarkdown(set));
  }
});

test('a gcloud and az plan applies through the stand-ins: project, subscription and JSON output added, produces read the JSON', async () => {
  const gcloud = standIn('gcloud', [
    { match: 'compute instances create', stdout: [{ name: 'vm-1', status: 'RUNNING', id: '123' }] },
    { match: 'compute instances list', stdout: [{ name: 'vm-1', zone: 'europe-west1-b' }] },
  ]);
  const az = standIn('az', [{ match: 'group create', stdout: { id: '/subscriptions/sub-123/resourceGroups/rg1', name: 'rg1' } }], { dir: gcloud.dir });
  const file = planFile(
    [
      { args: ['gcloud', 'compute', 'instances', 'create', 'vm-1', '--zone', 'europe-west1-b'], reason: 'a VM', produces: { VM: '$[0].name' } },
      { args: ['gcloud', '--project', 'explicit', 'compute', 'instances', 'list'], reason: 'the step names its own project' },
      { args: ['az', 'group', 'create', '--name', 'rg1', '--location', 'westeurope'], reason: 'a group', produces: { GROUP_ID: '$.id' } },
      { args: ['az', 'vm', 'list', '-g', 'rg1', '-o', 'json'], reason: 'VMs of <VM>' },
    ],
    ['cloud_b', 'cloud_c'],
  );
  const r = await runCli(['--config', config(), 'ask', '--apply', '-o', 'json', '--plan-file', file], { env: { PATH: gcloud.path } });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.bindings, { VM: 'vm-1', GROUP_ID: '/subscriptions/sub-123/resourceGroups/rg1' });
  assert.equal(gcloud.calls(), [
    ['compute', 'instances', 'create', 'vm-1', '--zone', 'europe-west1-b', '--format=json', '--project', 'my-proj'],
    ['--project', 'explicit', 'compute', 'instances', 'list', '--format=json'],
  ]);
  assert.equal(az.calls(), [
    ['group', 'create', '--name', 'rg1', '--location', 'westeurope', '--output', 'json', '--subscription', 'sub-123'],
    ['vm', 'list', '-g', 'rg1', '-o', 'json', '--subscription', 'sub-123'],
  ]);
});

test('every destructive gcloud and az form is refused with exit 3 and the stand-ins are never called; --destroyer runs them', async () => {
  const gcloud = standIn('gcloud');
  const az = standIn('az', [], { dir: gcloud.dir });
  const forms = [...Object.values(GCLOUD_DESTRUCTIVE).flat().map((a) => ['gcloud', ...a]), ...Object.values(AZ_DESTRUCTIVE).flat().map((a) => ['az', ...a])];
  const file = planFile(
    [{ args: ['gcloud', 'compute', 'instances', 'list'], reason: 'would show if anything ran' }, ...forms.map((args) => ({ args, reason: 'destructive' }))],
    ['cloud_b', 'cloud_c'],
  );
  const r = await runCli(['--config', config(), 'ask', '--apply', '--plan-file', file], { env: { PATH: gcloud.path } });
  assert.is(r.code, 3, r.stderr);
  forms.forEach((args, i) => assert.match(r.stderr, new RegExp(`command ${i + 1} \\(args\\): destructive: `), args.join(' ')));
  assert.equal([gcloud.calls(), az.calls()], [[], []]);

  const one = planFile([{ args: ['gcloud', 'compute', 'instances', 'delete', 'vm-1', '--zone', 'z'], reason: 'gone' }], 'cloud_b');
  const allowed = await runCli(['--config', config(), 'ask', '--apply', '--destroyer', '--plan-file', one], { env: { PATH: gcloud.path } });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.equal(gcloud.calls(), [['compute', 'instances', 'delete', 'vm-1', '--zone', 'z', '--format=json', '--project', 'my-proj']]);
});

test('the dry run of a gcloud/az plan shows the command lines and runs nothing', async () => {
  const gcloud = standIn('gcloud');
  const az = standIn('az', [], { dir: gcloud.dir });
  const file = planFile(
    [
      { args: ['gcloud', 'compute', 'instances', 'create', 'vm-9'], reason: 'a VM' },
      { args: ['az', 'vm', 'deallocate', '--name', 'vm-1', '-g', 'rg'], reason: 'park it' },
    ],
    ['cloud_b', 'cloud_c'],
  );
  const r = await runCli(['--config', config(), 'ask', '--apply', '--dry-run', '--plan-file', file], { env: { PATH: gcloud.path } });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stdout, /gcloud compute instances create vm-9/);
  assert.match(r.stdout, /az vm deallocate --name vm-1 -g rg/);
  assert.match(r.stderr, /applying it needs --destroyer/);
  assert.equal([gcloud.calls(), az.calls()], [[], []]);
});

test('gcloud not logged in is cli_not_authenticated with the fix; az missing is cli_not_found (exit 1)', async () => {
  const gcloud = standIn('gcloud', [{ match: 'list', stderr: 'ERROR: (gcloud.compute.instances.list) You do not currently have an active account selected.', exit: 1 }]);
  const g = planFile([{ args: ['gcloud', 'compute', 'instances', 'list'], reason: 'see' }], 'cloud_b');
  const r = await runCli(['ask', '--apply', '--plan-file', g], { env: { PATH: gcloud.path } });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /error: cli_not_authenticated: the gcloud CLI is not logged in.*active account/);
  assert.match(r.stderr, /hint: log in with `gcloud auth login`/);
  const a = planFile([{ args: ['az', 'vm', 'list'], reason: 'see' }], 'cloud_c');
  const missing = await runCli(['ask', '--apply', '--plan-file', a], { env: { PATH: gcloud.dir } });
  assert.is(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /error: cli_not_found: the az CLI is not installed/);
  assert.match(missing.stderr, /hint: install the Azure CLI/);
});

test('Ctrl-C while a CLI step runs kills the CLI process and the run ends interrupted (exit 130, --resume offered)', async () => {
  const aws = standIn('aws', [{ match: 'describe-instances', stdout: { Reservations: [] }, sleepMs: 600_000 }]);
  const file = planFile([{ args: ['aws', 'ec2', 'describe-instances'], reason: 'slow' }]);
  const home = tempHome();
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', '--plan-file', file], { env: childEnv(home, { PATH: aws.path }), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  for (let i = 0; !aws.pids().length; i++) {
    if (i > 2400) throw new Error('the aws stand-in never started');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGINT');
  assert.is(await exited, 130, stderr);
  assert.match(stderr, /--resume/);
  const [pid] = aws.pids();
  assert.throws(() => process.kill(pid!, 0), /ESRCH/, 'the CLI process was killed');
});

test.run();
