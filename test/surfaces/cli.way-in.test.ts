/** The way in (issue 10 §3): commands of the SPEC that are not built yet, top-level help, the emulator's help. */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { laterGroups, NOT_AVAILABLE_YET } from '../../commands/not-available.js';
import { BIN, childEnv, cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): help and routing are about output; the install and
// --version checks below start their own processes.
cliInThisProcess();

test('every SPEC command and integration flag is built: nothing answers "not available yet", and each ask flag routes to its own provider', async () => {
  assert.equal(NOT_AVAILABLE_YET, [], 'the not-available table is empty');
  const flags = ['postgres', 'terraform', 'repohost', 'errtracker', 'issuetracker', 'notes', 'appplatform', 'edge', 'vps-a', 'vps-b', 'cloud-d'];
  for (const flag of flags) {
    const r = await runCli(['ask', '--route-only', `--${flag}`, '-o', 'json', 'what is there?']);
    assert.is(r.code, 0, `--${flag}: ${r.stderr}`);
    assert.not.match(r.stderr, /not_available/);
    assert.equal((JSON.parse(r.stdout) as { providers: string[] }).providers, [flag.replace('-', '_')], `--${flag}`);
  }
});

test('top-level help lists only built commands, and names the later ones apart', async () => {
  const r = await runCli(['--help']);
  assert.is(r.code, 0);
  const later = r.stdout.indexOf('Coming later');
  const commands = r.stdout.slice(r.stdout.indexOf('Commands:'), later === -1 ? r.stdout.indexOf('Global flags:') : later);
  for (const later of laterGroups()) assert.not.match(commands, new RegExp(`^  ${later}\\s`, 'm'), `${later} is not listed as a command`);
  assert.match(commands, /^  gpucloud\s/m);
  assert.match(commands, /^  cost\s/m);
  assert.match(commands, /^  k8s\s/m);
  assert.match(commands, /^  deploy\s/m);
  if (laterGroups().length) assert.ok(r.stdout.includes(`Coming later (not available yet): ${laterGroups().join(', ')}`), r.stdout);
  else assert.not.match(r.stdout, /Coming later/, 'every command group of the SPEC is built');
  assert.match(commands, /^  credentials\s+Store, list, delete and test/m, 'credentials store is built (issue 26)');
  assert.match(commands, /^  backend\s/m);
  assert.match(commands, /^  onboarding\s/m);
  assert.match(commands, /^  box\s/m);
});

test('a question that merely mentions a flag-like word is still asked (the flag must be its own argument)', async () => {
  const r = await runCli(['ask', '--route-only', 'what does --iam mean for my instances']);
  assert.is(r.code, 0, r.stderr);
});

test('a first ask with no AI provider is answered by the built-in answers with one notice line; asking for a model by flag still exits 2 before sending anything, with the config snippet', async () => {
  await withEmulator(async ({ emu, env }) => {
    const noKeys = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };
    const first = await runCli(['ask', 'what is my balance?'], { env: { ...env, ...noKeys } });
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /balance/i);
    assert.is(first.stderr, 'notice: no AI provider is configured, so the built-in answers reply (exact figures or a decline); configure one for free-form questions (docs/ask.md)\n');
    const sent = emu.requests().length;
    const r = await runCli(['ask', '--model', 'gpt-4o', 'what is my balance?'], { env: { ...env, ...noKeys } });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: ai_not_configured: no AI provider is configured/m);
    assert.match(r.stderr, /^hint: .*--ai-profile builtin/m);
    assert.match(r.stderr, /^ai:\n  default_provider: openai\n  providers:\n    openai:\n      api_key_env: OPENAI_API_KEY$/m);
    assert.is(r.stdout, '');
    assert.is(emu.requests().slice(sent).filter((q) => q.path !== '/v1/oauth2/token').length, 0, 'nothing was sent to gpucloud');
    // Following the hint works at once.
    const b = await runCli(['ask', '--ai-profile', 'builtin', 'what is my balance?'], { env: { ...env, ...noKeys } });
    assert.is(b.code, 0, b.stderr);
    assert.match(b.stdout, /balance/i);
  });
});

test('gpucloud emulate --help shows the default credentials and how to point the CLI at it', async () => {
  const r = await runCli(['gpucloud', 'emulate', '--help']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPUCLOUD_BASE_URL=http:\/\/127\.0\.0\.1:8787 GPUCLOUD_CLIENT_ID=emu-client GPUCLOUD_CLIENT_SECRET=emu-secret assistant gpucloud list instances/);
  assert.match(r.stdout, /client_id emu-client, client_secret emu-secret/);
});

test('linked onto the PATH as `assistant` (npm link, or ln -s as the README shows), it runs by name from any directory', async () => {
  const home = tempHome();
  const binDir = join(home, 'bin');
  mkdirSync(binDir);
  symlinkSync(BIN, join(binDir, 'assistant'));
  const env = childEnv(home, { PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin` });
  const out = await new Promise<string>((resolve, reject) =>
    execFile('assistant', ['--version'], { env, cwd: home, timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  assert.match(out, /^\d+\.\d+\.\d+/);
});

test('the README puts `assistant` on the PATH as written on a fresh machine (no ~/.local/bin yet); the package name is not the registry\'s unrelated "assistant"', () => {
  const root = dirname(dirname(BIN));
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const quickstart = /## Install\n\n[^`]*```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const step = quickstart.split('\n').find((l) => /put `assistant` on the PATH/.test(l));
  assert.ok(step, quickstart);
  const home = tempHome('assistant-path-');
  assert.not.ok(existsSync(join(home, '.local')), 'a fresh home');
  const run = spawnSync('sh', ['-c', step!.replace(/\s+#.*$/, '')], { cwd: root, env: { ...process.env, HOME: home }, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const version = spawnSync(join(home, '.local', 'bin', 'assistant'), ['--version'], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
  assert.is(version.status, 0, version.stderr);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string> };
  assert.is(version.stdout.trim(), pkg.version);
  // `assistant` on the registry is someone else's package; ours must not share its name (the command keeps it).
  assert.is.not(pkg.name, 'assistant');
  assert.equal(Object.keys(pkg.bin), ['assistant']);
  assert.match(readFileSync(join(root, 'docs', 'getting-started.md'), 'utf8'), /NPM_CONFIG_PREFIX=~\/\.local npm link/);
});

test.run();
