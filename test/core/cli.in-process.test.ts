/**
 * The CLI run in the test's own process (issue 40: test/support/cli.ts cliInThisProcess) answers as a
 * child process does, and starts each run as a new process would: what an earlier run registered as a
 * secret, or the `__complete` mode of an earlier run, does not carry over into the next one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { registerSecret } from '../../engine/core/redact.js';
import { cliInThisProcess, emulatorEnv, runCli, spawnCli, tempHome, withEmulator } from '../support/cli.js';

cliInThisProcess();

/** What a command printed and how it ended, both ways: in this process (runCli here) and as a child. */
async function bothWays(args: string[], opts: { env?: Record<string, string>; input?: string } = {}) {
  const home = tempHome('in-process-');
  const here = await runCli(args, { ...opts, home });
  const child = await spawnCli(args, { ...opts, home: tempHome('in-process-child-') });
  return { here, child };
}

test('help, a usage error, an unknown command and a bad --output end the same in this process as in a child', async () => {
  for (const args of [['--help'], ['gpucloud', 'list', '--help'], ['gpucloud', 'list', 'nonsense'], ['no-such-command'], ['-o', 'xml', 'config', 'show'], ['--timeout', 'soon', 'config', 'show'], ['version', '-o', 'json']]) {
    const { here, child } = await bothWays(args);
    assert.is(here.code, child.code, `assistant ${args.join(' ')}: exit ${here.code} here, ${child.code} as a child\n${here.stderr}\n${child.stderr}`);
    assert.is(here.stdout, child.stdout, `assistant ${args.join(' ')}: stdout`);
    assert.is(here.stderr, child.stderr, `assistant ${args.join(' ')}: stderr`);
  }
});

test('a relative path is read from the run\'s HOME, a child\'s working directory', async () => {
  const home = tempHome('in-process-cwd-');
  writeFileSync(join(home, 'plan.json'), JSON.stringify({ version: 1, description: 'nothing', steps: [] }));
  const here = await runCli(['plan', 'validate', 'plan.json'], { home });
  const child = await spawnCli(['plan', 'validate', 'plan.json'], { home });
  assert.is(here.code, child.code, `${here.stderr}\n${child.stderr}`);
  assert.is(here.stdout, child.stdout);
  assert.is(here.stderr, child.stderr);
  assert.not.match(here.stderr, /ENOENT|no such file/);
});

test('a read against the emulator prints the same records in this process as in a child, over real HTTP', async () => {
  await withEmulator(async ({ emu, env }) => {
    const before = emu.requests().length;
    const { here, child } = await bothWays(['gpucloud', 'list', 'instances', '-o', 'json'], { env });
    assert.is(here.code, 0, here.stderr);
    assert.equal(JSON.parse(here.stdout), JSON.parse(child.stdout));
    const lists = emu.requests().slice(before).filter((r) => r.method === 'GET' && r.path.startsWith('/v1/instances'));
    assert.is(lists.length, 2, 'one list from each run reached the emulator');
  });
});

test('a secret this process registered earlier does not mask the next run\'s output (a new process does not know it)', async () => {
  const word = 'zq-not-a-secret-to-this-run';
  registerSecret(word);
  await withEmulator(async ({ env }) => {
    // The error goes through the command's guarded stderr, which masks every registered secret.
    const r = await runCli(['gpucloud', 'get', 'instance', word], { env });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, word);
  });
});

test('a run after `__complete` runs its command instead of listing completions', async () => {
  const completions = await runCli(['__complete', 'gpucloud', 'list']);
  assert.is(completions.code, 0, completions.stderr);
  assert.match(completions.stdout, /--output|instances/);
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
  try {
    const listed = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env: emulatorEnv(emu) });
    assert.is(listed.code, 0, listed.stderr);
    assert.ok(Array.isArray(JSON.parse(listed.stdout)), listed.stdout);
  } finally {
    await emu.close();
  }
});

test.run();
