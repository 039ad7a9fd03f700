/** Emulator: catalogue routes, ssh keys, scripts, container/job deployments, secrets and registry credentials. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KINDS } from '../../../engine/providers/gpucloud/catalogue.js';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../../emulator/index.js';
import type { EmulatorTestClient } from '../../../emulator/test-client.js';
import type { TestClock } from '../../support/clock.js';
import { emulatorPerTest } from '../../support/emulator.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Rec = Record<string, unknown>;
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvR3Lfv9j5yYxkXhF2eJ0Rj8tqQ5qO8o5Hq3aY6n0Zp me@host';

let emu: Emulator;
let c: EmulatorTestClient;
let clock: TestClock;
// Time stands still unless a test steps it, so "initializing right after create" holds on any machine.
emulatorPerTest(test, { seed: 'empty', lifecycleMs: 150, rateLimit: false }, (w) => ({ emu, c, clock } = w));

test('every catalogue kind list path is served with the declared shape', async () => {
  for (const k of KINDS) {
    const r = await c.call('GET', k.path + (k.listQuery ? `?${k.listQuery}` : ''));
    assert.is(r.status, 200, `${k.kind} ${k.path}: ${r.text}`);
    assert.is(Array.isArray(r.json), k.shape === 'array', `${k.kind} shape`);
  }
});

test('instance types carry every reference field with prices as numeric strings', async () => {
  const types = (await c.call('GET', '/v1/instance-types')).json as Rec[];
  const names = types.map((t) => t.instance_type);
  for (const n of ['1V100.6V', '1A100.22V', '8A100.176V', '1H100.80S.22V', '8H100.80S.176V', '1RTX6000ADA.10V', 'CPU.4V.16G']) assert.ok(names.includes(n), n);
  for (const t of types) {
    for (const f of ['id', 'instance_type', 'model', 'name', 'display_name', 'description', 'manufacturer', 'cpu', 'gpu', 'gpu_memory', 'memory', 'storage', 'price_per_hour', 'spot_price', 'dynamic_price', 'max_dynamic_price', 'serverless_price', 'serverless_spot_price', 'currency', 'best_for', 'deploy_warning', 'p2p', 'supported_os'])
      assert.ok(f in t, `${String(t.instance_type)}.${f}`);
    assert.type(t.price_per_hour, 'string');
    assert.ok(Number(t.price_per_hour) > 0);
  }
  const one = (await c.call('GET', '/v1/instance-types/1A100.22V?currency=eur')).json as Rec;
  assert.equal([one.instance_type, one.currency], ['1A100.22V', 'eur']);
  assert.is((await c.call('GET', '/v1/instance-types/NOPE')).status, 404);
});

test('availability: per-location lists, spot spelling variants, and bare JSON booleans per type', async () => {
  const all = (await c.call('GET', '/v1/instance-availability')).json as { location_code: string; availabilities: string[] }[];
  assert.equal(all.map((a) => a.location_code), ['FIN-01', 'FIN-02', 'FIN-03', 'ICE-01']);
  const with8h100 = all.filter((a) => a.availabilities.includes('8H100.80S.176V')).map((a) => a.location_code);
  assert.equal(with8h100, ['FIN-03']);
  const fin1 = (await c.call('GET', '/v1/instance-availability?location_code=FIN-01')).json as unknown[];
  assert.is(fin1.length, 1);
  const spotA = (await c.call('GET', '/v1/instance-availability?is_spot=true')).json;
  const spotB = (await c.call('GET', '/v1/instance-availability?isSpot=true')).json;
  assert.equal(spotA, spotB);
  assert.not.equal(spotA, all);
  const yes = await c.call('GET', '/v1/instance-availability/8H100.80S.176V?location_code=FIN-03');
  assert.equal([yes.status, yes.text], [200, 'true']);
  assert.is((await c.call('GET', '/v1/instance-availability/8H100.80S.176V?location_code=FIN-01')).text, 'false');
  assert.is((await c.call('GET', '/v1/cluster-availability/16B200?location_code=FIN-03')).text, 'true');
  assert.equal(((await c.call('GET', '/v1/locations')).json as Rec[]).map((l) => l.code), ['FIN-01', 'FIN-02', 'FIN-03', 'ICE-01']);
});

test('images filter by instance_type and the cluster images include one labelled for Kubernetes', async () => {
  const all = (await c.call('GET', '/v1/images')).json as Rec[];
  const cpuOnly = (await c.call('GET', '/v1/images?instance_type=CPU.4V.16G')).json as Rec[];
  assert.ok(cpuOnly.length > 0 && cpuOnly.length < all.length);
  assert.ok(cpuOnly.every((i) => !String(i.image_type).includes('cuda')));
  const cluster = (await c.call('GET', '/v1/images/cluster')).json as Rec[];
  const k8s = cluster.filter((i) => i.category === 'kubernetes');
  assert.is(k8s.length, 1);
  assert.is(k8s[0].image_type, 'ubuntu-24.04-cuda-13.0-cluster-k8s');
  assert.ok(String(k8s[0].name).includes('Kubernetes'));
  assert.ok(cluster.every((i) => i.is_cluster === true));
});

test('ssh keys: POST answers 201 with a bare id, GET by id answers an array of one, both paths, both deletes', async () => {
  const r = await c.call('POST', '/v1/sshkeys', { name: 'laptop', key: KEY });
  assert.is(r.status, 201);
  assert.ok(r.headers.get('content-type')?.startsWith('text/plain'));
  const one = (await c.call('GET', `/v1/ssh-keys/${r.text}`)).json as Rec[];
  assert.is(one.length, 1);
  assert.equal([one[0].id, one[0].name, one[0].key], [r.text, 'laptop', KEY]);
  assert.match(String(one[0].fingerprint), /^SHA256:/);
  assert.is((await c.call('POST', '/v1/sshkeys', { name: 'bad', key: 'not a key' })).status, 400);
  const second = (await c.call('POST', '/v1/ssh-keys', { name: 'second', key: KEY })).text;
  assert.is((await c.call('DELETE', `/v1/sshkeys/${r.text}`)).status, 200);
  assert.is((await c.call('DELETE', '/v1/sshkeys', { keys: [second] })).status, 200);
  assert.equal(((await c.call('GET', '/v1/sshkeys')).json as Rec[]).map((k) => k.id), [EMULATOR_DEFAULT_SSH_KEY_ID]);
  assert.is((await c.call('GET', `/v1/sshkeys/${r.text}`)).status, 404);
});

test('scripts list is paginated with X-Page, X-Page-Size and X-Total-Count headers', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await c.call('POST', '/v1/scripts', { name: `s${i}`, script: `#!/bin/bash\necho ${i}\n` });
    assert.is(r.status, 200);
    ids.push(r.text);
  }
  const p1 = await c.call('GET', '/v1/scripts');
  assert.equal([p1.headers.get('x-page'), p1.headers.get('x-page-size'), p1.headers.get('x-total-count')], ['1', '10', '12']);
  assert.is((p1.json as unknown[]).length, 10);
  const p2 = await c.call('GET', '/v1/scripts?page=2&pageSize=10');
  assert.equal((p2.json as Rec[]).map((s) => s.id), ids.slice(10));
  assert.is((await c.call('GET', '/v1/scripts?pageSize=101')).status, 400);
  const one = (await c.call('GET', `/v1/scripts/${ids[0]}`)).json as Rec[];
  assert.equal([one.length, one[0].script], [1, '#!/bin/bash\necho 0\n']);
  assert.is((await c.call('DELETE', `/v1/scripts/${ids[0]}`)).status, 200);
  assert.is((await c.call('DELETE', '/v1/scripts', { scripts: ids.slice(1, 3) })).status, 200);
  assert.is((await c.call('GET', '/v1/scripts')).headers.get('x-total-count'), '9');
});

const deployment = (over: Rec = {}) => ({
  name: 'my-endpoint',
  is_spot: false,
  compute: { name: 'H100', size: 1 },
  scaling: { min_replica_count: 1, max_replica_count: 3 },
  containers: [{ image: 'ghcr.io/me/llm:v1.2', exposed_port: 8080, env: [{ type: 'plain', name: 'HF_HOME', value_or_reference_to_secret: '/data' }] }],
  ...over,
});

test('container deployment create validates name, compute, image tag, port and secret references', async () => {
  const cases: [Rec, RegExp][] = [
    [{ name: 'Bad_Name' }, /slug/],
    [{ name: 'x'.repeat(64) }, /slug/],
    [{ compute: { name: 'TPU', size: 1 } }, /Invalid compute resource/],
    [{ containers: [{ image: 'nginx', exposed_port: 80 }] }, /explicit tag/],
    [{ containers: [{ image: 'nginx:latest', exposed_port: 80 }] }, /latest/],
    [{ containers: [{ image: 'localhost:5000/app', exposed_port: 80 }] }, /explicit tag/],
    [{ containers: [{ image: 'nginx:1.25', exposed_port: 0 }] }, /exposed_port must not be less than 1/],
    [{ containers: [{ image: 'nginx:1.25', exposed_port: 80, env: [{ type: 'secret', name: 'T', value_or_reference_to_secret: 'missing' }] }] }, /Secret missing/],
    [{ containers: [] }, /containers should not be empty/],
  ];
  for (const [over, re] of cases) {
    const r = await c.call('POST', '/v1/container-deployments', deployment(over));
    assert.is(r.status, 400, `${JSON.stringify(over)} → ${r.text}`);
    assert.is((r.json as Rec).code, 'invalid_request');
    assert.match(String((r.json as Rec).message), re);
  }
  assert.is((await c.call('POST', '/v1/container-deployments', deployment())).status, 200);
  const dup = await c.call('POST', '/v1/container-deployments', deployment());
  assert.equal([dup.status, (dup.json as Rec).code], [400, 'invalid_request']);
});

test('container deployment echoes images as objects, goes initializing → healthy, pauses, scales and manages env vars', async () => {
  const r = await c.call('POST', '/v1/container-deployments', deployment());
  const d = r.json as Rec;
  assert.is(d.endpoint_base_url, 'https://containers.datacrunch.io/my-endpoint');
  assert.type(d.created_at, 'string');
  const [container] = d.containers as Rec[];
  assert.equal((container.image as Rec).image, 'ghcr.io/me/llm:v1.2');
  assert.type((container.image as Rec).last_updated_at, 'string');
  assert.is(container.name, 'main');
  const name = '/v1/container-deployments/my-endpoint';
  assert.equal((await c.call('GET', `${name}/status`)).json, { status: 'initializing' });
  clock.advance(200);
  assert.equal((await c.call('GET', `${name}/status`)).json, { status: 'healthy' });
  assert.is(((await c.call('GET', `${name}/replicas`)).json as { list: unknown[] }).list.length, 1);
  assert.is((await c.call('POST', `${name}/pause`)).status, 200);
  assert.equal((await c.call('GET', `${name}/status`)).json, { status: 'paused' });
  assert.equal((await c.call('GET', `${name}/replicas`)).json, { list: [] });
  assert.is((await c.call('POST', `${name}/restart`)).status, 403);
  assert.is((await c.call('POST', `${name}/resume`)).status, 200);
  assert.equal((await c.call('GET', `${name}/status`)).json, { status: 'initializing' });

  const sc = await c.call('PATCH', `${name}/scaling`, { max_replica_count: 5 });
  assert.equal([(sc.json as Rec).max_replica_count, (sc.json as Rec).min_replica_count], [5, 1]);
  assert.is((await c.call('PATCH', `${name}/scaling`, { min_replica_count: 9 })).status, 400);

  const added = await c.call('POST', `${name}/environment-variables`, { container_name: 'main', env: [{ type: 'plain', name: 'A', value_or_reference_to_secret: '1' }] });
  assert.equal((added.json as Rec[])[0].container_name, 'main');
  assert.equal(((added.json as { env: Rec[] }[])[0].env).map((e) => e.name), ['HF_HOME', 'A']);
  const patched = await c.call('PATCH', `${name}/environment-variables`, { container_name: 'main', env: [{ type: 'plain', name: 'A', value_or_reference_to_secret: '2' }] });
  assert.equal(((patched.json as { env: Rec[] }).env.find((e) => e.name === 'A') as Rec).value_or_reference_to_secret, '2');
  const removed = await c.call('DELETE', `${name}/environment-variables`, { container_name: 'main', env: ['A'] });
  assert.equal(((removed.json as { env: Rec[] }[])[0].env).map((e) => e.name), ['HF_HOME']);

  const list = (await c.call('GET', '/v1/container-deployments')).json as Rec[];
  assert.equal(list.map((x) => x.name), ['my-endpoint']);
  assert.is((await c.call('DELETE', `${name}?timeout=0`)).status, 200);
  assert.is((await c.call('GET', name)).status, 404);
});

test('job deployments require deadline_seconds > 0 and have no restart', async () => {
  const job = { name: 'nightly', compute: { name: 'A100', size: 1 }, containers: [{ image: 'ghcr.io/me/job:v1', exposed_port: 8080 }], scaling: { max_replica_count: 2, queue_message_ttl_seconds: 300, deadline_seconds: 0 } };
  const bad = await c.call('POST', '/v1/job-deployments', job);
  assert.equal(bad.json, { code: 'invalid_request', message: 'scaling.deadline_seconds must be greater than 0' });
  const ok = await c.call('POST', '/v1/job-deployments', { ...job, scaling: { ...job.scaling, deadline_seconds: 600 } });
  assert.is(ok.status, 200);
  assert.type((ok.json as Rec).created_by_user_id, 'string');
  assert.equal((await c.call('GET', '/v1/job-deployments/nightly/status')).json, { status: 'running' });
  assert.is((await c.call('POST', '/v1/job-deployments/nightly/restart')).status, 404);
  assert.is((await c.call('POST', '/v1/job-deployments/nightly/pause')).status, 200);
  assert.equal((await c.call('GET', '/v1/job-deployments/nightly/status')).json, { status: 'paused' });
  assert.is(((await c.call('GET', '/v1/job-deployments/nightly/scaling')).json as Rec).deadline_seconds, 600);
  const list = (await c.call('GET', '/v1/job-deployments')).json as Rec[];
  assert.equal(Object.keys(list[0]).sort(), ['compute', 'created_at', 'created_by_user_id', 'name']);
});

test('secrets never echo values and cannot be deleted while in use unless force=true', async () => {
  assert.is((await c.call('POST', '/v1/secrets', { name: 'hf-token', value: 's3cr3t-value' })).status, 201);
  assert.is((await c.call('POST', '/v1/secrets', { name: 'hf-token', value: 'again' })).status, 400);
  const list = await c.call('GET', '/v1/secrets');
  assert.ok(!list.text.includes('s3cr3t-value'));
  assert.equal(Object.keys((list.json as Rec[])[0]).sort(), ['created_at', 'name', 'secret_type']);
  assert.is((list.json as Rec[])[0].secret_type, 'generic');
  const dep = deployment({
    containers: [{ image: 'ghcr.io/me/llm:v1.2', exposed_port: 8080, env: [{ type: 'secret', name: 'HF_TOKEN', value_or_reference_to_secret: 'hf-token' }] }],
  });
  const created = await c.call('POST', '/v1/container-deployments', dep);
  assert.is(created.status, 200);
  assert.ok(!created.text.includes('s3cr3t-value'));
  assert.is((await c.call('DELETE', '/v1/secrets/hf-token')).status, 400);
  assert.is((await c.call('DELETE', '/v1/secrets/hf-token?force=true')).status, 200);
  assert.is((await c.call('DELETE', '/v1/secrets/hf-token')).status, 404);
});

test('file secrets and registry credentials validate type-specific fields and never echo secrets', async () => {
  const fs = await c.call('POST', '/v1/file-secrets', { name: 'cfg', files: [{ file_name: 'a.json', base64_content: Buffer.from('{"k":1}').toString('base64') }] });
  assert.is(fs.status, 201);
  assert.equal(((await c.call('GET', '/v1/file-secrets')).json as Rec[])[0].file_names, ['a.json']);
  assert.is((await c.call('POST', '/v1/file-secrets', { name: 'bad', files: [{ file_name: 'a', base64_content: '@@@' }] })).status, 400);

  const missing = await c.call('POST', '/v1/container-registry-credentials', { name: 'gh', type: 'ghcr', username: 'me' });
  assert.equal(missing.json, { code: 'invalid_request', message: 'access_token is required' });
  assert.is((await c.call('POST', '/v1/container-registry-credentials', { name: 'gh', type: 'quay' })).status, 400);
  assert.is((await c.call('POST', '/v1/container-registry-credentials', { name: 'gh', type: 'ghcr', username: 'me', access_token: 'ghp_secret' })).status, 201);
  assert.is((await c.call('POST', '/v1/container-registry-credentials', { name: 'ecr', type: 'aws-ecr', access_key_id: 'A', secret_access_key: 'S', region: 'eu-west-1', ecr_repo: 'r' })).status, 201);
  const list = await c.call('GET', '/v1/container-registry-credentials');
  assert.ok(!list.text.includes('ghp_secret'));
  assert.equal((list.json as Rec[]).map((r) => r.name), ['gh', 'ecr']);
  const priv = deployment({ container_registry_settings: { is_private: true, credentials: { name: 'nope' } } });
  assert.is((await c.call('POST', '/v1/container-deployments', priv)).status, 400);
  assert.is((await c.call('DELETE', '/v1/container-registry-credentials/gh')).status, 200);
});

test.run();
