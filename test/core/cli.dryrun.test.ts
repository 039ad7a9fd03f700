import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

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

const post = (path: string, body: Record<string, unknown>, reason: string) => ({ args: ['gpucloud-api', 'POST', path, JSON.stringify(body)], reason });
const instanceBody = (extra: Record<string, unknown>) => ({ image: 'ubuntu-24.04-cuda-12.8-open-docker', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], ...extra });

test('dry run prices what is really created: spot at the spot price, OS and nested volumes, the cluster and its shared volume', async () => {
  await withEmulator(async ({ env }) => {
    const plan = {
      version: 1,
      provider: 'gpucloud',
      commands: [
        post('/v1/instances', instanceBody({ instance_type: '1A100.22V', hostname: 'spot-1', is_spot: true, volumes: [{ name: 'data', size: 500, type: 'NVMe' }] }), 'spot with a data volume'),
        post('/v1/instances', instanceBody({ instance_type: 'CPU.4V.16G', hostname: 'cpu-1', contract: 'SPOT', os_volume: { name: 'os', size: 80 } }), 'spot by contract, sized OS volume'),
        post('/v1/instances', instanceBody({ instance_type: 'CPU.4V.16G', hostname: 'cpu-2' }), 'on demand, default OS volume'),
        post('/v1/clusters', { cluster_type: '16H100', image: 'ubuntu-24.04-cuda-12.8-cluster', hostname: 'c-1', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] }, 'cluster'),
        post('/v1/instances', instanceBody({ instance_type: '1V100.6V', hostname: 'reboot', image: '11111111-2222-4333-8444-555555555555' }), 'boots from an existing OS volume'),
      ],
    };
    const r = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env, input: JSON.stringify(plan) });
    assert.is(r.code, 0, r.stderr);
    const costs = JSON.parse(r.stdout).costs as { step: number; kind: string; type: string; part?: string; size_gb?: number; per_hour: number; spot?: boolean }[];
    const line = (step: number, part?: string) => costs.find((c) => c.step === step && c.part === part)!;
    const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
    // Emulator fixtures: 1A100.22V spot 0.60, CPU.4V.16G 0.0279 (spot 0.0112), 16H100 30.24 per hour;
    // NVMe 0.20 and NVMe_Shared 0.28 per GB per month (720 hours).
    near(line(0).per_hour, 0.6, 'spot instance at the spot price');
    assert.is(line(0).spot, true);
    near(line(0, 'OS volume').per_hour, (100 * 0.2) / 720, 'GPU type: 100 GB OS volume');
    near(line(0, 'volume "data"').per_hour, (500 * 0.2) / 720, 'nested data volume');
    near(line(1).per_hour, 0.0112, 'contract SPOT');
    near(line(1, 'OS volume').per_hour, (80 * 0.2) / 720, 'os_volume.size');
    near(line(2).per_hour, 0.0279, 'on demand');
    near(line(2, 'OS volume').per_hour, (50 * 0.2) / 720, 'CPU type: 50 GB OS volume');
    near(line(3).per_hour, 30.24, 'cluster price');
    near(line(3, 'shared volume').per_hour, (30000 * 0.28) / 720, 'default 30000 GB shared volume');
    assert.is(line(3, 'shared volume').type, 'NVMe_Shared');
    assert.is(line(4, 'OS volume'), undefined, 'booting from an existing volume creates no OS volume');
    const total = JSON.parse(r.stdout).total_per_hour;
    near(total, costs.reduce((s, c) => s + c.per_hour, 0), 'total');
  });
});

test.run();
