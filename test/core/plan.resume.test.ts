import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { BIN, configFile, cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { emulatorClient } from '../../emulator/test-client.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); the runs that are killed (-9, SIGINT) are child processes.
cliInThisProcess();

const plan = JSON.stringify({
  version: 1,
  provider: 'gpucloud',
  commands: [
    { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'check the balance' },
    {
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'once-1', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
      reason: 'create the instance',
      produces: { INSTANCE_ID: '$.id' },
    },
    { args: ['gpucloud-api', 'GET', '/v1/instances/<INSTANCE_ID>'], reason: 'read it back' },
  ],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `ask --apply`, waits until the emulator has received the create, then kills the process. */
async function applyAndKill(emu: Emulator, env: Record<string, string>, home: string, signal: NodeJS.Signals): Promise<number | null> {
  const child = spawn(process.execPath, [BIN, 'ask', '--apply'], { env: { ...process.env, ...env, HOME: home, NO_COLOR: '1' }, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(plan);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // A minute for the child to start and send the create (a loaded machine is slow to start Node).
  await until(() => emu.requests().some((r) => r.method === 'POST' && r.path === '/v1/instances'), 'the create reached the emulator');
  child.kill(signal);
  return exited;
}

/** Polls `pred` every 20 ms for up to a minute. */
async function until(pred: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await pred()) return;
    await sleep(20);
  }
  throw new Error(`never happened: ${what}`);
}

/** Holds the next instance create at the emulator until `release()` (an event, not a delay that load can outlast). */
function holdCreates(emu: Emulator): { release: () => void } {
  let release!: () => void;
  emu.addFault({ method: 'POST', path: '/v1/instances', until: new Promise<void>((resolve) => (release = resolve)) });
  return { release: () => release() };
}

/** The emulator created the instance of the killed run (it acts after its delay, client or no client). */
const created = (emu: Emulator, name: string) => until(async () => (await emulatorClient(emu).call('GET', '/v1/instances')).text.includes(`"${name}"`), `${name} was created`);

/** Create requests the server received for this hostname. */
const createsOf = (emu: Emulator, name: string) =>
  emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances' && r.body?.includes(`"${name}"`));

/** Instances the server holds with this hostname. */
async function instancesNamed(emu: Emulator, env: Record<string, string>, name: string): Promise<number> {
  const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, timeoutMs: 90_000 });
  return (JSON.parse(r.stdout) as { hostname: string }[]).filter((i) => i.hostname === name).length;
}

test('kill -9 while a create is in flight, then --resume: the instance exists exactly once and the create is not sent again', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The server acts after the client died: the create is held until the killed CLI has exited.
    const held = holdCreates(emu);
    await applyAndKill(emu, env, home, 'SIGKILL');
    held.release();
    await created(emu, 'once-1');

    const again = await runCli(['ask', '--apply'], { env, home, input: plan, timeoutMs: 90_000 });
    assert.is(again.code, 3, 'a plain re-apply is refused: it would repeat completed steps');
    assert.match(again.stderr, /--resume/);

    const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json'], { env, home, input: plan, timeoutMs: 90_000 });
    assert.is(resumed.code, 0, resumed.stderr);
    const report = JSON.parse(resumed.stdout);
    assert.is(report.status, 'succeeded');
    assert.is(createsOf(emu, 'once-1').length, 1, 'exactly one create request reached the server');
    assert.is(await instancesNamed(emu, env, 'once-1'), 1, 'exactly one instance exists');
    const gets = emu.requests().filter((r) => r.method === 'GET' && r.path === `/v1/instances/${report.bindings.INSTANCE_ID}`);
    assert.is(gets.length, 1, 'the resumed run read back the adopted instance');
  });
});

test('kill -9 after the write that records one create done and the next started, before that next create is sent: --resume sends neither twice', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const body = (hostname: string) =>
      JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] });
    const two = JSON.stringify({
      version: 1,
      provider: 'gpucloud',
      commands: ['batch-a', 'batch-b'].map((h) => ({ args: ['gpucloud-api', 'POST', '/v1/instances', body(h)], reason: `create ${h}` })),
    });
    // One create per ten minutes on the client: the second create's `started` is written (in the same
    // write as the first's `done`), then its request waits in the limiter, unsent, while the test kills it.
    const slow = configFile('gpucloud:\n  rate_limit:\n    per_path: 1\n    window_ms: 600000\n');
    const child = spawn(process.execPath, [BIN, 'ask', '--apply', '--config', slow, '--timeout', '900'], { env: { ...process.env, ...env, HOME: home, NO_COLOR: '1' }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(two);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const runs = join(home, '.assistant', 'runs');
    const journal = () => (existsSync(runs) ? readdirSync(runs).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(runs, f), 'utf8')).join('') : '');
    await until(() => /"type":"started","index":1\b/.test(journal()), 'the second create was recorded as started');
    assert.is(createsOf(emu, 'batch-b').length, 0, 'the second create was not sent');
    child.kill('SIGKILL');
    await exited;
    const entries = journal().trim().split('\n').map((l) => JSON.parse(l) as { type: string; index?: number });
    assert.ok(entries.some((e) => e.type === 'done' && e.index === 0), 'the first create is recorded done');
    assert.ok(entries.some((e) => e.type === 'started' && e.index === 1), 'the second is recorded started');
    assert.is(createsOf(emu, 'batch-b').length, 0, 'the killed run never sent the second create');

    // The resume (default limits) does not send the first again; the second, in flight and not listed
    // once its window passed, is sent once.
    const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json'], { env, home, input: two, timeoutMs: 120_000 });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(JSON.parse(resumed.stdout).status, 'succeeded');
    assert.is(createsOf(emu, 'batch-a').length, 1, 'the first create reached the server once');
    assert.is(createsOf(emu, 'batch-b').length, 1, 'the second create reached the server once');
    assert.is(await instancesNamed(emu, env, 'batch-a'), 1);
    assert.is(await instancesNamed(emu, env, 'batch-b'), 1);
  });
});

test('SIGINT during a run exits 130, keeps the journal, and --resume completes it', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const held = holdCreates(emu); // the answer comes after the interrupt, however long the CLI takes to act on it
    const code = await applyAndKill(emu, env, home, 'SIGINT');
    held.release();
    assert.is(code, 130);
    await created(emu, 'once-1');
    const resumed = await runCli(['ask', '--apply', '--resume'], { env, home, input: plan });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(createsOf(emu, 'once-1').length, 1);
    assert.is(await instancesNamed(emu, env, 'once-1'), 1);
  });
});

test('--resume of a plan that never ran here is refused (a journal belongs to one plan)', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['ask', '--apply', '--resume'], { env, input: plan, timeoutMs: 90_000 });
    assert.is(r.code, 2);
    assert.match(r.stderr, /error: nothing_to_resume:/);
  });
});

test('--fresh discards an unfinished journal and starts over (a name the first run created needs --allow-duplicate-names)', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    emu.addFault({ method: 'GET', path: '/v1/instances/*', status: 404, times: 1 });
    const failed = await runCli(['ask', '--apply'], { env, home, input: plan, timeoutMs: 90_000 });
    assert.is(failed.code, 1);
    const refused = await runCli(['ask', '--apply', '--fresh'], { env, home, input: plan, timeoutMs: 90_000 });
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /step 1 creates instance "once-1", which already exists/);
    const fresh = await runCli(['ask', '--apply', '--fresh', '--allow-duplicate-names'], { env, home, input: plan, timeoutMs: 90_000 });
    assert.is(fresh.code, 0, fresh.stderr);
    assert.is(await instancesNamed(emu, env, 'once-1'), 2);
  });
});

test.run();
