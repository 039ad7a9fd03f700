/** Emulator: instances, volumes, clusters, balance and state persistence. */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, startEmulator, type Emulator } from '../../../emulator/index.js';
import { emulatorClient, type EmulatorTestClient } from '../../../emulator/test-client.js';
import type { TestClock } from '../../support/clock.js';
import { tempDir } from '../../support/temp.js';
import { emulatorPerTest } from '../../support/emulator.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LIFECYCLE = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Rec = Record<string, unknown>;
let emu: Emulator;
let c: EmulatorTestClient;
let clock: TestClock;
// Time stands still in these tests except where waitFor steps it: a state asserted right after a
// create is the state at creation, however long the machine took between the two requests.
emulatorPerTest(test, { seed: 'empty', lifecycleMs: LIFECYCLE }, (w) => ({ emu, c, clock } = w));

const cpu = (over: Rec = {}) => ({
  instance_type: 'CPU.4V.16G',
  image: 'ubuntu-24.04',
  hostname: 'box-1',
  description: 'test box',
  location_code: 'FIN-01',
  ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID],
  ...over,
});

async function createInstance(over: Rec = {}): Promise<string> {
  const r = await c.call('POST', '/v1/instances', cpu(over));
  assert.is(r.status, 202, r.text);
  return r.text;
}

/** Polls `path`, stepping the emulator's clock 15 ms per poll, until `pred` holds (at most `ms` of emulator time). */
async function waitFor(path: string, pred: (rec: Rec) => boolean, ms = 2000): Promise<Rec> {
  for (let stepped = 0; ; stepped += 15) {
    const r = await c.call('GET', path);
    if (r.status === 200 && pred(r.json as Rec)) return r.json as Rec;
    if (stepped > ms) throw new Error(`not reached after ${ms} ms of emulator time on ${path}: ${r.text}`);
    clock.advance(15);
  }
}

const act = (body: Rec) => c.call('PUT', '/v1/instances', body);

test('instance create answers 202 with the bare-text UUID and the lifecycle goes ordered → provisioning → running', async () => {
  const r = await c.call('POST', '/v1/instances', cpu());
  assert.is(r.status, 202);
  assert.ok(r.headers.get('content-type')?.startsWith('text/plain'));
  assert.match(r.text, UUID);
  const first = (await c.call('GET', `/v1/instances/${r.text}`)).json as Rec;
  assert.ok(first.status === 'ordered' || first.status === 'provisioning', String(first.status));
  assert.is(first.ip, null);
  assert.is(first.os_volume_id, null);
  const running = await waitFor(`/v1/instances/${r.text}`, (i) => i.status === 'running');
  assert.match(String(running.ip), /^(203\.0\.113|198\.51\.100)\.\d+$/);
  assert.match(String(running.os_volume_id), UUID);
  for (const k of ['id', 'instance_type', 'image', 'os_name', 'price_per_hour', 'hostname', 'description', 'ip', 'status', 'created_at', 'ssh_key_ids', 'startup_script_id', 'os_volume_id', 'volume_ids', 'cpu', 'gpu', 'memory', 'gpu_memory', 'storage', 'location', 'is_spot', 'contract', 'pricing', 'jupyter_token'])
    assert.ok(k in running, `field ${k}`);
  assert.type(running.price_per_hour, 'number');
  assert.is(running.location, 'FIN-01');
  assert.equal(running.ssh_key_ids, [EMULATOR_DEFAULT_SSH_KEY_ID]);
  const list = (await c.call('GET', '/v1/instances?status=running')).json as Rec[];
  assert.equal(list.map((i) => i.id), [r.text]);
  assert.equal((await c.call('GET', '/v1/instances?status=offline')).json, []);
});

test('instance create validation: required fields, type, location, image, ssh keys', async () => {
  const cases: [Rec, string][] = [
    [{ location_code: undefined }, 'location_code is required'],
    [{ instance_type: undefined }, 'instance_type is required'],
    [{ image: undefined }, 'image is required'],
    [{ hostname: undefined }, 'hostname is required'],
    [{ description: undefined }, 'description is required'],
    [{ instance_type: 'NOPE.1V' }, 'Invalid instance type: NOPE.1V'],
    [{ location_code: 'MARS-01' }, 'Invalid location code: MARS-01'],
    [{ image: 'ubuntu-24.04-cuda-12.8-open-docker' }, 'Operating system is not valid for this instance type'],
    [{ image: 'windows-11' }, 'Operating system is not valid for this instance type'],
    [{ ssh_key_ids: ['00000000-0000-4000-8000-000000000000'] }, 'Invalid ssh key id: 00000000-0000-4000-8000-000000000000'],
  ];
  for (const [over, message] of cases) {
    const r = await c.call('POST', '/v1/instances', cpu(over));
    assert.is(r.status, 400, message);
    assert.equal(r.json, { code: 'invalid_request', message });
  }
  assert.is((await c.call('POST', '/v1/instances', cpu({ description: '' }))).status, 202, "description may be ''");
  assert.is((await c.call('POST', '/v1/instances', cpu({ ssh_key_ids: EMULATOR_DEFAULT_SSH_KEY_ID }))).status, 202, 'ssh_key_ids may be a string');
});

test('503 service_unavailable when the type is not available in the location (8H100.80S.176V only in FIN-03)', async () => {
  const body = cpu({ instance_type: '8H100.80S.176V', image: 'ubuntu-24.04-cuda-12.8-open-docker', location_code: 'FIN-01' });
  const r = await c.call('POST', '/v1/instances', body);
  assert.is(r.status, 503);
  assert.is((r.json as Rec).code, 'service_unavailable');
  assert.is((await c.call('POST', '/v1/instances', { ...body, location_code: 'FIN-03' })).status, 202);
});

test('402 insufficient_funds when the balance is below one hour of the type price', async () => {
  emu.setBalance(5);
  const body = cpu({ instance_type: '8A100.176V', image: 'ubuntu-24.04-cuda-12.8-open-docker' });
  const r = await c.call('POST', '/v1/instances', body);
  assert.is(r.status, 402);
  assert.is((r.json as Rec).code, 'insufficient_funds');
  assert.is((await c.call('POST', '/v1/instances', cpu())).status, 202, 'a cheap type still fits');
});

test('actions in the wrong state answer 403 forbidden_action; valid ones 202 with an empty body', async () => {
  const id = await createInstance();
  const early = await act({ action: 'delete', id });
  assert.equal([early.status, early.json], [403, { code: 'forbidden_action', message: "Can't discontinue a provisioning instance" }]);
  await waitFor(`/v1/instances/${id}`, (i) => i.status === 'running');
  const start = await act({ action: 'start', id });
  assert.equal([start.status, start.json], [403, { code: 'forbidden_action', message: "Can't start an instance in status running" }]);
  const shut = await act({ action: 'shutdown', id });
  assert.equal([shut.status, shut.text], [202, '']);
  const again = await act({ action: 'shutdown', id });
  assert.equal(again.json, { code: 'forbidden_action', message: "Can't shutdown an instance in status offline" });
  assert.is((await act({ action: 'hibernate', id })).status, 202);
  assert.is(((await c.call('GET', `/v1/instances/${id}`)).json as Rec).status, 'hibernating');
  assert.is((await act({ action: 'restore', id })).status, 202);
  assert.is(((await c.call('GET', `/v1/instances/${id}`)).json as Rec).status, 'running');
  const unknown = await act({ action: 'start', id: '00000000-0000-4000-8000-000000000000' });
  assert.equal([unknown.status, unknown.json], [404, { code: 'not_found', message: 'Invalid instance id' }]);
  assert.is((await act({ action: 'explode', id })).status, 400);
});

test('delete removes the instance (GET → 404), trashes its OS volume and detaches its data volumes', async () => {
  const id = await createInstance({ volumes: [{ name: 'data', size: 100, type: 'NVMe' }] });
  const inst = await waitFor(`/v1/instances/${id}`, (i) => i.status === 'running');
  const [dataId] = inst.volume_ids as string[];
  assert.is(((await c.call('GET', `/v1/volumes/${dataId}`)).json as Rec).status, 'attached');
  assert.is((await act({ action: 'delete', id })).status, 202);
  const gone = await c.call('GET', `/v1/instances/${id}`);
  assert.equal([gone.status, gone.json], [404, { code: 'not_found', message: 'Invalid instance id' }]);
  assert.equal((await c.call('GET', '/v1/instances')).json, []);
  const data = (await c.call('GET', `/v1/volumes/${dataId}`)).json as Rec;
  assert.equal([data.status, data.instance_id], ['detached', null]);
  const trash = (await c.call('GET', '/v1/volumes/trash')).json as Rec[];
  assert.equal(trash.map((v) => v.id), [inst.os_volume_id]);
  assert.type(trash[0].deleted_at, 'string');
});

test('action on an array of ids answers 207 with per-instance results when some fail, 202 when all succeed', async () => {
  const a = await createInstance({ hostname: 'a' });
  const b = await createInstance({ hostname: 'b' });
  await waitFor(`/v1/instances/${b}`, (i) => i.status === 'running');
  assert.is((await act({ action: 'shutdown', id: [a] })).status, 202);
  const r = await act({ action: 'shutdown', id: [a, b] });
  assert.is(r.status, 207);
  assert.equal(r.json, [
    { action: 'shutdown', instanceId: a, status: 'error', error: "Can't shutdown an instance in status offline", statusCode: 403 },
    { action: 'shutdown', instanceId: b, status: 'success', statusCode: 202 },
  ]);
  const all = await act({ action: 'start', id: [a, b] });
  assert.equal([all.status, all.text], [202, '']);
});

test('volumes: validation, attach needs an offline instance, resize only grows, clone returns ids, trash and restore', async () => {
  const bad = await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'small', size: 10, location_code: 'FIN-01' });
  assert.equal([bad.status, (bad.json as Rec).code], [400, 'invalid_request']);
  const noLoc = await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'v', size: 50 });
  assert.equal(noLoc.json, { code: 'invalid_request', message: 'location_code is required' });
  assert.is((await c.call('POST', '/v1/volumes', { type: 'Floppy', name: 'v', size: 50, location_code: 'FIN-01' })).status, 400);
  assert.is((await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'x'.repeat(61), size: 50, location_code: 'FIN-01' })).status, 400);

  const created = await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'data', size: 100, location_code: 'FIN-01' });
  assert.is(created.status, 202);
  assert.match(created.text, UUID);
  const vid = created.text;
  assert.is(((await c.call('GET', `/v1/volumes/${vid}`)).json as Rec).status, 'ordered');
  await waitFor(`/v1/volumes/${vid}`, (v) => v.status === 'detached');

  const inst = await createInstance();
  await waitFor(`/v1/instances/${inst}`, (i) => i.status === 'running');
  const attachRunning = await c.call('PUT', '/v1/volumes', { action: 'attach', id: vid, instance_id: inst });
  assert.equal([attachRunning.status, (attachRunning.json as Rec).code], [403, 'forbidden_action']);
  const atCreate = await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'd2', size: 50, location_code: 'FIN-01', instance_id: inst });
  assert.is(atCreate.status, 403, 'attach at creation also needs the instance offline');
  await act({ action: 'shutdown', id: inst });
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'attach', id: vid, instance_id: inst })).status, 202);
  const attached = (await c.call('GET', `/v1/volumes/${vid}`)).json as Rec;
  assert.equal([attached.status, attached.instance_id], ['attached', inst]);
  assert.ok(((await c.call('GET', `/v1/instances/${inst}`)).json as Rec).volume_ids instanceof Array);

  assert.is((await c.call('PUT', '/v1/volumes', { action: 'resize', id: vid, size: 50 })).status, 400);
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'resize', id: vid, size: 200 })).status, 202);
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'rename', id: vid, name: 'renamed' })).status, 202);
  const clone = await c.call('PUT', '/v1/volumes', { action: 'clone', id: vid, name: 'copy' });
  assert.is(clone.status, 202);
  const [cloneId] = clone.json as string[];
  assert.match(cloneId, UUID);
  const cv = (await c.call('GET', `/v1/volumes/${cloneId}`)).json as Rec;
  assert.equal([cv.name, cv.size], ['copy', 200]);

  assert.is((await c.call('DELETE', `/v1/volumes/${vid}`, { is_permanent: false })).status, 403, 'attached volumes cannot be deleted');
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'detach', id: vid })).status, 202);
  assert.is((await c.call('DELETE', `/v1/volumes/${vid}`, { is_permanent: false })).status, 202);
  assert.is((await c.call('GET', `/v1/volumes/${vid}`)).status, 404);
  const trash = (await c.call('GET', '/v1/volumes/trash')).json as Rec[];
  assert.ok(trash.some((v) => v.id === vid && v.status === 'deleted'));
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'restore', id: vid })).status, 202);
  assert.is(((await c.call('GET', `/v1/volumes/${vid}`)).json as Rec).status, 'detached');
  assert.is((await c.call('PUT', '/v1/volumes', { action: 'delete', id: cloneId, is_permanent: true })).status, 202);
  assert.ok(!((await c.call('GET', '/v1/volumes/trash')).json as Rec[]).some((v) => v.id === cloneId), 'permanent delete skips the trash');
});

test('cluster create returns {"id"} JSON and reaches running with a jump host IP and worker public IPs', async () => {
  const body = {
    cluster_type: '16H100',
    image: 'ubuntu-24.04-cuda-13.0-cluster-k8s',
    hostname: 'k8s-1',
    description: 'kube',
    location_code: 'FIN-01',
    ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID],
  };
  const bad = await c.call('POST', '/v1/clusters', { ...body, image: 'ubuntu-24.04' });
  assert.equal(bad.json, { code: 'invalid_request', message: 'Operating system is not valid for this cluster type' });
  assert.is((await c.call('POST', '/v1/clusters', { ...body, location_code: undefined })).status, 400);
  assert.is((await c.call('POST', '/v1/clusters', { ...body, cluster_type: '32B200' })).status, 503);

  const r = await c.call('POST', '/v1/clusters', body);
  assert.is(r.status, 202);
  const { id } = r.json as { id: string };
  assert.match(id, UUID);
  const early = (await c.call('GET', `/v1/clusters/${id}`)).json as Rec;
  assert.ok(early.status === 'ordered' || early.status === 'provisioning', String(early.status));
  assert.is(early.ip, null);
  const del = await c.call('PUT', '/v1/clusters', { actions: [{ action: 'discontinue', id }] });
  assert.equal([del.status, (del.json as Rec).code], [403, 'forbidden_action']);
  const running = await waitFor(`/v1/clusters/${id}`, (cl) => cl.status === 'running');
  assert.match(String(running.ip), /^(203\.0\.113|198\.51\.100)\.\d+$/);
  const workers = running.worker_nodes as Rec[];
  assert.is(workers.length, 2);
  for (const w of workers) {
    assert.match(String(w.public_ip), /^(203\.0\.113|198\.51\.100)\.\d+$/);
    assert.match(String(w.private_ip), /^10\.0\.0\.\d+$/);
    assert.is(w.status, 'running');
    assert.type(w.hostname, 'string');
  }
  assert.is(running.image, 'ubuntu-24.04-cuda-13.0-cluster-k8s');
  assert.is((await c.call('PUT', '/v1/clusters', { actions: [{ action: 'discontinue', id }] })).status, 202);
  assert.is((await c.call('GET', `/v1/clusters/${id}`)).status, 404);
  assert.equal((await c.call('GET', '/v1/clusters')).json, []);
});

test('running instances debit the balance lazily (timeScale = billing hours per real second)', async () => {
  const fast = await startEmulator({ seed: 'empty', lifecycleMs: 0, timeScale: 10 });
  try {
    const fc = emulatorClient(fast);
    const t0 = performance.now();
    const r = await fc.call('POST', '/v1/instances', cpu({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker' }));
    assert.is(r.status, 202);
    const price = ((await fc.call('GET', `/v1/instances/${r.text}`)).json as { price_per_hour: number }).price_per_hour;
    await sleep(500);
    const { amount } = (await fc.call('GET', '/v1/balance')).json as { amount: number };
    const elapsedMs = performance.now() - t0;
    // Billed between create and read: at least the 500 ms slept, at most the time this test measured
    // around both (a busy machine stretches it; the bounds stretch with it). 10 billed hours per second.
    const debited = 1000 - amount;
    const least = price * 10 * 0.5;
    const most = price * 10 * (elapsedMs / 1000);
    assert.ok(debited >= least - 1e-5 && debited <= most + 1e-5, `debited ${debited}, expected ${least.toFixed(4)}–${most.toFixed(4)} (${price} $/h)`);
    await fc.call('PUT', '/v1/instances', { action: 'hibernate', id: r.text });
    const after = ((await fc.call('GET', '/v1/balance')).json as { amount: number }).amount;
    await sleep(200);
    assert.is(((await fc.call('GET', '/v1/balance')).json as { amount: number }).amount, after, 'hibernated instances are not billed');
  } finally {
    await fast.close();
  }
});

test('with debit: false running resources cost nothing: the balance moves only when set', async () => {
  const still = await startEmulator({ seed: 'demo', lifecycleMs: 0, timeScale: 3600, debit: false });
  try {
    const sc = emulatorClient(still);
    const r = await sc.call('POST', '/v1/instances', cpu({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker' }));
    assert.is(r.status, 202);
    await sleep(50); // an hour per millisecond at this time scale: any debit would show
    assert.equal((await sc.call('GET', '/v1/balance')).json, { amount: 1000, currency: 'usd' });
    still.setBalance(12.5);
    assert.equal((await sc.call('GET', '/v1/balance')).json, { amount: 12.5, currency: 'usd' });
  } finally {
    await still.close();
  }
});

test('demo seed has a running and an offline instance, a detached volume, a script and a secret', async () => {
  const demo = await startEmulator({ rateLimit: false });
  try {
    const dc = emulatorClient(demo);
    const inst = (await dc.call('GET', '/v1/instances')).json as Rec[];
    assert.equal(
      inst.map((i) => [i.id, i.status]),
      [
        [EMULATOR_DEMO_IDS.runningInstance, 'running'],
        [EMULATOR_DEMO_IDS.offlineInstance, 'offline'],
      ],
    );
    const vol = (await dc.call('GET', `/v1/volumes/${EMULATOR_DEMO_IDS.volume}`)).json as Rec;
    assert.equal([vol.status, vol.is_os_volume], ['detached', false]);
    assert.is(((await dc.call('GET', '/v1/scripts')).json as Rec[])[0].id, EMULATOR_DEMO_IDS.script);
    assert.equal(((await dc.call('GET', '/v1/secrets')).json as Rec[]).map((s) => s.name), [EMULATOR_DEMO_IDS.secretName]);
  } finally {
    await demo.close();
  }
});

test('state is saved to stateFile after mutations and reloaded by a second emulator', async () => {
  const dir = tempDir('emu-state-');
  const file = join(dir, 'state.json');
  try {
    const one = await startEmulator({ seed: 'empty', stateFile: file, lifecycleMs: 0 });
    const c1 = emulatorClient(one);
    const key = await c1.call('POST', '/v1/sshkeys', { name: 'laptop', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvR3Lfv9j5yYxkXhF2eJ0Rj8tqQ5qO8o5Hq3aY6n0Zp me@laptop' });
    assert.is(key.status, 201);
    const inst = await c1.call('POST', '/v1/instances', cpu({ hostname: 'persisted' }));
    const saved = readFileSync(file, 'utf8');
    assert.ok(saved.includes('persisted'), 'written after the mutation, before close');
    assert.ok(!saved.includes(await c1.token()), 'tokens are not stored in clear');
    one.setBalance(321);
    await one.close();

    const two = await startEmulator({ seed: 'demo', stateFile: file });
    try {
      const c2 = emulatorClient(two);
      const got = (await c2.call('GET', `/v1/instances/${inst.text}`)).json as Rec;
      assert.equal([got.hostname, got.status], ['persisted', 'running']);
      const keys = (await c2.call('GET', '/v1/sshkeys')).json as Rec[];
      assert.equal(keys.map((k) => k.name).sort(), ['emulator-default', 'laptop']);
      const bal = ((await c2.call('GET', '/v1/balance')).json as { amount: number }).amount;
      assert.ok(bal <= 321 && bal > 320, `balance ${bal}`);
    } finally {
      await two.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
