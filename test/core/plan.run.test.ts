/** runPlan against an in-process emulator with the real gpucloud client over HTTP. */
import { allProviders } from '../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, startEmulator, type Emulator } from '../../emulator/index.js';
import { SafetyRefusal } from '../../engine/core/errors.js';
import { createGpuCloudClient } from '../../engine/providers/gpucloud/client.js';
import { createInstanceStep } from '../support/plans.js';
import { runChecked, type CheckedRunOptions as RunOptions } from '../support/run.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

type Rec = Record<string, unknown>;
type Cmd = { args: string[]; reason: string; produces?: Record<string, string> };
const step = (method: string, path: string, body?: unknown, produces?: Record<string, string>): Cmd => ({
  args: ['gpucloud-api', method, path, ...(body !== undefined ? [typeof body === 'string' ? body : JSON.stringify(body)] : [])],
  reason: `${method} ${path}`,
  ...(produces ? { produces } : {}),
});
const plan = (...commands: Cmd[]) => ({ version: 1, provider: 'gpucloud', commands });
const PREDEFINED = { DEFAULT_SSH_KEY_ID: EMULATOR_DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION: 'FIN-01' };

async function withEmu(fn: (emu: Emulator, opts: (o?: Partial<RunOptions>) => RunOptions) => Promise<void>): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  const client = createGpuCloudClient({
    baseUrl: emu.url,
    credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
    retry: { delaysMs: [5, 5, 5] },
  });
  const signal = new AbortController().signal;
  const opts = (o: Partial<RunOptions> = {}): RunOptions => ({
    destroyer: false,
    predefined: { ...PREDEFINED },
    keepResults: true,
    providers: PROVIDERS, context: { client: async () => client, signal },
    ...o,
  });
  try {
    await fn(emu, opts);
  } finally {
    await emu.close();
  }
}

test('create instance (bare-text ID) produces INSTANCE_ID and a later GET /v1/instances/<INSTANCE_ID> succeeds', () =>
  withEmu(async (emu, opts) => {
    const create = createInstanceStep('e2e-run-1', { description: 'plan run test', location: '<DEFAULT_LOCATION>', produces: true });
    const outcome = await runChecked(plan(create, step('GET', '/v1/instances/<INSTANCE_ID>')), opts());
    assert.is(outcome.report.status, 'succeeded', JSON.stringify(outcome.report));
    const id = outcome.report.bindings.INSTANCE_ID;
    assert.match(String(id), /^[0-9a-f-]{36}$/);
    assert.type(outcome.results[0], 'string', 'the create answered bare text');
    assert.is(outcome.results[0], id);
    assert.is((outcome.results[1] as Rec).id, id);
    assert.is((outcome.results[1] as Rec).hostname, 'e2e-run-1');
    assert.equal(outcome.report.steps.map((s) => s.status), ['succeeded', 'succeeded']);
    assert.equal(outcome.report.steps[0]!.produced, { INSTANCE_ID: id });
    assert.ok(emu.requests().some((r) => r.method === 'GET' && r.path === `/v1/instances/${id}`));
  }));

test('create cluster ({"id"} JSON) binds CLUSTER_ID', () =>
  withEmu(async (emu, opts) => {
    const body = {
      cluster_type: '16H100',
      image: 'ubuntu-24.04-cuda-13.0-cluster-k8s',
      hostname: 'e2e-k8s',
      description: 'kube',
      location_code: '<DEFAULT_LOCATION>',
      ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'],
    };
    const outcome = await runChecked(plan(step('POST', '/v1/clusters', body, { CLUSTER_ID: '$.id' }), step('GET', '/v1/clusters/<CLUSTER_ID>')), opts());
    assert.is(outcome.report.status, 'succeeded', JSON.stringify(outcome.report));
    const id = outcome.report.bindings.CLUSTER_ID;
    assert.equal(outcome.results[0], { id });
    assert.is((outcome.results[1] as Rec).id, id);
    assert.is(emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/clusters').length, 1);
  }));

test('a destructive plan without the destroyer throws SafetyRefusal (exit 3) and sends nothing', () =>
  withEmu(async (emu, opts) => {
    const p = plan(step('GET', '/v1/instances'), step('PUT', '/v1/instances', { action: 'delete', id: EMULATOR_DEMO_IDS.runningInstance }));
    try {
      await runChecked(p, opts());
      assert.unreachable('should refuse');
    } catch (err) {
      assert.instance(err, SafetyRefusal);
      assert.is((err as SafetyRefusal).exitCode, 3);
      assert.is((err as SafetyRefusal).code, 'refused');
      assert.match((err as Error).message, /command 1/);
    }
    assert.is(emu.requests().length, 0, 'not even a token request');
    // with the destroyer it runs
    const ok = await runChecked(p, opts({ destroyer: true }));
    assert.is(ok.report.status, 'succeeded', JSON.stringify(ok.report));
  }));

test('an invalid plan throws exit 2 (invalid_plan) and sends nothing', () =>
  withEmu(async (emu, opts) => {
    for (const bad of [
      plan(step('GET', '/v1/instances/<NOPE>')),
      { ...plan(step('GET', '/v1/instances')), version: 2 },
      plan(step('FETCH', '/v1/instances')),
      plan(step('GET', 'https://evil.example/v1/instances')),
      // invalid AND destructive: invalid wins (exit 2)
      plan(step('GET', '/v1/x/<NOPE>'), step('DELETE', '/v1/volumes/x')),
    ]) {
      try {
        await runChecked(bad, opts());
        assert.unreachable('should reject ' + JSON.stringify(bad));
      } catch (err) {
        assert.is((err as { exitCode?: number }).exitCode, 2, String(err));
        assert.is((err as { code?: string }).code, 'invalid_plan');
      }
    }
    assert.is(emu.requests().length, 0);
  }));

test('a failing step 2 of 3: report failed; step 0 succeeded, step 1 failed with its code, step 2 not_run', () =>
  withEmu(async (emu, opts) => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const outcome = await runChecked(
      plan(step('GET', '/v1/instances', undefined, { FIRST: '$[0].id' }), step('GET', `/v1/instances/${missing}`), step('GET', '/v1/volumes')),
      opts(),
    );
    const r = outcome.report;
    assert.is(r.status, 'failed');
    assert.equal(r.steps.map((s) => s.status), ['succeeded', 'failed', 'not_run']);
    assert.is(r.steps[0]!.http_status, 200);
    const failed = r.steps[1] as { error?: { code: string }; http_status?: number };
    assert.is(failed.error?.code, 'not_found');
    assert.is(failed.http_status, 404);
    assert.is(r.error?.code, 'not_found');
    assert.is(r.error?.step, 1);
    assert.is((outcome.error as { exitCode?: number }).exitCode, 1);
    assert.is(outcome.results.length, 1);
    assert.not.ok(emu.requests().some((q) => q.path === '/v1/volumes'), 'step 2 was never sent');
  }));

// BUG (engine/core/plan/validate.ts + machines/run/run-plan.ts): the destroyer rule is applied to the
// UNSUBSTITUTED request, so a placeholder in an action value (or in the path) hides a delete.
test('a placeholder that resolves to "delete" in an action body is still refused without the destroyer', () =>
  withEmu(async (emu, opts) => {
    const p = plan(step('PUT', '/v1/instances', { action: '<ACTION>', id: EMULATOR_DEMO_IDS.offlineInstance }));
    let refused = false;
    try {
      const outcome = await runChecked(p, opts({ predefined: { ...PREDEFINED, ACTION: 'delete' } }));
      refused = outcome.report.status !== 'succeeded' && (outcome.error as { exitCode?: number })?.exitCode === 3;
    } catch (err) {
      refused = err instanceof SafetyRefusal;
    }
    const deleted = emu.requests().some((r) => r.method === 'PUT');
    assert.ok(refused, 'the plan must be refused (exit 3)');
    assert.not.ok(deleted, 'no PUT may reach the API');
  }));

test.run();
