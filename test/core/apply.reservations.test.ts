/**
 * Cross-process name reservations (issue 22 §3): two processes applying *different* plans that create
 * the same hostname at the same moment make exactly one instance — also when the names differ only in
 * case (`RACE-3` and `race-3`). The one that loses is refused before it sends anything (exit 3, naming
 * the name), or finds the winner's instance when it lists (exit 3, the name exists). A holder killed
 * with -9 does not block the name for ever.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { BIN, cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { startRedis } from '../support/redis.js';
import { callTool, connectHttp, startMcpServer, textOf } from '../support/mcp.js';
import { emulatorEnv } from '../support/cli.js';
import { fileReservations, reservationId, type NameKey } from '../../engine/core/plan/reservations.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const REPEAT = 20;

const createPlan = (hostname: string, description: string) =>
  JSON.stringify({
    version: 1,
    provider: 'gpucloud',
    summary: description,
    commands: [
      {
        args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description, location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
        reason: description,
      },
    ],
  });

test(`two processes applying different plans that create the same hostname (or X and x) make exactly one instance, ${REPEAT} times out of ${REPEAT}`, async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome(); // one machine: the same ~/.assistant for both
    for (let i = 0; i < REPEAT; i++) {
      const a = `race-${i}`;
      const b = i % 2 ? a.toUpperCase() : a;
      const [one, two] = await Promise.all([
        runCli(['ask', '--apply'], { env, home, input: createPlan(a, `plan A ${i}`) }),
        runCli(['ask', '--apply'], { env, home, input: createPlan(b, `plan B ${i}`) }),
      ]);
      const codes = [one.code, two.code].sort();
      assert.equal(codes, [0, 3], `round ${i}: ${one.stderr}\n---\n${two.stderr}`);
      const loser = one.code === 3 ? one : two;
      assert.match(loser.stderr, new RegExp(`"${a}"|"${b}"`, 'i'));
      const made = emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances' && JSON.parse(q.body ?? '{}').hostname?.toLowerCase() === a);
      assert.is(made.length, 1, `round ${i}: ${made.length} creates of ${a}`);
    }
  });
});

test('a holder killed with -9 while it holds a reservation frees the name: the next apply waits it out and goes on', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The first create answers late, so its process is killed while it holds the name (and the journal lock).
    emu.addFault({ method: 'POST', path: '/v1/instances', delayMs: 60_000 });
    const child = spawn(process.execPath, [BIN, 'ask', '--apply'], { env: { ...process.env, ...env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(createPlan('killed-9', 'the plan that dies'));
    let stderr = '';
    await new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => ((stderr += d.toString()), /POST \/v1\/instances/.test(stderr) && resolve())));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    emu.clearFaults();
    const next = await runCli(['ask', '--apply', '-o', 'json'], { env, home, input: createPlan('killed-9', 'another plan, same name') });
    // The dead process's request never reached the handler (it was delayed before it), so the name is free.
    assert.is(next.code, 0, next.stderr);
    assert.is(JSON.parse(next.stdout).status, 'succeeded');
  });
});

/**
 * A run killed with SIGKILL while the server holds its `method path` request: the request is held (a fault)
 * until the returned function releases it, the run is started and killed once the server has seen it.
 */
async function killedWhileHeld(emu: Emulator, env: Record<string, string>, home: string, plan: string, method: string, path: string): Promise<() => void> {
  let release!: () => void;
  emu.addFault({ method, path, until: new Promise<void>((resolve) => (release = resolve)) });
  const child = spawn(process.execPath, [BIN, 'ask', '--apply'], { env: { ...process.env, ...env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(plan);
  child.stdout.resume();
  child.stderr.resume();
  const closed = new Promise((resolve) => child.on('close', resolve));
  const seen = () => emu.requests().some((q) => q.method === method && q.path === path);
  while (!seen() && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGKILL');
  await closed;
  return release;
}

const postsOf = (emu: Emulator, name: string) => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances' && JSON.parse(q.body ?? '{}').hostname?.toLowerCase() === name);

/** `ask --apply` of `plan` in the background, with its stderr as it comes and its exit. */
function applyInBackground(env: Record<string, string>, home: string, plan: string, args: string[] = []) {
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', ...args], { env: { ...process.env, ...env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(plan);
  child.stdout.resume();
  let stderr = '';
  const seen: { re: RegExp; resolve: () => void }[] = [];
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const s of seen) if (s.re.test(stderr)) s.resolve();
  });
  const code = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    code,
    stderr: () => stderr,
    /** Resolves once stderr matches `re` (or the process ended without it). */
    saw: (re: RegExp) => Promise.race([new Promise<void>((resolve) => (re.test(stderr) ? resolve() : seen.push({ re, resolve }))), code.then(() => undefined)]),
  };
}

test('a different plan creating the same name right after a kill -9 looks for the dead run\'s create until its window passed: it appears, the second plan is refused (exit 3), one instance', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The server holds the dead run's create until the second plan is looking for it, then makes it.
    const make = await killedWhileHeld(emu, env, home, createPlan('inflight-9', 'the plan that dies'), 'POST', '/v1/instances');
    const next = applyInBackground(env, home, createPlan('INFLIGHT-9', 'another plan, same name'));
    await next.saw(/may have had a create of instances? "INFLIGHT-9" in flight/);
    make();
    assert.is(await next.code, 3, next.stderr());
    assert.match(next.stderr(), /may have had a create of instances? "INFLIGHT-9" in flight/);
    assert.match(next.stderr(), /inflight-9/i);
    assert.is(postsOf(emu, 'inflight-9').length, 1, 'only the dead run\'s create reached the server');
    const list = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home });
    assert.is((JSON.parse(list.stdout) as { hostname: string }[]).filter((i) => i.hostname.toLowerCase() === 'inflight-9').length, 1);
  });
});

test('the same plan again (--fresh) right after a kill -9 waits for the name its dead run had in flight and for no other of its names: it appears, the run is refused (exit 3), one instance, the other name never sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const step = (hostname: string) => (JSON.parse(createPlan(hostname, 'two names')) as { commands: unknown[] }).commands[0];
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', summary: 'two names', commands: [step('fresh-a-9'), step('fresh-b-9')] });
    // The dead run's create of fresh-a-9 is held until the second run is looking for it; fresh-b-9 was never sent.
    const make = await killedWhileHeld(emu, env, home, plan, 'POST', '/v1/instances');
    const again = applyInBackground(env, home, plan, ['--fresh']);
    await again.saw(/may have had a create of instances? "fresh-a-9" in flight/);
    make();
    assert.is(await again.code, 3, again.stderr());
    assert.match(again.stderr(), /creates instances? "fresh-a-9", which already exists/);
    assert.not.match(again.stderr(), /"fresh-b-9" in flight/, 'the dead run journaled fresh-a-9 in flight: fresh-b-9 is not waited for');
    assert.is(postsOf(emu, 'fresh-a-9').length, 1, 'only the dead run\'s create reached the server');
    assert.is(postsOf(emu, 'fresh-b-9').length, 0);
  });
});

test('the wait for a dead run\'s create obeys the command\'s deadline: --timeout ends it with exit 1 (timeout), and nothing is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The dead run's create is held for the whole test: its window (30 s from when it was sent) outlasts the deadline below.
    const never = await killedWhileHeld(emu, env, home, createPlan('deadline-9', 'the plan that dies'), 'POST', '/v1/instances');
    const next = await runCli(['ask', '--apply', '--timeout', '20'], { env, home, input: createPlan('deadline-9', 'another plan, same name') });
    never();
    assert.is(next.code, 1, next.stderr);
    assert.match(next.stderr, /may have had a create of instances? "deadline-9" in flight/);
    assert.match(next.stderr, /error: timeout: /);
    assert.is(postsOf(emu, 'deadline-9').length, 1, 'only the dead run\'s create reached the server');
  });
});

test('a reservation taken over from a run killed before it sent its create is free at once: no wait, one instance', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The dead run is held in its name check (the list after reserving): it dies holding the name, having sent nothing.
    const release = await killedWhileHeld(emu, env, home, createPlan('never-sent-9', 'the plan that dies'), 'GET', '/v1/instances');
    release();
    const next = await runCli(['ask', '--apply', '-o', 'json'], { env, home, input: createPlan('never-sent-9', 'another plan, same name') });
    assert.is(next.code, 0, next.stderr);
    assert.match(next.stderr, /took over the reservation of instances? "never-sent-9" by a run that died/);
    assert.not.match(next.stderr, /may have had a create/);
    assert.is(postsOf(emu, 'never-sent-9').length, 1);
  });
});

test('a run killed with -9 holding two names leaves both taken-over-able: each of two later plans takes its one over (told so), none waits, one instance each', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The dead run is held in its name check: it dies having reserved both names (in one write) and sent nothing.
    const two = JSON.stringify({ version: 1, provider: 'gpucloud', summary: 'the plan that dies', commands: [JSON.parse(createPlan('pair-a', 'a')).commands[0], JSON.parse(createPlan('pair-b', 'b')).commands[0]] });
    const release = await killedWhileHeld(emu, env, home, two, 'GET', '/v1/instances');
    release();
    for (const name of ['pair-b', 'pair-a']) {
      const next = await runCli(['ask', '--apply', '-o', 'json'], { env, home, input: createPlan(name, `another plan for ${name}`) });
      assert.is(next.code, 0, next.stderr);
      assert.match(next.stderr, new RegExp(`took over the reservation of instances? "${name}" by a run that died`));
      assert.not.match(next.stderr, /may have had a create/);
      assert.is(postsOf(emu, name).length, 1);
    }
  });
});

test('the reservations guard left by a process killed with -9 blocks nothing: the next apply takes it over at once and creates the name once', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.on('close', resolve));
    const dir = join(home, '.assistant', 'reservations');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.guard.lock'), JSON.stringify({ pid: gone.pid, host: hostname(), started_at: new Date().toISOString() }) + '\n');
    // Fresh for the next hour: only the dead pid can free it, not its age (a wait for staleness would
    // outlast the apply's guard wait and fail it), so this proves the take-over is at once.
    const hourAhead = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, '.guard.lock'), hourAhead, hourAhead);
    const next = await runCli(['ask', '--apply', '-o', 'json'], { env, home, input: createPlan('guard-9', 'after a dead guard') });
    assert.is(next.code, 0, next.stderr);
    assert.is(postsOf(emu, 'guard-9').length, 1);
    assert.equal(readdirSync(dir), [], 'the guard and the run\'s name set are gone');
  });
});

test('a plan refused for a name a live run holds leaves the name sets of dead runs as they were (their in-flight creates are still waited for by the next taker)', async () => {
  const home = tempHome();
  const dir = join(home, '.assistant', 'reservations');
  mkdirSync(dir, { recursive: true });
  const gone = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => gone.on('close', resolve));
  const key = (name: string): NameKey => ({ provider: 'gpucloud', scope: 'default', kind: 'instance', name });
  // Twenty runs that died (kill -9), each holding one name, beside one live run holding another: the
  // directory's order decides which set is read first, so before the fix nearly every order struck some.
  const deadNames = Array.from({ length: 20 }, (_, i) => `dead-${i}`);
  deadNames.forEach((name, i) =>
    writeFileSync(join(dir, `${gone.pid}-dead-${i}.names`), JSON.stringify({ pid: gone.pid, host: hostname(), started_at: new Date().toISOString(), journal: join(home, 'none.jsonl'), names: [reservationId(key(name))] }) + '\n'),
  );
  const store = fileReservations(home);
  const live = store.forRun({ label: 'the live run', journal: join(home, 'live.jsonl') });
  await live.reserve(key('live-1'));
  const plan = store.forRun({ label: 'a plan creating all of them', journal: join(home, 'plan.jsonl') });
  const refused = await plan.reserveMany([...deadNames, 'live-1'].map(key)).then(
    () => undefined,
    (err: Error) => err,
  );
  assert.match(String(refused?.message), /live-1.*the live run/);
  for (const [i, name] of deadNames.entries()) {
    const set = JSON.parse(readFileSync(join(dir, `${gone.pid}-dead-${i}.names`), 'utf8')) as { names: string[] };
    assert.equal(set.names, [reservationId(key(name))], `the dead run's set ${i} is untouched`);
  }
  // The refused plan wrote no set of its own; the live run's names go at its end.
  await live.releaseAll();
  assert.equal(readdirSync(dir).filter((f) => !f.startsWith(`${gone.pid}-`)), []);
});

test('through Redis, processes on two machines (two homes) reserve the same name: one instance in 10 rounds; Redis down falls back to this machine with a warning', async () => {
  const redis = await startRedis({ password: 'pw-Never-Shown' });
  try {
    await withEmulator(async ({ emu, env }) => {
      const machines = [tempHome(), tempHome()];
      const withRedis = { ...env, ASSISTANT_REDIS_URL: redis.url };
      for (let i = 0; i < 10; i++) {
        const name = `redis-race-${i}`;
        const runs = await Promise.all(machines.map((home, m) => runCli(['ask', '--apply'], { env: withRedis, home, input: createPlan(m ? name.toUpperCase() : name, `machine ${m} round ${i}`) })));
        assert.equal(runs.map((r) => r.code).sort(), [0, 3], runs.map((r) => r.stderr).join('\n---\n'));
        const made = emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances' && JSON.parse(q.body ?? '{}').hostname?.toLowerCase() === name);
        assert.is(made.length, 1, `round ${i}`);
        for (const r of runs) assert.not.match(r.stderr + r.stdout, /pw-Never-Shown/);
      }
      await redis.kill();
      const down = await runCli(['ask', '--apply'], { env: withRedis, home: machines[0], input: createPlan('after-redis', 'redis is gone') });
      assert.is(down.code, 0, down.stderr);
      assert.match(down.stderr, /warning: redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+ unreachable; reserving names on this machine only/);
      assert.not.match(down.stderr, /pw-Never-Shown/);
    });
  } finally {
    await redis.stop();
  }
});

test('through MCP, two agents applying different plans for one name at once get one instance; the budget guard refuses over the server\'s limit', async () => {
  await withEmulator(async ({ emu }) => {
    const home = tempHome();
    const config = `${home}/c.yaml`;
    writeFileSync(config, 'budget:\n  max_hourly: 2.0\n', { mode: 0o600 });
    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(emu), home, globalArgs: ['--config', config] });
    const [a, b] = [await connectHttp(server.url), await connectHttp(server.url)];
    try {
      const plans = [createPlan('mcp-race', 'agent A'), createPlan('MCP-RACE', 'agent B')].map((p) => JSON.parse(p));
      const results = await Promise.all([callTool(a, 'assistant_plan_apply', { plan: plans[0] }), callTool(b, 'assistant_plan_apply', { plan: plans[1] })]);
      assert.equal(results.map((r) => Boolean(r.isError)).sort(), [false, true], results.map(textOf).join('\n---\n'));
      assert.is(emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 1);
      // Demo burn 1.50 + 0.42 for mcp-race = 1.92/h; another 1V100.6V would pass 2.0/h.
      const over = await callTool(a, 'assistant_plan_apply', { plan: JSON.parse(createPlan('mcp-over', 'over budget')) });
      assert.ok(over.isError);
      assert.match(textOf(over), /budget_exceeded/);
      assert.is(emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 1, 'nothing more was created');
    } finally {
      await a.close();
      await b.close();
      await server.stop();
    }
  });
});

test.run();
