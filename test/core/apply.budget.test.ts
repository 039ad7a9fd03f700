/**
 * The budget counts everything that bills (issue 22 §4): instances still provisioning, volume resizes
 * and clones at their new size, container deployments at the most replicas they may scale to, and a
 * create nothing can price is refused under a budget unless --allow-unpriced. `deploy --apply` goes
 * through the same guard. Prices: emulator seed (NVMe 0.20 per GB and month, 1V100.6V 0.39/h, H100
 * container 2.41/h per GPU).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, type Emulator } from '../../emulator/index.js';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { makeRepo, NODE_DOCKER } from '../support/git-repos.js';
import { standIn } from '../support/standin.js';

const GB_HOUR = (gb: number) => (0.2 * gb) / 720;
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const plan = (...commands: unknown[]) => JSON.stringify({ version: 1, provider: 'gpucloud', commands });
const call = (method: string, path: string, body?: Record<string, unknown>) => ({ args: ['gpucloud-api', method, path, ...(body ? [JSON.stringify(body)] : [])], reason: `${method} ${path}` });
const instance = (hostname: string) =>
  call('POST', '/v1/instances', { instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] });
const changes = (emu: Emulator) => emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2'));

async function figures(env: Record<string, string>, input: string) {
  const r = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1000', '-o', 'json'], { env, input });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { budget: { current_per_hour: number; added_per_hour: number; unpriced: string[] }; costs: { per_hour?: number; part?: string; size_gb?: number }[] };
}

test('an instance still provisioning counts in the burn the budget guard starts from', async () => {
  // lifecycleMs long: the new instance stays ordered/provisioning for the whole test.
  await withEmulator(
    async ({ env }) => {
      const probe = plan(instance('probe'));
      const before = (await figures(env, probe)).budget.current_per_hour;
      const made = await runCli(['ask', '--apply'], { env, input: plan(instance('provisioning-1')) });
      assert.is(made.code, 0, made.stderr);
      const after = (await figures(env, probe)).budget.current_per_hour;
      close(after - before, 0.39 + GB_HOUR(100), 'the provisioning instance and its OS volume');
    },
    { lifecycleMs: 600_000 },
  );
});

test('a volume resize adds the GB it grows by, a clone a whole new volume, both before anything is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const resize = await figures(env, plan(call('PUT', '/v1/volumes', { id: EMULATOR_DEMO_IDS.volume, action: 'resize', size: 800 })));
    close(resize.budget.added_per_hour, GB_HOUR(300), 'resize 500 → 800 GB');
    assert.match(resize.costs[0]!.part ?? '', /resize of volume .* to 800 GB \(\+300 GB\)/);
    const clone = await figures(env, plan(call('PUT', '/v1/volumes', { id: EMULATOR_DEMO_IDS.volume, action: 'clone', name: 'copy' })));
    close(clone.budget.added_per_hour, GB_HOUR(500), 'a clone of the 500 GB volume');
    const r = await runCli(['ask', '--apply', '--max-hourly-cost', '1.5'], { env, input: plan(call('PUT', '/v1/volumes', { id: EMULATOR_DEMO_IDS.volume, action: 'resize', size: 5000 })) });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error: budget_exceeded: /m);
    assert.equal(changes(emu), [], 'the resize was not sent');
  });
});

test('a container deployment is priced at its most replicas; an unpriced create is refused under a budget unless --allow-unpriced', async () => {
  await withEmulator(async ({ emu, env }) => {
    const container = call('POST', '/v1/container-deployments', {
      name: 'web',
      is_spot: false,
      compute: { name: 'H100', size: 2 },
      scaling: { min_replica_count: 0, max_replica_count: 3 },
      containers: [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }],
    });
    close((await figures(env, plan(container))).budget.added_per_hour, 2.41 * 2 * 3, 'H100 × 2 × 3 replicas');
    // A cloud_b create in a region its price table has no prices for cannot be priced (issue 35: cloud_b
    // prices its creates now, and says what it burns: a stand-in gcloud lists no VMs).
    const gcloud = standIn('gcloud', [{ match: 'compute instances list', stdout: [] }]);
    const withGcloud = { ...env, PATH: gcloud.path };
    const unpriced = JSON.stringify({
      version: 1,
      provider: ['gpucloud', 'cloud_b'],
      commands: [{ args: ['gcloud', 'compute', 'instances', 'create', 'vm-1', '--zone', 'europe-west4-a'], reason: 'a VM of another cloud' }],
    });
    const dry = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1000', '-o', 'json'], { env: withGcloud, input: unpriced });
    assert.is(dry.code, 3, 'a dry run says the apply would be refused');
    assert.ok((JSON.parse(dry.stdout).budget.unpriced as string[]).some((u) => /^step 0: .*n1-standard-1.*the price table has no prices for region europe-west4/.test(u)), dry.stdout);
    const refused = await runCli(['ask', '--apply', '--max-hourly-cost', '100'], { env: withGcloud, input: unpriced });
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /^error: budget_unpriced: cannot check the plan against the budget .* no price is known for step 0: .*n1-standard-1.*the price table has no prices for region europe-west4/m);
    assert.ok(gcloud.calls().every((c) => c.join(' ').startsWith('compute instances list')), 'only the burn was read: nothing was created');
    assert.match(refused.stderr, /^hint: .*--allow-unpriced/m);
    assert.equal(changes(emu), []);
  });
});

test('deploy --apply goes through the budget guard: over budget.max_hourly it is refused with nothing sent', async () => {
  const repo = makeRepo('budget-web', NODE_DOCKER);
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const config = join(home, 'c.yaml');
    writeFileSync(config, `budget:\n  max_hourly: 0.5\ngpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`, { mode: 0o600 });
    const r = await runCli(['--config', config, 'deploy', repo.dir, '--target', 'container', '--image', 'ghcr.io/me/web:1.4', '--apply'], { env, home });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error: budget_exceeded: /m);
    assert.equal(changes(emu), [], 'no deployment, no secret, nothing');
  });
});

test.run();
