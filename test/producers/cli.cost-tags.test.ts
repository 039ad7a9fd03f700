import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/**
 * `cost tags --key team`: prices hand-computed from the emulator's catalogue (see cli.cost.test.ts):
 * 1V100.6V 0.39/h, CPU.4V.16G 0.0279/h, 16H100 30.24/h; per GB and month NVMe 0.20, HDD 0.05,
 * NVMe_Shared 0.28 (/720 h). OS volumes: 100 GB with GPUs, 50 GB without.
 */
const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

async function createTagged(emu: Emulator): Promise<void> {
  const api = emulatorClient(emu);
  const instance = (hostname: string, type: string, description: string, tags?: unknown) => ({
    instance_type: type, image: type.startsWith('CPU') ? 'ubuntu-24.04' : 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description, location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], ...(tags ? { tags } : {}),
  });
  for (const [path, body] of [
    ['/v1/instances', instance('tag-a', '1V100.6V', 'training box team=vision env=prod')],
    // The API's own tags win over the description; keys match case-insensitively.
    ['/v1/instances', instance('tag-b', 'CPU.4V.16G', 'team=ignored', [{ key: 'Team', value: 'nlp' }])],
    ['/v1/volumes', { type: 'HDD', name: 'loose', size: 200, location_code: 'FIN-01' }],
    ['/v1/clusters', { cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'tag-cl', description: 'team=vision', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], shared_volume: { name: 'tag-sfs', size: 1000 } }],
  ] as const) {
    const r = await api.call('POST', path, body);
    assert.ok(r.status < 300, `${path}: ${r.status} ${r.text}`);
  }
  for (let i = 0; i < 1000; i++) {
    const inst = (await api.call('GET', '/v1/instances')).json as { hostname: string; status: string; os_volume_id: string | null }[];
    const cl = (await api.call('GET', '/v1/clusters')).json as { status: string }[];
    if (inst.every((x) => x.status === 'running' || x.status === 'offline') && inst.every((x) => x.os_volume_id) && cl.every((x) => x.status === 'running')) return;
  }
  assert.unreachable('the new resources never reached running');
}

test('cost tags groups the cost by a tag value: API tags, else key=value in the description; volumes follow their instance or cluster; untagged is its own group', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createTagged(emu);
    const r = await runCli(['cost', 'tags', '--key', 'team', '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.equal([t.provider, t.currency, t.key], ['gpucloud', 'usd', 'team']);
    const expected: Record<string, { names: string[]; hourly: number }> = {
      vision: { names: ['OS-tag-a', 'tag-a', 'tag-cl', 'tag-sfs (of cluster tag-cl)'], hourly: 0.39 + GB_HOUR(0.2, 100) + 30.24 + GB_HOUR(0.28, 1000) },
      nlp: { names: ['OS-tag-b', 'tag-b'], hourly: 0.0279 + GB_HOUR(0.2, 50) },
      null: {
        names: ['OS-demo-a100', 'OS-demo-cpu', 'demo-a100', 'demo-cpu', 'demo-data', 'loose'],
        hourly: 1.29 + 0.0279 + GB_HOUR(0.2, 100) + GB_HOUR(0.2, 50) + GB_HOUR(0.2, 500) + GB_HOUR(0.05, 200),
      },
    };
    // Most expensive first, untagged last.
    assert.equal(t.groups.map((g: { value: string | null }) => g.value), ['vision', 'nlp', null]);
    for (const g of t.groups) {
      const e = expected[String(g.value)]!;
      assert.equal(g.resources.map((x: { name: string }) => x.name).sort(), e.names, String(g.value));
      close(g.hourly_cost, e.hourly, `${g.value} hourly`);
      close(g.monthly_forecast, e.hourly * 720, `${g.value} monthly`);
    }
    const from = Object.fromEntries(t.groups.flatMap((g: { resources: { name: string; tag_from?: string }[] }) => g.resources.map((x) => [x.name, x.tag_from])));
    assert.equal([from['tag-a'], from['OS-tag-a'], from['tag-b'], from['tag-cl'], from['tag-sfs (of cluster tag-cl)'], from['loose']], ['description', 'instance', 'api', 'description', 'cluster', undefined]);
    close(t.hourly_cost, Object.values(expected).reduce((s, e) => s + e.hourly, 0), 'total');
    const env2 = await runCli(['cost', 'tags', '--key', 'ENV'], { env: { ...env, COLUMNS: '200' } });
    assert.is(env2.code, 0, env2.stderr);
    assert.match(env2.stdout, /^ENV\s+RESOURCES\s+PER HOUR\s+PER 30 DAYS/m);
    assert.match(env2.stdout, new RegExp(`^prod\\s+2\\s+${(0.39 + GB_HOUR(0.2, 100)).toFixed(4)}\\s+${((0.39 + GB_HOUR(0.2, 100)) * 720).toFixed(2)}\\s+`, 'm'));
    assert.match(env2.stdout, /^\(untagged\)\s+\d+\s+/m);
    assert.match(env2.stdout, /Based on: tags from the API's `tags` field, else `key=value` words/);
  });
});

test('cost tags without --key, or with a key holding a blank or "=", is invalid input and sends nothing', async () => {
  await withEmulator(async ({ emu, env }) => {
    for (const [args, message] of [
      [[], /cost tags needs --key <tag>/],
      [['--key'], /option "--key <tag>" value is missing/],
      [['--key', 'a=b'], /--key must be a tag key of 1 to 63 characters/],
      [['--key=a b'], /--key must be a tag key/],
    ] as const) {
      const r = await runCli(['cost', 'tags', ...args], { env });
      assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.is(emu.requests().length, 0, 'nothing sent');
  });
});

test('the emulator keeps create-time instance tags and refuses more than 10', async () => {
  await withEmulator(async ({ emu }) => {
    const api = emulatorClient(emu);
    const body = (tags: unknown) => ({ instance_type: 'CPU.4V.16G', image: 'ubuntu-24.04', hostname: 'tagged', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], tags });
    const made = await api.call('POST', '/v1/instances', body([{ key: 'env', value: 'prod' }, { key: 'solo' }]));
    assert.is(made.status, 202, made.text);
    const got = (await api.call('GET', `/v1/instances/${made.text}`)).json as { tags: { key: string; value: string }[] };
    assert.equal(got.tags.map((t) => [t.key, t.value]), [['env', 'prod'], ['solo', '']]);
    const many = await api.call('POST', '/v1/instances', body(Array.from({ length: 11 }, (_, i) => ({ key: `k${i}`, value: 'v' }))));
    assert.is(many.status, 400);
  });
});

test.run();
