/**
 * The credential backend is the last place vps_a, vps_b and cloud_d look: with nothing in the config or
 * the environment, the token (or cloud_d's key pair and region) stored with `credentials store` is used,
 * `credentials test` names the backend as the source, and a local token still wins over the stored one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startVpsAFake } from '../../emulator/fakes/vps_a.js';
import { startVpsBFake } from '../../emulator/fakes/vps_b.js';
import { startCloudDFake } from '../../emulator/fakes/cloud_d.js';
import { asClient, backendForFile, type BackendProcess } from '../support/backend.js';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';
import { closeStarted, startKept } from '../support/integration.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let backend: BackendProcess;
let key = '';
const home = () => tempHome('assistant-vps-backend-');
// The fakes live until the file ends.
test.after(closeStarted);

// A short home (not under the runner's deep per-file TMPDIR): with a data directory too deep for a Unix
// socket path, `backend keys create` hung on main at the time of writing (cli.credentials-store too).
backendForFile(test, 'team-vps', (b, k) => ((backend = b), (key = k)), { home: mkdtempSync('/tmp/avb-') });

test('vps_a and vps_b tokens stored in the backend are used when config and environment have none; a local token wins', async () => {
  const a = await startKept(() => startVpsAFake());
  const b = await startKept(() => startVpsBFake());
  const env = asClient(backend, key, { ASSISTANT_VPS_A_BASE_URL: a.url, ASSISTANT_VPS_B_BASE_URL: b.url });
  for (const [name, token] of [['vps_a', a.token], ['vps_b', b.token]] as const) {
    const stored = await runCli(['credentials', 'store', name, '--api-token', '-'], { home: home(), env, input: token });
    assert.is(stored.code, 0, stored.stderr);
  }
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--vps-a', '--vps-b', 'how many servers do I have?'], { home: home(), env });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), '5 droplets.\n4 servers.');
  const t = await runCli(['credentials', 'test', 'vps_a'], { home: home(), env });
  assert.match(t.stdout, /^vps_a credentials work \(source: backend http:\/\/127\.0\.0\.1:\d+ \(env \w+, vps_a\/default\)\)/m);
  const local = await runCli(['credentials', 'test', 'vps_a'], { home: home(), env: { ...env, VPS_A_API_TOKEN: 'dop_v1_localwrongtoken' } });
  assert.is(local.code, 1, 'the local (wrong) token was used, not the stored one');
  assert.not.ok((r.stdout + r.stderr + t.stdout + t.stderr).includes(a.token));
});

test("cloud_d's key pair and region stored in the backend are used after both environment families", async () => {
  const d = await startKept(() => startCloudDFake());
  const env = asClient(backend, key, { ASSISTANT_CLOUD_D_BASE_URL: d.url });
  const stored = await runCli(['credentials', 'store', 'cloud_d', '--secret-id', d.secretId, '--secret-key', '-', '--region', 'ap-guangzhou'], { home: home(), env, input: d.secretKey });
  assert.is(stored.code, 0, stored.stderr);
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--cloud-d', 'list my instances'], { home: home(), env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 CVM instance:\n- gz-api /, 'the stored region was read');
  assert.not.ok((r.stdout + r.stderr).includes(d.secretKey));
});

test.run();
