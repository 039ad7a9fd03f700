/** Creates against the emulator: bare-text and {id} bodies, multi-status results, and de-duplication after ambiguous failures. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../../emulator/index.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { createDedupeFor } from '../../../engine/providers/gpucloud/dedupe.js';
import { PartialFailureError, ServerError } from '../../../engine/providers/gpucloud/errors.js';
import type { ClientEvent, GpuCloudClientOptions } from '../../../engine/providers/gpucloud/types.js';
import { emulatorForFile } from '../../support/emulator.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let emu: Emulator;
emulatorForFile(test, { seed: 'empty' }, (e) => (emu = e));

function client(extra: Partial<GpuCloudClientOptions> = {}) {
  return createGpuCloudClient({
    baseUrl: emu.url,
    credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' },
    retry: { delaysMs: [20, 40, 80] },
    ...extra,
  });
}

const instanceBody = (hostname: string) => ({
  instance_type: '1V100.6V',
  image: 'ubuntu-24.04-cuda-12.8-open-docker',
  hostname,
  description: 'client test',
  location_code: 'FIN-01',
  ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID],
});

async function instancesNamed(c: ReturnType<typeof client>, hostname: string): Promise<{ id: string }[]> {
  const res = await c.request({ method: 'GET', path: '/v1/instances' });
  return (res.data as { id: string; hostname: string }[]).filter((i) => i.hostname === hostname);
}

const posts = (path: string) => emu.requests().filter((r) => r.method === 'POST' && r.path === path).length;

test('instance create: bare-text id decoded (body given as a JSON string, as plans carry it)', async () => {
  const c = client();
  const res = await c.request({ method: 'POST', path: '/v1/instances', body: JSON.stringify(instanceBody('bare-1')) });
  assert.is(res.status, 202);
  assert.type(res.data, 'string');
  assert.match(res.data as string, UUID);
  assert.is(res.text.trim(), res.data);
  assert.is(res.deduplicated, undefined);
  assert.equal((await instancesNamed(c, 'bare-1')).map((i) => i.id), [res.data]);
});

test('cluster create: {"id"} body decoded as an object', async () => {
  const c = client();
  const res = await c.request({
    method: 'POST',
    path: '/v1/clusters',
    body: {
      cluster_type: '16H100',
      image: 'ubuntu-24.04-cuda-13.0-cluster',
      hostname: 'cluster-1',
      description: 'client test',
      location_code: 'FIN-01',
      ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID],
    },
  });
  assert.is(res.status, 202);
  assert.type(res.data, 'object');
  assert.match((res.data as { id: string }).id, UUID);
});

test('a 500 after the create happened: the client finds the instance instead of creating a second one', async () => {
  const events: ClientEvent[] = [];
  const c = client({ onEvent: (e) => events.push(e) });
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 500, afterHandler: true });
  const res = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('dedupe-1') });
  const existing = await instancesNamed(c, 'dedupe-1');
  assert.is(existing.length, 1, 'exactly one instance with that hostname');
  assert.is(res.deduplicated, true);
  assert.is(res.status, 202);
  assert.is(res.data, existing[0]!.id, 'the bare id, as the real API returns it');
  assert.is(posts('/v1/instances'), 1, 'the POST was not sent again');
  assert.ok(events.some((e) => e.type === 'dedupe' && e.id === existing[0]!.id));
});

test('a create whose method is written " post " is guarded as a POST: a 500 after it happened finds the instance, nothing is sent twice', async () => {
  const c = client();
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 500, afterHandler: true });
  const res = await c.request({ method: ' post ', path: '/v1/instances', body: instanceBody('dedupe-lower') });
  assert.is(res.deduplicated, true);
  assert.is((await instancesNamed(c, 'dedupe-lower')).length, 1, 'exactly one instance with that hostname');
});

test('a connection reset after the create happened is de-duplicated too', async () => {
  const c = client();
  emu.addFault({ method: 'POST', path: '/v1/instances', reset: true, afterHandler: true });
  const res = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('dedupe-2') });
  const existing = await instancesNamed(c, 'dedupe-2');
  assert.is(existing.length, 1);
  assert.is(res.deduplicated, true);
  assert.is(res.data, existing[0]!.id);
});

test('a create that timed out while the server was still processing it is found by looking again, not sent twice', async () => {
  // The server creates the instance 900 ms after the request; the client gives up after 200 ms. A single
  // look 20 ms later sees nothing; the old client then sent the create again (two instances, exit 0).
  const c = client({ timeoutMs: 200, retry: { delaysMs: [20, 40, 80], createLookupMs: 20_000 } });
  await c.request({ method: 'GET', path: '/v1/instances' }); // token and socket warm
  emu.addFault({ method: 'POST', path: '/v1/instances', delayMs: 900 });
  const events: ClientEvent[] = [];
  const c2 = client({ timeoutMs: 200, retry: { delaysMs: [20, 40, 80], createLookupMs: 20_000 }, onEvent: (e) => events.push(e) });
  const res = await c2.request({ method: 'POST', path: '/v1/instances', body: instanceBody('slow-1') });
  const existing = await instancesNamed(c, 'slow-1');
  assert.is(existing.length, 1, 'exactly one instance');
  assert.is(posts('/v1/instances'), 1, 'the create was sent once');
  assert.is(res.deduplicated, true);
  assert.is(res.data, existing[0]!.id);
  assert.ok(events.some((e) => e.type === 'create-lookup'), 'it said it was looking again');
});

test('a create with no answer that never appears stops with create_uncertain and is not sent again', async () => {
  const c = client({ retry: { delaysMs: [20, 40, 80], createLookupMs: 600 } });
  emu.addFault({ method: 'POST', path: '/v1/instances', reset: true }); // no answer; nothing created
  const err = (await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('unsure-1') }).catch((e: unknown) => e)) as {
    code?: string;
    exitCode?: number;
    message?: string;
    hint?: string;
  };
  assert.is(err.code, 'create_uncertain');
  assert.is(err.exitCode, 1);
  assert.match(err.message!, /instance "unsure-1" may have happened/);
  assert.match(err.hint!, /--resume/);
  assert.is(posts('/v1/instances'), 1, 'never sent on a guess');
});

test('a create whose lookup list fails stops with create_uncertain; a run-held snapshot (createGuard) means no list before the POST', async () => {
  const c = client({ retry: { delaysMs: [20, 40, 80], createLookupMs: 600 } });
  const guard = createDedupeFor('POST', '/v1/instances', instanceBody('unsure-2'))!;
  guard.restoreSnapshot([]); // the run already listed the kind
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 500, afterHandler: true });
  emu.addFault({ method: 'GET', path: '/v1/instances', status: 500, times: -1 });
  const err = (await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('unsure-2'), createGuard: guard }).catch((e: unknown) => e)) as { code?: string };
  assert.is(err.code, 'create_uncertain');
  assert.is(posts('/v1/instances'), 1);
  const calls = emu.requests().filter((r) => r.path === '/v1/instances').map((r) => r.method);
  assert.is(calls[0], 'POST', 'no snapshot list of its own before the create');
});

test('an older instance with the same hostname is not mistaken for ours (snapshot before the first POST)', async () => {
  const c = client();
  const older = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('same-name') });
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 502, afterHandler: true });
  const res = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('same-name') });
  const existing = (await instancesNamed(c, 'same-name')).map((i) => i.id);
  assert.is(existing.length, 2);
  assert.is(res.deduplicated, true);
  assert.is.not(res.data, older.data);
  assert.ok(existing.includes(res.data as string));

  // Nothing created this time: the older records must not be taken for ours, so the POST is resent.
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 503 });
  const third = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('same-name') });
  assert.is(third.deduplicated, undefined);
  assert.ok(!existing.includes(third.data as string));
  assert.is((await instancesNamed(c, 'same-name')).length, 3);
});

test('an ambiguous failure where nothing was created: the POST is retried once and creates one instance', async () => {
  const c = client();
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 503 }); // before the handler: nothing created
  const res = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('retry-1') });
  assert.is(res.deduplicated, undefined);
  assert.is(res.attempts, 2);
  assert.equal((await instancesNamed(c, 'retry-1')).map((i) => i.id), [res.data]);
  assert.is(posts('/v1/instances'), 2);
});

test('uniqueNames kinds: no snapshot GET; a name match after an ambiguous failure is returned as the record', async () => {
  const c = client();
  emu.addFault({ method: 'POST', path: '/v1/secrets', status: 500, afterHandler: true });
  const res = await c.request({ method: 'POST', path: '/v1/secrets', body: { name: 'db-password', value: 'hunter22' } });
  assert.is(res.deduplicated, true);
  assert.is((res.data as { name: string }).name, 'db-password');
  const secretsCalls = emu.requests().filter((r) => r.path === '/v1/secrets').map((r) => r.method);
  assert.equal(secretsCalls, ['POST', 'GET']);
});

test('a create that keeps failing: every resend is preceded by a list check, then ServerError with attempts', async () => {
  const c = client();
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 500, times: -1 });
  const err = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('never') }).catch((e: unknown) => e);
  assert.instance(err, ServerError);
  assert.is((err as ServerError).attempts, 4);
  assert.is((await instancesNamed(c, 'never')).length, 0);
  const calls = emu.requests().filter((r) => r.path === '/v1/instances').map((r) => r.method);
  assert.equal(calls.slice(0, 8), ['GET', 'POST', 'GET', 'POST', 'GET', 'POST', 'GET', 'POST']);
});

test('207 multi-status with a failed instance → PartialFailureError naming it; all-success 202 returns normally', async () => {
  const c = client();
  const ok = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('multi-1') });
  const missing = '00000000-0000-4000-8000-000000000000';
  const err = await c
    .request({ method: 'PUT', path: '/v1/instances', body: { action: 'delete_stuck', id: [ok.data as string, missing] } })
    .catch((e: unknown) => e);
  assert.instance(err, PartialFailureError);
  const e = err as PartialFailureError;
  assert.is(e.status, 207);
  assert.match(e.message, new RegExp(`${missing}.*Invalid instance id`));
  assert.not.match(e.message, new RegExp(ok.data as string));
  const details = e.details as { instanceId: string; status: string }[];
  assert.equal(details.map((d) => [d.instanceId, d.status]), [
    [ok.data, 'success'],
    [missing, 'error'],
  ]);

  const second = await c.request({ method: 'POST', path: '/v1/instances', body: instanceBody('multi-2') });
  const res = await c.request({ method: 'PUT', path: '/v1/instances', body: { action: 'delete_stuck', id: [second.data as string] } });
  assert.is(res.status, 202);
  assert.is(res.data, undefined);
});

test.run();
