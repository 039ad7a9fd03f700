/**
 * End-to-end: configuration, credential sources, the sandbox and the top-level flags of the real binary.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEMO_IDS } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

type Rec = Record<string, unknown>;

function writePrivate(path: string, text: string): string {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

test('malformed YAML passed with --config exits 2 and names the file and a line number', async () => {
  const home = tempHome();
  const file = writePrivate(join(home, 'broken.yaml'), 'timeout: 30\ngpucloud:\n  client_id: [unclosed\n  default_location: FIN-01\n');
  const r = await runCli(['--config', file, 'gpucloud', 'list', 'instances'], { home });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: invalid_config: /m);
  assert.ok(r.stderr.includes(file), `stderr names ${file}: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+`), 'file:line');
  assert.is(r.stdout, '');
});

test('--config pointing at a missing file exits 2 with config_not_found', async () => {
  const home = tempHome();
  const r = await runCli(['--config', join(home, 'nope.yaml'), 'gpucloud', 'list', 'instances'], { home });
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: config_not_found: .*nope\.yaml/m);
});

test('credential sources through the binary: config file beats env beats ~/.gpucloud/credentials', () =>
  withEmulator(async ({ emu }) => {
    const home = tempHome();
    mkdirSync(join(home, '.gpucloud'));
    writePrivate(join(home, '.gpucloud', 'credentials'), `[default]\nclient_id = ${emu.clientId}\nclient_secret = ${emu.clientSecret}\n`);
    const configPath = writePrivate(
      join(home, '.assistant.yaml'),
      `gpucloud:\n  client_id: ${emu.clientId}\n  client_secret: ${emu.clientSecret}\n`,
    );
    const base = { GPUCLOUD_BASE_URL: emu.url };
    const env = { ...base, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret };

    const all = await runCli(['credentials', 'test', 'gpucloud'], { home, env });
    assert.is(all.code, 0, all.stderr);
    assert.match(all.stdout, /source: config \(config file /);
    assert.ok(all.stdout.includes(configPath));

    writeFileSync(configPath, 'timeout: 30\n');
    const envAndFile = await runCli(['credentials', 'test', 'gpucloud'], { home, env });
    assert.is(envAndFile.code, 0, envAndFile.stderr);
    assert.match(envAndFile.stdout, /source: env \(environment GPUCLOUD_CLIENT_ID/);

    const fileOnly = await runCli(['credentials', 'test', 'gpucloud'], { home, env: base });
    assert.is(fileOnly.code, 0, fileOnly.stderr);
    assert.match(fileOnly.stdout, /source: credentials-file \(credentials file .*\.gpucloud\/credentials \[default\]\)/);

    for (const r of [all, envAndFile, fileOnly]) {
      assert.match(r.stdout, /balance \d/);
      assert.not.ok((r.stdout + r.stderr).includes(emu.clientSecret), 'the secret is never printed');
    }
  }, { clientSecret: 'e2e-cfg-secret-7781' }));

test('no credentials anywhere exits 2 and lists every place it looked', async () => {
  const r = await runCli(['credentials', 'test', 'gpucloud']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: no_credentials: /m);
  assert.match(r.stderr, /config file /);
  assert.match(r.stderr, /environment \(GPUCLOUD_CLIENT_ID, GPUCLOUD_CLIENT_SECRET\)/);
  assert.match(r.stderr, /credentials file .*\.gpucloud\/credentials/);
  assert.match(r.stderr, /^hint: .*--sandbox/m);
  assert.is(r.stdout, '');
});

test('--sandbox gpucloud list instances works on a fresh HOME; the sandbox notice goes to stderr only', async () => {
  const r = await runCli(['--sandbox', 'gpucloud', 'list', 'instances']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /sandbox: /);
  assert.not.match(r.stdout, /sandbox/);
  assert.match(r.stdout, /demo-a100/);
  assert.match(r.stdout, /STATUS/);
});

test('sandbox state persists across processes: shutdown demo-a100, then list shows it offline', async () => {
  const home = tempHome();
  const before = await runCli(['--sandbox', 'gpucloud', 'get', 'instance', 'demo-a100', '-o', 'json'], { home });
  assert.is(before.code, 0, before.stderr);
  assert.is((JSON.parse(before.stdout) as Rec).status, 'running');
  const act = await runCli(['--sandbox', 'gpucloud', 'action', 'shutdown', 'demo-a100'], { home });
  assert.is(act.code, 0, act.stderr);
  const after = await runCli(['gpucloud', 'list', 'instances', '-o', 'json', '--sandbox'], { home });
  assert.is(after.code, 0, after.stderr);
  const inst = (JSON.parse(after.stdout) as Rec[]).find((i) => i.id === EMULATOR_DEMO_IDS.runningInstance);
  assert.is(inst?.status, 'offline');
});

test('--version prints the package.json version (alone and among other flags)', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  const r = await runCli(['--version']);
  assert.is(r.code, 0);
  assert.is(r.stdout, pkg.version + '\n');
  assert.is(r.stderr, '');
  const v = await runCli(['-v']);
  assert.is(v.stdout, pkg.version + '\n');
  const mixed = await runCli(['--no-color', '--version']);
  assert.is(mixed.code, 0);
  assert.is(mixed.stdout, pkg.version + '\n');
});

test('--help exits 0 and lists the commands on stdout', async () => {
  const r = await runCli(['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /Usage:/);
  for (const g of ['gpucloud', 'config', 'credentials']) assert.match(r.stdout, new RegExp(`^  ${g}\\s`, 'm'));
  assert.is(r.stderr, '');
  const none = await runCli([]);
  assert.is(none.code, 0);
  assert.match(none.stdout, /Usage:/);
});

test('an unknown command exits 2 with error: usage: and a hint', async () => {
  const r = await runCli(['frobnicate']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: usage: unknown command "frobnicate"$/m);
  assert.match(r.stderr, /^hint: /m);
  assert.is(r.stdout, '');
});

test('a bad global flag value exits 2 (e.g. -o xml, --timeout 0)', async () => {
  const a = await runCli(['-o', 'xml', 'gpucloud', 'list', 'instances']);
  assert.is(a.code, 2);
  assert.match(a.stderr, /^error: usage: --output must be/m);
  const b = await runCli(['--timeout', '0', 'gpucloud', 'list', 'instances']);
  assert.is(b.code, 2);
  assert.match(b.stderr, /^error: invalid_input: --timeout: expected a duration like 30s \(got "0"\)\nhint: /m);
});

test.run();
