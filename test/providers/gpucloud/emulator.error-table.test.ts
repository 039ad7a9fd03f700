/**
 * The emulator owns its error table (emulator/errors.ts) and the client owns its own
 * (engine/providers/gpucloud/errors.ts): two tables of one wire format. These tests hold them together on every
 * code, both ways, and over real HTTP: each status the emulator answers without a code of its own
 * decodes, in the client, to the code the emulator sent and to that code's typed error and hint.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { CODE_BY_STATUS, codeForStatus, WIRE_ERRORS } from '../../../emulator/errors.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { decodeGpuCloudError, ERROR_CODE_BY_STATUS, GPUCLOUD_ERROR_HINTS, GpuCloudError } from '../../../engine/providers/gpucloud/errors.js';

test('every status the client decodes answers with the same code in the emulator, and the other way round', () => {
  assert.equal(Object.keys(ERROR_CODE_BY_STATUS).sort(), Object.keys(CODE_BY_STATUS).sort(), 'the same statuses');
  for (const [status, code] of Object.entries(ERROR_CODE_BY_STATUS)) assert.is(CODE_BY_STATUS[Number(status)], code, `status ${status}`);
  for (const [code, status] of Object.entries(WIRE_ERRORS)) assert.is(ERROR_CODE_BY_STATUS[status], code, `code ${code}`);
});

test('every wire code has a typed error and a hint in the client', () => {
  for (const [code, status] of Object.entries(WIRE_ERRORS)) {
    const err = decodeGpuCloudError(status, { code, message: 'm' });
    assert.is(err.code, code);
    assert.is.not(err.constructor, GpuCloudError, `${code} has a class of its own`);
    assert.ok(GPUCLOUD_ERROR_HINTS[code], `${code} has a hint`);
  }
});

test('statuses the wire format does not name fall back the same way on both sides', () => {
  for (const status of [405, 409, 418, 502, 504, 599]) {
    assert.is(decodeGpuCloudError(status, {}).code, codeForStatus(status), `status ${status}`);
  }
});

test('over HTTP, each status the emulator answers (with its own code) is decoded by the client to that code', async () => {
  const emu = await startEmulator({ seed: 'empty' });
  try {
    await eachStatusOverHttp(emu);
  } finally {
    await emu.close();
  }
});

async function eachStatusOverHttp(emu: Emulator): Promise<void> {
  const client = createGpuCloudClient({
    baseUrl: `${emu.url}/v1/`,
    credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' },
    // One attempt per status: retries and re-authentication are other tests' business.
    retry: { delaysMs: [], max429Retries: 0 },
  });
  for (const [code, status] of Object.entries(WIRE_ERRORS)) {
    // 401 on the API makes the client re-authenticate once and ask again: the fault answers both.
    emu.addFault({ method: 'GET', path: '/v1/balance', status, times: 2 });
    const err = await client.request({ method: 'GET', path: '/v1/balance' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(err, GpuCloudError, `status ${status}`);
    assert.equal([(err as GpuCloudError).status, (err as GpuCloudError).code], [status, code]);
    emu.reset();
  }
}

test('nothing under emulator/ imports the client\'s error table', () => {
  const root = fileURLToPath(new URL('../../../../emulator/', import.meta.url));
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  assert.ok(files(root).length > 10, 'the emulator sources are found');
  const offenders = files(root).filter((f) => /from '(\.\.\/)+engine\/gpucloud\/errors\.js'/.test(readFileSync(f, 'utf8')));
  assert.equal(offenders, []);
});

test.run();
