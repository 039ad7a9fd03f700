import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../emulator/index.js';
import { runCli, withEmulator } from './support/cli.js';

const createPlan = (type: string, location: string) => ({
  version: 1,
  provider: 'gpucloud',
  commands: [
    {
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: type, image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'dry-1', description: '', location_code: location, ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
      reason: 'create',
      produces: { INSTANCE_ID: '$.id' },
    },
    { args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"delete","id":"<INSTANCE_ID>"}'], reason: 'and delete it' },
  ],
});

test('dry run sends only GET requests and prices what the plan creates per hour and per 30 days', async () => {
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['ask', '--apply', '--dry-run', '--destroyer', '-o', 'json'], { env, input: JSON.stringify(createPlan('1V100.6V', 'FIN-01')) });
    assert.is(r.code, 0, r.stderr);
    const preview = JSON.parse(r.stdout);
    assert.is(preview.costs[0].type, '1V100.6V');
    assert.is(preview.costs[0].per_hour, 0.39);
    assert.is(Math.round(preview.costs[0].per_30_days * 100), Math.round(0.39 * 720 * 100));
    assert.is(preview.costs[0].available, true);
    assert.ok(preview.steps[1].destructive.length > 0, 'the delete step is marked destructive');
    const apiCalls = emu.requests().filter((q) => q.path !== '/v1/oauth2/token');
    assert.ok(apiCalls.length > 0);
    assert.ok(apiCalls.every((q) => q.method === 'GET'), apiCalls.map((q) => `${q.method} ${q.path}`).join(', '));
  });
});

test('dry run of a plan with destructive steps without --destroyer shows it and exits 3', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['ask', '--apply', '--dry-run'], { env, input: JSON.stringify(createPlan('1V100.6V', 'FIN-01')) });
    assert.is(r.code, 3);
    assert.match(r.stdout, /DESTRUCTIVE/);
    assert.match(r.stderr, /needs --destroyer/);
  });
});

test('dry run warns when the type is unavailable in the location and when the balance covers under 24 hours', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.setBalance(100);
    const r = await runCli(['ask', '--apply', '--dry-run', '--destroyer'], { env, input: JSON.stringify(createPlan('8H100.80S.176V', 'FIN-01')) });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /NOT AVAILABLE now/);
    assert.match(r.stderr, /warning: step 0: 8H100\.80S\.176V is not available in FIN-01/);
    assert.match(r.stderr, /warning: the balance \(100\.00 USD\) covers only [0-9.]+ hours/);
  });
});

test.run();
