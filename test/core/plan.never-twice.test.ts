/**
 * Never paying twice (issue 9 §1), end to end: the real CLI in child processes against the emulator.
 * Concurrent runs of one plan, a plan applied twice, names that already exist, and a `produces` that
 * fails after its create.
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { BIN, childEnv, cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const LONG = { timeoutMs: 90_000 };

const createStep = (hostname: string, produces: Record<string, string> = { INSTANCE_ID: '$.id' }) => ({
  args: [
    'gpucloud-api',
    'POST',
    '/v1/instances',
    JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] }),
  ],
  reason: `create ${hostname}`,
  produces,
});

const planOf = (...commands: object[]) => JSON.stringify({ version: 1, provider: 'gpucloud', commands });

const createsOf = (emu: Emulator, name: string) =>
  emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances' && r.body?.includes(`"${name}"`));

async function instancesNamed(env: Record<string, string>, name: string): Promise<string[]> {
  const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, ...LONG });
  return (JSON.parse(r.stdout) as { id: string; hostname: string }[]).filter((i) => i.hostname === name).map((i) => i.id);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `ask --apply <args>` in the background; resolves once the emulator has received the create. */
async function startApply(emu: Emulator, env: Record<string, string>, home: string, plan: string, args: string[] = []) {
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', ...args], { env: childEnv(home, env), stdio: ['pipe', 'pipe', 'pipe'], cwd: home });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  child.stdin.end(plan);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  for (let i = 0; i < 3000 && !emu.requests().some((r) => r.method === 'POST' && r.path === '/v1/instances'); i++) await sleep(20);
  return { child, exited, stderr: () => stderr };
}

test('a second apply or resume of a plan that is running is refused (exit 3) naming the other run; the first completes alone', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const plan = planOf(createStep('lock-1'), { args: ['gpucloud-api', 'GET', '/v1/instances/<INSTANCE_ID>'], reason: 'read it back' });
    // Keeps the first run busy until the two CLI runs below were refused, however slow they start: the
    // server holds its create until then (--timeout keeps the first run's request waiting that long).
    let release!: () => void;
    emu.addFault({ method: 'POST', path: '/v1/instances', until: new Promise<void>((resolve) => (release = resolve)) });
    const first = await startApply(emu, env, home, plan, ['--timeout', '600']);

    const second = await runCli(['ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(second.code, 3, second.stderr);
    assert.match(second.stderr, new RegExp(`error: refused: another run of this plan is in progress \\(pid ${first.child.pid} `));
    const resumed = await runCli(['ask', '--apply', '--resume'], { env, home, input: plan, ...LONG });
    assert.is(resumed.code, 3, resumed.stderr);
    assert.match(resumed.stderr, /another run of this plan is in progress/);
    assert.is(first.child.exitCode, null, 'the first run was still running during both refusals');
    release();

    assert.is(await first.exited, 0, first.stderr());
    assert.is(createsOf(emu, 'lock-1').length, 1, 'one create reached the server');
    assert.is((await instancesNamed(env, 'lock-1')).length, 1);
  });
});

test('the lock of a run killed with -9 is recovered: --resume proceeds and the instance exists once', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const plan = planOf(createStep('stale-1'));
    emu.addFault({ method: 'POST', path: '/v1/instances', delayMs: 1500 });
    const run = await startApply(emu, env, home, plan);
    run.child.kill('SIGKILL');
    await run.exited;
    const resumed = await runCli(['ask', '--apply', '--resume'], { env, home, input: plan, ...LONG });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /lock of an earlier run \(pid \d+, no longer running\)/);
    assert.is(createsOf(emu, 'stale-1').length, 1);
    assert.is((await instancesNamed(env, 'stale-1')).length, 1);
  });
});

test('kill -9 during a create of a name that already existed (allowed): --resume adopts the new instance, not the older one, and is no conflict', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const [older] = await instancesNamed(env, 'demo-a100');
    const plan = planOf(createStep('demo-a100'));
    emu.addFault({ method: 'POST', path: '/v1/instances', delayMs: 1500 });
    const run = await startApply(emu, env, home, plan, ['--allow-duplicate-names']);
    run.child.kill('SIGKILL');
    await run.exited;
    for (let i = 0; i < 300 && (await instancesNamed(env, 'demo-a100')).length < 2; i++) await sleep(100); // the server finishes the create

    // No --allow-duplicate-names now: the in-flight step is ours (the journal's snapshot says which ID was not).
    const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json'], { env, home, input: plan, ...LONG });
    assert.is(resumed.code, 0, resumed.stderr);
    const report = JSON.parse(resumed.stdout);
    const all = await instancesNamed(env, 'demo-a100');
    assert.is(all.length, 2);
    assert.is(createsOf(emu, 'demo-a100').length, 1);
    assert.is.not(report.bindings.INSTANCE_ID, older);
    assert.ok(all.includes(report.bindings.INSTANCE_ID));
    assert.is(report.steps[0].deduplicated, true);
  });
});

test('two --resume runs of one plan started together end 0 and 3 (or 0 and 0), never 2, however their timing falls; the rest runs once', async () => {
  await withEmulator(async ({ emu, env }) => {
    for (let round = 0; round < 4; round++) {
      const home = tempHome();
      const name = `together-${round}`;
      const plan = planOf(createStep(name), { args: ['gpucloud-api', 'GET', '/v1/instances/<INSTANCE_ID>'], reason: 'read it back' });
      // The read-back fails once: the run stops after its create, leaving an unfinished journal.
      emu.addFault({ method: 'GET', path: '/v1/instances/*', status: 404, times: 1 });
      const failed = await runCli(['ask', '--apply'], { env, home, input: plan, ...LONG });
      assert.is(failed.code, 1, failed.stderr);
      const readsBefore = emu.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/v1/instances/')).length;
      const both = await Promise.all([0, 1].map(() => runCli(['ask', '--apply', '--resume'], { env, home, input: plan, ...LONG })));
      const codes = both.map((r) => r.code).sort();
      assert.ok(codes[0] === 0 && (codes[1] === 3 || codes[1] === 0), `round ${round}: exit codes ${codes.join(' and ')}\n${both.map((r) => r.stderr).join('\n---\n')}`);
      for (const r of both.filter((x) => x.code === 3)) assert.match(r.stderr, /error: refused: (another run of this plan is in progress|there is nothing to resume: this plan was already applied at)/);
      const reads = emu.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/v1/instances/')).length - readsBefore;
      assert.is(reads, codes[1] === 0 ? 2 : 1, `round ${round}: the remaining step ran ${reads} times`);
      assert.is(createsOf(emu, name).length, 1, `round ${round}: one create`);
    }
  });
});

test('a finished plan applied again is refused (exit 3, already applied at <time>, nothing sent); --fresh runs it again on purpose', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const plan = planOf(createStep('again-1'));
    const first = await runCli(['ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(first.code, 0, first.stderr);
    const sentBefore = emu.requests().length;

    const again = await runCli(['ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(again.code, 3);
    assert.match(again.stderr, /error: refused: this plan was already applied at \d{4}-\d\d-\d\dT[\d:.]+Z/);
    assert.match(again.stderr, /hint: .*--fresh/);
    assert.is(emu.requests().length, sentBefore, 'nothing was sent, not even a GET');

    // --fresh is still subject to the live duplicate-name check…
    const fresh = await runCli(['ask', '--apply', '--fresh'], { env, home, input: plan, ...LONG });
    assert.is(fresh.code, 3);
    assert.match(fresh.stderr, /step 0 creates instance "again-1", which already exists/);
    // …and with --allow-duplicate-names it really runs again.
    const freshAllowed = await runCli(['ask', '--apply', '--fresh', '--allow-duplicate-names'], { env, home, input: plan, ...LONG });
    assert.is(freshAllowed.code, 0, freshAllowed.stderr);
    assert.is((await instancesNamed(env, 'again-1')).length, 2);
  });
});

test('a create whose name exists in the project is refused before anything is sent (exit 3, step and existing ID); --allow-duplicate-names permits it', async () => {
  await withEmulator(async ({ emu, env }) => {
    const [existing] = await instancesNamed(env, 'demo-a100'); // made outside any plan (the console, another machine)
    const plan = planOf({ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }, createStep('demo-a100'));
    const refused = await runCli(['ask', '--apply'], { env, input: plan, ...LONG });
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, new RegExp(`step 1 creates instance "demo-a100", which already exists \\(${existing}\\)`));
    assert.match(refused.stderr, /--allow-duplicate-names/);
    assert.is(createsOf(emu, 'demo-a100').length, 0);
    assert.ok(!emu.requests().some((r) => r.path === '/v1/balance'), 'not even the first step ran');

    const allowed = await runCli(['ask', '--apply', '--allow-duplicate-names'], { env, input: plan, ...LONG });
    assert.is(allowed.code, 0, allowed.stderr);
    assert.is((await instancesNamed(env, 'demo-a100')).length, 2);
  });
});

test('a name bound at run time is checked before its create is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const [id] = await instancesNamed(env, 'demo-cpu');
    const plan = planOf({ args: ['gpucloud-api', 'GET', `/v1/instances/${id}`], reason: 'read a name', produces: { HOST: '$.hostname' } }, createStep('<HOST>'));
    const r = await runCli(['ask', '--apply'], { env, input: plan, ...LONG });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`step 1 creates instance "demo-cpu", which already exists \\(${id}\\)`));
    assert.is(createsOf(emu, 'demo-cpu').length, 0);
  });
});

test('dry-run reports a name that already exists (warning and duplicate_names); one list of the kind, exit 3', async () => {
  await withEmulator(async ({ emu, env }) => {
    const [existing] = await instancesNamed(env, 'demo-a100');
    const before = emu.requests().length;
    const plan = planOf(createStep('demo-a100'), createStep('fresh-name'));
    const r = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env, input: plan, ...LONG });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /warning: step 0 creates instance "demo-a100", which already exists/);
    assert.equal(JSON.parse(r.stdout).duplicate_names, [{ index: 0, kind: 'instance', name: 'demo-a100', existing_ids: [existing] }]);
    const lists = emu.requests().slice(before).filter((q) => q.method === 'GET' && q.path === '/v1/instances');
    assert.is(lists.length, 1);
    assert.ok(!emu.requests().some((q) => q.method === 'POST' && q.path === '/v1/instances'));
  });
});

test('a plan creating one name twice is invalid (exit 2); an invalid JSONPath is a validation error', async () => {
  const twice = await runCli(['plan', 'validate'], { input: planOf(createStep('twin'), createStep('twin')), ...LONG });
  assert.is(twice.code, 2);
  assert.match(twice.stderr + twice.stdout, /command 1 \(args\[3\]\.hostname\): creates instance "twin" again \(command 0 creates it too\)/);
  const badPath = await runCli(['plan', 'validate'], { input: planOf(createStep('p1', { ID: '$.items[0' })), ...LONG });
  assert.is(badPath.code, 2);
  assert.match(badPath.stderr + badPath.stdout, /command 0 \(produces\.ID\): invalid JSONPath "\$\.items\[0": missing "\]"/);
});

test('a produces that fails after its create: the report names what was created, --resume adopts it, --fresh would not duplicate it', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const plan = planOf(createStep('made-1', { IP: '$.ip_address' }));
    const failed = await runCli(['ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(failed.code, 1, failed.stderr);
    const [id] = await instancesNamed(env, 'made-1');
    assert.ok(id);
    assert.not.match(failed.stdout, /nothing was changed/);
    assert.match(failed.stdout, new RegExp(`already changed: step 0 changed something before it failed \\(created ${id}\\)`));
    assert.match(failed.stderr, new RegExp(`error: produces_failed: .*created ${id}`));

    const json = await runCli(['ask', '--apply', '--resume', '-o', 'json'], { env, home, input: plan, ...LONG });
    const step = JSON.parse(json.stdout).steps[0];
    assert.is(step.changed, true);
    assert.is(step.created, id);
    assert.is(createsOf(emu, 'made-1').length, 1, '--resume adopted the instance instead of creating it again');

    const fresh = await runCli(['ask', '--apply', '--fresh'], { env, home, input: plan, ...LONG });
    assert.is(fresh.code, 3);
    assert.is(createsOf(emu, 'made-1').length, 1);
    assert.is((await instancesNamed(env, 'made-1')).length, 1);
  });
});

test('a plan of several creates lists the kind once: the pre-flight snapshot serves every create', async () => {
  await withEmulator(async ({ emu, env }) => {
    const plan = planOf(createStep('many-1', {}), createStep('many-2', {}), createStep('many-3', {}));
    const r = await runCli(['ask', '--apply'], { env, input: plan, ...LONG });
    assert.is(r.code, 0, r.stderr);
    const calls = emu.requests().filter((q) => q.path === '/v1/instances').map((q) => q.method);
    assert.equal(calls, ['GET', 'POST', 'POST', 'POST']);
  });
});

test.run();
