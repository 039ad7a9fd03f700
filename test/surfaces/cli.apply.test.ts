import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';
import { RunReportSchema } from '../../schemas/run-report.js';
import { tempDir } from '../support/temp.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const examplesDir = fileURLToPath(new URL('../../../examples/plans/', import.meta.url));
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json'));
const defaults = { GPUCLOUD_PROJECT_ID: 'p1' };

test('every example plan validates (with --destroyer and the predefined bindings of the sandbox)', async () => {
  assert.ok(examples.length >= 2);
  for (const file of examples) {
    const r = await runCli(['--sandbox', 'plan', 'validate', '--destroyer', join(examplesDir, file)]);
    assert.is(r.code, 0, `${file}: ${r.stderr}`);
    assert.match(r.stdout, /plan is valid/);
  }
});

test('every example plan applies against the emulator', async () => {
  for (const file of examples) {
    await withEmulator(async ({ env }) => {
      const config = `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`;
      const dir = tempDir('assistant-cfg-');
      writeFileSync(join(dir, 'c.yaml'), config, { mode: 0o600 });
      const r = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--apply', '--destroyer', '-o', 'json', '--plan-file', join(examplesDir, file)], { env: { ...env, ...defaults } });
      assert.is(r.code, 0, `${file}: ${r.stderr}`);
      assert.is(JSON.parse(r.stdout).status, 'succeeded');
    });
  }
});

test('a destructive plan without --destroyer is refused with exit 3 and nothing is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const plan = readFileSync(join(examplesDir, 'teardown-instance.json'), 'utf8');
    const r = await runCli(['ask', '--apply'], { env, input: plan });
    assert.is(r.code, 3);
    assert.match(r.stderr, /error: refused: .*destructive/);
    assert.match(r.stderr, /command 0 \(args\): destructive: \/v1\/instances action "delete"/);
    assert.is(emu.requests().length, 0, 'no request at all, not even a token');
  });
});

test('a plan with an unbound placeholder is exit 2 and nothing is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances/<NOPE>'], reason: 'x' }] };
    const r = await runCli(['ask', '--apply'], { env, input: JSON.stringify(plan) });
    assert.is(r.code, 2);
    assert.match(r.stderr, /<NOPE> is not produced by an earlier command/);
    assert.is(emu.requests().length, 0);
  });
});

test('malformed plan JSON on stdin is exit 2 naming stdin', async () => {
  const r = await runCli(['ask', '--apply'], { input: '{"version": 1,' });
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: invalid_plan: stdin is not valid JSON/);
});

test('bindings flow from a bare-text create ID into a later path, and the report names them', async () => {
  await withEmulator(async ({ emu, env }) => {
    const plan = gpucloudPlan(
      createInstanceStep('bind-1', { description: 'say "hi" \\ there', sshKey: EMULATOR_DEFAULT_SSH_KEY_ID, produces: true }),
      { args: ['gpucloud-api', 'GET', '/v1/instances/<INSTANCE_ID>'], reason: 'read back', produces: { HOST: '$.hostname' } },
    );
    const r = await runCli(['ask', '--apply', '-o', 'json'], { env, input: JSON.stringify(plan) });
    assert.is(r.code, 0, r.stderr);
    const report = RunReportSchema.parse(JSON.parse(r.stdout));
    assert.is(report.bindings.HOST, 'bind-1');
    assert.is(report.steps[0]!.http_status, 202);
    assert.is(report.steps[0]!.produced?.INSTANCE_ID, report.bindings.INSTANCE_ID);
    assert.match(report.bindings.INSTANCE_ID, /^[0-9a-f-]{36}$/);
    const gets = emu.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/v1/instances/'));
    assert.is(gets[0]?.path, `/v1/instances/${report.bindings.INSTANCE_ID}`);
  });
});

test('a failing step stops the run: exit 1, earlier steps reported done, later ones not run', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.addFault({ method: 'GET', path: '/v1/volumes', status: 404, times: 1 });
    const plan = {
      version: 1,
      provider: 'gpucloud',
      commands: [
        { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'one' },
        { args: ['gpucloud-api', 'GET', '/v1/volumes'], reason: 'two' },
        { args: ['gpucloud-api', 'GET', '/v1/locations'], reason: 'three' },
      ],
    };
    const r = await runCli(['ask', '--apply'], { env, input: JSON.stringify(plan) });
    assert.is(r.code, 1);
    assert.match(r.stdout, /failed: 1\/3 step\(s\) completed/);
    assert.match(r.stdout, /FAIL 1: GET \/v1\/volumes/);
    assert.match(r.stdout, /--   2: GET \/v1\/locations/);
    assert.match(r.stderr, /error: not_found:/);
    assert.not.ok(emu.requests().some((q) => q.path === '/v1/locations'));
  });
});

test('plan validate reports every problem with its command index and field: exit 2 invalid, 3 destructive only', async () => {
  const invalid = {
    version: 1,
    provider: 'gpucloud',
    commands: [
      { args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'ok', produce: { X: '$.id' } },
      { args: ['gpucloud-api', 'FETCH', '/v1/instances/<MISSING>'], reason: 'two problems' },
    ],
  };
  const r2 = await runCli(['plan', 'validate'], { input: JSON.stringify(invalid) });
  assert.is(r2.code, 2);
  assert.match(r2.stderr, /command 0: unknown key "produce"/);
  assert.match(r2.stderr, /command 1 \(args\[1\]\): unknown HTTP method "FETCH"/);
  assert.match(r2.stderr, /command 1 \(args\[2\]\): <MISSING> is not produced by an earlier command/);

  const r3 = await runCli(['plan', 'validate', join(examplesDir, 'teardown-instance.json')]);
  assert.is(r3.code, 3);
  assert.match(r3.stderr, /command 0 \(args\): destructive/);
  const json = await runCli(['plan', 'validate', '-o', 'json', join(examplesDir, 'teardown-instance.json')]);
  assert.is(JSON.parse(json.stdout).destructive_steps[0].index, 0);
});

test.run();
