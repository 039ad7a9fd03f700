import { allProviders } from '../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { createGpuCloudClient } from '../../engine/providers/gpucloud/client.js';
import { runChecked } from '../support/run.js';
import { validatePlan } from '../../engine/core/plan/validate.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const createCluster = {
  args: ['gpucloud-api', 'POST', '/v1/clusters', JSON.stringify({ cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'c1', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], shared_volume: { name: 'c1-shared', size: 30000 } })],
  reason: 'create',
  produces: { CLUSTER_ID: '$.id' },
};

async function apply(emu: Emulator, waitArgs: string[]) {
  const client = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, retry: { delaysMs: [10] } });
  const plan = { version: 1, provider: 'gpucloud', commands: [createCluster, { args: waitArgs, reason: 'wait' }] };
  return runChecked(plan, { destroyer: false, predefined: {}, keepResults: true, providers: PROVIDERS, context: { client: async () => client, signal: new AbortController().signal } });
}

test('wait polls until the cluster is running and returns the record', async () => {
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 100 });
  try {
    const out = await apply(emu, ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running', '10', '0.05']);
    assert.is(out.report.status, 'succeeded');
    assert.is((out.results[1] as { status: string }).status, 'running');
  } finally {
    await emu.close();
  }
});

test('wait gives up with wait_timeout when the state is not reached in time', async () => {
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 60_000 });
  try {
    // The cluster needs a minute per lifecycle step; the wait allows half a second. wait_timeout (and
    // not success) proves it gave up at its own limit.
    const out = await apply(emu, ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running', '0.5', '0.1']);
    assert.is(out.report.status, 'failed');
    assert.is(out.report.error?.code, 'wait_timeout');
  } finally {
    await emu.close();
  }
});

test('wait fails fast when the resource disappears', async () => {
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 60_000 });
  try {
    emu.addFault({ method: 'GET', path: '/v1/clusters/*', status: 404, times: -1 });
    const out = await apply(emu, ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running', '30', '0.1']);
    assert.is(out.report.status, 'failed');
    assert.is(out.report.error?.code, 'wait_failed');
  } finally {
    await emu.close();
  }
});

test('wait arguments are validated before anything runs', () => {
  const plan = (args: string[]) => ({ version: 1, provider: 'gpucloud', commands: [{ args, reason: 'w' }] });
  assert.not.ok(validatePlan(plan(['gpucloud-wait', 'locations', 'x', 'running']), { providers: PROVIDERS, destroyer: false }).ok);
  assert.not.ok(validatePlan(plan(['gpucloud-wait', 'clusters', 'x', 'running', '-1']), { providers: PROVIDERS, destroyer: false }).ok);
  assert.ok(validatePlan(plan(['gpucloud-wait', 'instances', 'x', 'running']), { providers: PROVIDERS, destroyer: false }).ok);
});

test.run();
