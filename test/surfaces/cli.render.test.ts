import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { findKind } from '../../engine/providers/gpucloud/catalogue.js';
import { renderTable } from '../../engine/core/render/records.js';
import { BIN, runCli, tempHome, withEmulator } from '../support/cli.js';

const instance = { id: '0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21', hostname: 'demo-a100', instance_type: '1A100.22V', location: 'FIN-01', status: 'running', ip: '203.0.113.10', price_per_hour: 1.29 };

test('tables drop the lowest-priority columns first to fit the terminal width', () => {
  const columns = findKind('instances')!.columns;
  const wide = renderTable([instance], columns, 200);
  assert.match(wide, /^ID\s+HOSTNAME/);
  const narrow = renderTable([instance], columns, 60);
  assert.not.match(narrow, /^ID/, 'without a kept column, the ID column (priority 1) goes first');
  assert.match(narrow, /HOSTNAME/);
  assert.match(narrow, /STATUS/);
  for (const line of narrow.trimEnd().split('\n')) assert.ok(line.length <= 60, `"${line}" is wider than 60`);
});

test('get with a hostname shared by two instances lists the matches with their IDs on stderr and exits 2', async () => {
  await withEmulator(async ({ env }) => {
    const create = (n: number) => ({
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'twin', description: String(n), location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
      reason: `twin ${n}`,
    });
    // One plan may not create a name twice, and a name that exists needs --allow-duplicate-names.
    for (const n of [1, 2]) {
      const made = await runCli(['ask', '--apply', '--allow-duplicate-names'], { env, input: JSON.stringify({ version: 1, provider: 'gpucloud', commands: [create(n)] }), timeoutMs: 60_000 });
      assert.is(made.code, 0, made.stderr);
    }
    const r = await runCli(['gpucloud', 'get', 'instance', 'twin'], { env });
    assert.is(r.code, 2);
    assert.is(r.stdout, '');
    assert.is(r.stderr.match(/^[0-9a-f-]{36}\s+twin\s/gm)?.length, 2, `both matches with their IDs:\n${r.stderr}`);
    assert.match(r.stderr, /error: ambiguous: 2 instances are named "twin"/);
    assert.match(r.stderr, /hint: use the ID instead: [0-9a-f-]{36}, [0-9a-f-]{36}\n/);
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

test('gpucloud emulate serves the API in the foreground, prints no secret, and stops on Ctrl-C', async () => {
  const port = await freePort();
  const home = tempHome();
  const child = spawn(process.execPath, [BIN, 'gpucloud', 'emulate', '--listen', `127.0.0.1:${port}`], {
    env: { ...process.env, HOME: home, NO_COLOR: '1', GPUCLOUD_EMULATOR_CLIENT_SECRET: 'emu-secret-for-test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  for (let i = 0; i < 1200 && !stderr.includes('listening'); i++) await new Promise((r) => setTimeout(r, 50)); // up to a minute
  assert.match(stderr, new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`));
  const env = { GPUCLOUD_BASE_URL: `http://127.0.0.1:${port}`, GPUCLOUD_CLIENT_ID: 'emu-client', GPUCLOUD_CLIENT_SECRET: 'emu-secret-for-test' };
  const list = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env });
  assert.is(list.code, 0, list.stderr);
  assert.ok(Array.isArray(JSON.parse(list.stdout)));
  child.kill('SIGINT');
  assert.is(await exited, 0);
  assert.not.match(stderr, /emu-secret-for-test/);
});

test.run();
