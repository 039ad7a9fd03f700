/**
 * `assistant config get|set|unset|init|use|contexts`, driven as a person does: the CLI with a temp HOME,
 * stdin for secrets, the gpucloud emulator for init's check, and a tmux terminal for init's questions.
 */
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { HAVE_TMUX, startInTmux } from '../support/tmux.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const mode = (path: string) => statSync(path).mode & 0o777;
const cfgOf = (home: string) => join(home, '.assistant.yaml');

test('config set keeps comments, writes 0600 (also over a 0644 file), and get/unset read and remove the key', async () => {
  const home = tempHome('assistant-cfg-');
  writeFileSync(cfgOf(home), '# my settings\ngpucloud:\n  client_id: abc   # from the console\n', { mode: 0o644 });
  chmodSync(cfgOf(home), 0o644);
  const set = await runCli(['config', 'set', 'gpucloud.default_location', 'FIN-01'], { home });
  assert.is(set.code, 0, set.stderr);
  assert.is(mode(cfgOf(home)), 0o600);
  const text = readFileSync(cfgOf(home), 'utf8');
  assert.match(text, /^# my settings/);
  assert.match(text, /client_id: abc +# from the console/);
  assert.is(parseYaml(text).gpucloud.default_location, 'FIN-01');

  const get = await runCli(['config', 'get', 'gpucloud.default_location'], { home });
  assert.equal([get.code, get.stdout], [0, 'FIN-01\n']);
  // A default the file does not write is still the effective value.
  assert.is((await runCli(['config', 'get', 'ai.max_prompt_chars'], { home })).stdout, '120000\n');
  // A string key keeps what was typed; a number key reads a number.
  assert.is((await runCli(['config', 'set', 'gpucloud.default_project_id', '00123'], { home })).code, 0);
  assert.is((await runCli(['config', 'set', 'budget.max_hourly', '12.5'], { home })).code, 0);
  const data = parseYaml(readFileSync(cfgOf(home), 'utf8'));
  assert.is(data.gpucloud.default_project_id, '00123');
  assert.is(data.budget.max_hourly, 12.5);

  const unset = await runCli(['config', 'unset', 'gpucloud.default_location'], { home });
  assert.is(unset.code, 0, unset.stderr);
  const after = await runCli(['config', 'get', 'gpucloud.default_location'], { home });
  assert.is(after.code, 1);
  assert.match(after.stderr, /error: not_set: gpucloud\.default_location is not set/);
  const again = await runCli(['config', 'unset', 'gpucloud.default_location'], { home });
  assert.is(again.code, 0);
  assert.match(again.stderr, /nothing to change/);
});

test('a wrong key is refused with did-you-mean (exit 2) and no file is made', async () => {
  const home = tempHome('assistant-cfg-');
  const r = await runCli(['config', 'set', 'gpucloud.defualt_location', 'FIN-01'], { home });
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: usage: unknown config key "gpucloud\.defualt_location"; did you mean "gpucloud\.default_location"\?/);
  assert.not.ok(existsSync(cfgOf(home)));
  const section = await runCli(['config', 'get', 'gpucloudd.client_id'], { home });
  assert.is(section.code, 2);
  assert.match(section.stderr, /did you mean "gpucloud"\?/);
  // Records take any name: an AI profile of your own.
  assert.is((await runCli(['config', 'set', 'ai.providers.mine.model', 'm-1'], { home })).code, 0);
  // A key under a value is not a key.
  const under = await runCli(['config', 'set', 'timeout.seconds', '3'], { home });
  assert.is(under.code, 2);
  assert.match(under.stderr, /"timeout" is a value, not a section/);
});

test('a value the schema refuses is not written, and the file is left as it was', async () => {
  const home = tempHome('assistant-cfg-');
  writeFileSync(cfgOf(home), 'budget:\n  max_hourly: 5\n', { mode: 0o600 });
  const r = await runCli(['config', 'set', 'budget.max_hourly', 'lots'], { home });
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: invalid_config: budget\.max_hourly: expected number, got "lots"; nothing was written/);
  assert.is(readFileSync(cfgOf(home), 'utf8'), 'budget:\n  max_hourly: 5\n');
});

test('a secret is read from stdin, never echoed back: get masks it', async () => {
  const home = tempHome('assistant-cfg-');
  const secret = 'sekrit-value-0123456789';
  const set = await runCli(['config', 'set', 'gpucloud.client_secret'], { home, input: `${secret}\n` });
  assert.is(set.code, 0, set.stderr);
  assert.is(parseYaml(readFileSync(cfgOf(home), 'utf8')).gpucloud.client_secret, secret);
  assert.not.match(set.stderr, /shell's history/);
  const get = await runCli(['config', 'get', 'gpucloud', '-o', 'json'], { home });
  assert.not.ok(get.stdout.includes(secret), get.stdout);
  // On the command line it works, with a warning about the shell history.
  const argv = await runCli(['config', 'set', 'gpucloud.client_secret', 'other-secret-value-42'], { home });
  assert.is(argv.code, 0);
  assert.match(argv.stderr, /shell's history/);
});

test('config init with flags writes 0600 and passes the onboarding check against the emulator; a wrong secret fails the check (exit 1)', async () => {
  await withEmulator(async ({ emu }) => {
    const home = tempHome('assistant-cfg-');
    const env = { GPUCLOUD_BASE_URL: emu.url };
    const r = await runCli(['config', 'init', '--set', `gpucloud.client_id=${emu.clientId}`, '--secret', 'gpucloud.client_secret', '-o', 'json'], { home, env, input: emu.clientSecret });
    assert.is(r.code, 0, r.stderr);
    assert.is(mode(cfgOf(home)), 0o600);
    assert.is(parseYaml(readFileSync(cfgOf(home), 'utf8')).gpucloud.client_secret, emu.clientSecret);
    const report = JSON.parse(r.stdout) as { providers: { provider: string; authenticated: boolean | null }[] };
    assert.is(report.providers.find((p) => p.provider === 'gpucloud')?.authenticated, true);
    assert.not.ok(r.stdout.includes(emu.clientSecret) || r.stderr.includes(emu.clientSecret));

    const again = await runCli(['config', 'init', '--set', 'gpucloud.client_id=x'], { home, env });
    assert.is(again.code, 2);
    assert.match(again.stderr, /error: config_exists: /);

    const wrong = await runCli(['config', 'init', '--force', '--set', `gpucloud.client_id=${emu.clientId}`, '--secret', 'gpucloud.client_secret'], { home, env, input: 'not-the-secret-000' });
    assert.is(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /error: not_ready: gpucloud/);
    assert.match(wrong.stderr, /the file is written/);
  });
});

test('config init without a terminal and without values refuses (exit 2) and writes nothing', async () => {
  const home = tempHome('assistant-cfg-');
  const r = await runCli(['config', 'init'], { home });
  assert.is(r.code, 2);
  assert.match(r.stderr, /needs a terminal to ask on/);
  assert.not.ok(existsSync(cfgOf(home)));
  const typo = await runCli(['config', 'init', '--set', 'gpucloud.clientid=x', '--no-check'], { home });
  assert.is(typo.code, 2);
  assert.match(typo.stderr, /did you mean "gpucloud\.client_id"/);
  assert.not.ok(existsSync(cfgOf(home)));
});

test('contexts: config use moves every later command between the sandbox and a named account; --context and ASSISTANT_CONTEXT pick one per command', async () => {
  const home = tempHome('assistant-cfg-');
  writeFileSync(cfgOf(home), 'gpucloud:\n  default_location: FIN-01\n', { mode: 0o600 });
  const made = await runCli(['--context', 'work', 'config', 'init', '--set', 'gpucloud.default_location=FIN-03', '--no-check'], { home });
  assert.is(made.code, 0, made.stderr);
  const workFile = join(home, '.assistant', 'contexts', 'work.yaml');
  assert.is(mode(workFile), 0o600);

  assert.is((await runCli(['config', 'get', 'gpucloud.default_location'], { home })).stdout, 'FIN-01\n');
  assert.is((await runCli(['--context', 'work', 'config', 'get', 'gpucloud.default_location'], { home })).stdout, 'FIN-03\n');
  assert.is((await runCli(['config', 'get', 'gpucloud.default_location'], { home, env: { ASSISTANT_CONTEXT: 'work' } })).stdout, 'FIN-03\n');

  assert.is((await runCli(['config', 'use', 'work'], { home })).code, 0);
  assert.is((await runCli(['config', 'get', 'gpucloud.default_location'], { home })).stdout, 'FIN-03\n');
  assert.is((await runCli(['config', 'set', 'timeout', '45'], { home })).code, 0);
  assert.is(parseYaml(readFileSync(workFile, 'utf8')).timeout, 45, 'set writes the current context');

  // One command to the sandbox: the emulator's demo resources, no real account.
  assert.is((await runCli(['config', 'use', 'sandbox'], { home })).code, 0);
  const list = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { home });
  assert.is(list.code, 0, list.stderr);
  assert.ok((JSON.parse(list.stdout) as { hostname: string }[]).some((i) => i.hostname === 'demo-a100'), list.stdout);
  const ctxs = await runCli(['config', 'contexts', '-o', 'json'], { home });
  const shown = JSON.parse(ctxs.stdout) as { current: string; contexts: { name: string; current: string }[] };
  assert.is(shown.current, 'sandbox');
  assert.equal(shown.contexts.map((c) => c.name), ['default', 'sandbox', 'work']);
  assert.is((await runCli(['config', 'use', 'default'], { home })).code, 0);
  assert.is((await runCli(['config', 'get', 'gpucloud.default_location'], { home })).stdout, 'FIN-01\n');

  const typo = await runCli(['--context', 'wrok', 'config', 'show'], { home });
  assert.is(typo.code, 2);
  assert.match(typo.stderr, /no context "wrok"; did you mean "work"\?/);
  assert.is((await runCli(['config', 'use', 'nope'], { home })).code, 2);
  const both = await runCli(['--context', 'work', '--config', cfgOf(home), 'config', 'show'], { home });
  assert.is(both.code, 2);
  const bad = await runCli(['--context', '../x', 'config', 'show'], { home });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /is not a context name/);

  // A current context whose file was removed falls back to default, said once, so `config use` still works.
  assert.is((await runCli(['config', 'use', 'work'], { home })).code, 0);
  rmSync(workFile);
  const gone = await runCli(['config', 'get', 'gpucloud.default_location'], { home });
  assert.is(gone.code, 0, gone.stderr);
  assert.is(gone.stdout, 'FIN-01\n');
  assert.match(gone.stderr, /the current context "work" no longer exists; using default/);
});

test('--profile on ask and k8s keeps its meaning (a cloud_a profile): --context is the config context', async () => {
  const home = tempHome('assistant-cfg-');
  const ask = await runCli(['ask', '--help'], { home });
  assert.is(ask.code, 0);
  assert.match(ask.stdout, /--profile <name>\s+cloud_a environment/);
  assert.match((await runCli(['--help'], { home })).stdout, /--context <name>/);
  // A context named like a cloud_a profile does not turn --profile into a context: ask --profile is still parsed by ask.
  const k8s = await runCli(['k8s', 'get', 'nodes', '--profile', 'prod', '--help'], { home });
  assert.is(k8s.code, 0, k8s.stderr);
});

test('config init asks on a terminal: the provider, then its fields, the secret not echoed', async () => {
  if (!HAVE_TMUX) return void console.log('SKIP config init on a terminal: tmux not on PATH');
  const home = tempHome('assistant-cfg-');
  const pane = await startInTmux(['config', 'init', '--no-check'], { home });
  try {
    await pane.waitFor(/provider \(/, 'the provider question');
    await pane.line('gpucloud');
    await pane.waitFor(/OAuth client id: /, 'the client id question');
    await pane.line('my-client-id');
    await pane.waitFor(/OAuth client secret: /, 'the secret question');
    await pane.line('typed-secret-value-77');
    assert.is(await pane.exitCode(), 0, await pane.screen());
    const screen = await pane.screen();
    assert.not.ok(screen.includes('typed-secret-value-77'), screen);
    assert.match(screen, /wrote .*\.assistant\.yaml \(mode 0600\)/);
    const data = parseYaml(readFileSync(cfgOf(home), 'utf8'));
    assert.equal(data.gpucloud, { client_id: 'my-client-id', client_secret: 'typed-secret-value-77' });
    assert.is(mode(cfgOf(home)), 0o600);
  } finally {
    await pane.close();
  }
});

test.run();
