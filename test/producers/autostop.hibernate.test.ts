/**
 * Auto-stop that stops the bill (issue 35 item 6), end to end through the real CLI against the emulator:
 * an idle instance with a hibernate policy is hibernated by `autostop check` (its volumes kept, its
 * machine's price gone from the burn, what that saves listed by `cost summary`), and `autostop resume`
 * restores it exactly once (one instance, the same volumes) — also with two resumes at once, a kill -9
 * at each step, a restore the API answers slowly, no capacity to restore, and a volume delete attempted
 * while it sleeps.
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Emulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { actions, closeAutostopFixtures, rowsOf, withInstances, type AutostopWorld } from '../support/autostop.js';
import { BIN, childEnv, cliInThisProcess, type CliResult, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

test.after(closeAutostopFixtures);

const HIBERNATE = ['--autostop', '30m', '--autostop-action', 'hibernate'];
const ALLOW = { autostop: '  allow_hibernate: true\n' };
const ONE = 'create a 1V100.6V instance called idle-1 in FIN-01';
/** The emulator's 1V100.6V on-demand price. */
const V100 = 0.39;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Rec = { id: string; hostname: string; status: string; os_volume_id: string | null; volume_ids: string[]; ip: string | null };
async function instancesNamed(emu: Emulator, hostname: string): Promise<Rec[]> {
  const { json } = await emulatorClient(emu).call('GET', '/v1/instances');
  return (json as Rec[]).filter((i) => i.hostname === hostname);
}
const volumesOf = (i: Rec) => [i.os_volume_id, ...[...i.volume_ids].sort()];
/** The restores the emulator carried out (202) and refused. */
const restores = (emu: Emulator) => emu.requests().filter((q) => q.method === 'PUT' && q.path === '/v1/instances' && JSON.parse(q.body!).action === 'restore');
const costJson = async (w: AutostopWorld) => {
  const r = await runCli(['cost', 'summary', '-o', 'json'], { env: w.env, home: w.home });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { hourly_cost: number; resources: { kind: string; id: string; hourly_cost: number }[]; autostop_saved?: { total: number; per_hour_now: number; periods: { name: string; still_hibernated: boolean; hours: number; price_per_hour: number }[] } };
};

/** Shuts idle-1 down, attaches a new 100 GB data volume, starts it again: an instance with two volumes. */
async function withDataVolume(emu: Emulator): Promise<void> {
  const c = emulatorClient(emu);
  const [inst] = await instancesNamed(emu, 'idle-1');
  assert.is((await c.call('PUT', '/v1/instances', { action: 'shutdown', id: inst!.id })).status, 202);
  const made = await c.call('POST', '/v1/volumes', { type: 'NVMe', name: 'idle-1-data', size: 100, location_code: 'FIN-01', instance_id: inst!.id });
  assert.is(made.status, 202, made.text);
  for (let i = 0; i < 200 && (await instancesNamed(emu, 'idle-1'))[0]!.volume_ids.length === 0; i++) await sleep(20);
  assert.is((await c.call('PUT', '/v1/instances', { action: 'start', id: inst!.id })).status, 202);
}

/** Hibernates idle-1 through `autostop check` and returns its record from before. */
async function hibernated(w: AutostopWorld): Promise<Rec> {
  const [before] = await instancesNamed(w.emu, 'idle-1');
  const r = await runCli(['autostop', 'check', '-o', 'json'], { env: w.env, home: w.home });
  assert.is(r.code, 0, r.stderr);
  assert.is(rowsOf(r)['idle-1']!.decision, 'hibernate');
  assert.is((await instancesNamed(w.emu, 'idle-1'))[0]!.status, 'hibernating');
  return before!;
}

/** `autostop resume …` in the background; resolves once `ready` holds on the emulator's request log. */
async function startResume(w: AutostopWorld, args: string[], ready: () => boolean) {
  const child = spawn(process.execPath, [BIN, 'autostop', 'resume', ...args], { env: childEnv(w.home, w.env), stdio: ['ignore', 'pipe', 'pipe'], cwd: w.home });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code, sig) => resolve(code ?? (sig ? -1 : null))));
  for (let i = 0; i < 6000 && !ready() && child.exitCode === null; i++) await sleep(20);
  assert.ok(ready(), `the resume never got there: ${stderr}`);
  return { child, exited, stderr: () => stderr };
}

const resumeJson = (r: CliResult) => JSON.parse(r.stdout) as { sent: string | null; status_before: string; status_after: string; detail: string; volumes: { before: string[]; after: string[]; same: boolean } };

test('idle → hibernated (volumes kept, the machine gone from the burn, the saving listed) → restored (same volumes, one instance); again: nothing sent', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    await withDataVolume(w.emu);
    const burnBefore = await costJson(w);
    const before = await hibernated(w);
    assert.equal(actions(w.emu).map((a) => a.action), ['shutdown', 'start', 'hibernate'], 'the setup\'s shutdown and start, then the check\'s one hibernate');

    const [sleeping] = await instancesNamed(w.emu, 'idle-1');
    assert.equal(volumesOf(sleeping!), volumesOf(before), 'its volumes are kept');
    assert.is(sleeping!.ip, null, 'the machine (and its address) released');
    const during = await costJson(w);
    assert.not.ok(during.resources.some((r) => r.kind === 'instance' && r.id === before.id), 'the machine is not in the burn');
    for (const v of volumesOf(before)) assert.ok(during.resources.some((r) => r.kind === 'volume' && r.id === v), `volume ${v} still bills`);
    assert.ok(Math.abs(burnBefore.hourly_cost - during.hourly_cost - V100) < 1e-9, `the burn fell by the machine's price: ${burnBefore.hourly_cost} → ${during.hourly_cost}`);
    assert.is(during.autostop_saved?.per_hour_now, V100);
    assert.is(during.autostop_saved?.periods[0]?.still_hibernated, true);
    const table = await runCli(['cost', 'summary'], { env: w.env, home: w.home });
    assert.match(table.stdout, /\nAuto-stop saved: \d+\.\d\d USD by hibernating idle instances; saving 0\.3900 USD\/hour now \(1 hibernated\)\n {2}idle-1 \(1V100\.6V\): /);

    const again = await runCli(['autostop', 'check', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(rowsOf(again)['idle-1']!.decision, 'stopped');
    assert.is(actions(w.emu).filter((a) => a.action === 'hibernate').length, 1, 'a hibernated instance is not hibernated again');

    const r = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(r.code, 0, r.stderr);
    const out = resumeJson(r);
    assert.equal([out.sent, out.status_before, out.status_after], ['restore', 'hibernating', 'running']);
    assert.equal(out.volumes.before, volumesOf(before));
    assert.equal(out.volumes.after, volumesOf(before));
    assert.is(out.volumes.same, true);
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.is(now.length, 1, 'one instance');
    assert.is(now[0]!.id, before.id, 'the same instance');
    assert.equal(volumesOf(now[0]!), volumesOf(before), 'the same volumes');

    const twice = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(twice.code, 0, twice.stderr);
    assert.equal([resumeJson(twice).sent, resumeJson(twice).detail], [null, 'already running; nothing sent']);
    assert.is(restores(w.emu).length, 1, 'one restore was sent in all');

    const after = await costJson(w);
    assert.ok(after.resources.some((r) => r.kind === 'instance' && r.id === before.id), 'billing again');
    assert.is(after.autostop_saved?.per_hour_now, 0);
    assert.is(after.autostop_saved?.periods[0]?.still_hibernated, false);
  }, ALLOW));

test('a due hibernate without autostop.allow_hibernate is refused (exit 3, a hint, nothing sent); a spot instance cannot have the policy (exit 2 at plan time)', () =>
  withInstances(ONE, HIBERNATE, async ({ emu, env, home }) => {
    const r = await runCli(['autostop', 'check'], { env, home });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /idle-1\s+42 \/ 30\s+.*refused\s+idle 42 min ≥ 30: hibernating needs autostop\.allow_hibernate: true/);
    assert.match(r.stderr, /hint: to let the check hibernate, set autostop\.allow_hibernate: true in this config/);
    assert.equal(actions(emu), []);

    const posts = emu.requests().filter((q) => q.method === 'POST').length;
    const spot = await runCli(['ask', '--maker', '--ai-profile', 'builtin', ...HIBERNATE, 'create a spot 1V100.6V instance called sp-1 in FIN-01'], { env, home });
    assert.is(spot.code, 2, spot.stderr);
    assert.match(spot.stderr, /sp-1 cannot use auto-stop by hibernation: a spot instance cannot hibernate on gpucloud/);
    assert.is(spot.stdout, '');
    assert.is(emu.requests().filter((q) => q.method === 'POST').length, posts, 'nothing was created');
  }));

test('the dry run says what each policy saves per idle hour: hibernate the machine, shutdown nothing', () =>
  withInstances(ONE, HIBERNATE, async ({ env, home }) => {
    for (const [action, saves, bills] of [['hibernate', '0.39', '0.03'], ['shutdown', '0.00', '0.42']] as const) {
      const made = await runCli(['ask', '--maker', '--ai-profile', 'builtin', '--autostop', '1h', '--autostop-action', action, 'create a 1V100.6V instance called nb-2 in FIN-01'], { env, home });
      assert.is(made.code, 0, made.stderr);
      const dry = await runCli(['ask', '--apply', '--dry-run'], { env, home, input: made.stdout });
      assert.is(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`Auto-stop \\(per hour an instance is stopped for idleness\\):\\n {2}step 1: nb-2: ${action} after 60 idle minutes: saves ${saves}/hour, still bills ${bills}/hour`), dry.stdout);
      const notes = (JSON.parse(made.stdout) as { notes: string[] }).notes.join('\n');
      assert.match(notes, action === 'hibernate' ? /autostop\.allow_hibernate: true.*autostop resume/ : /still bills, so this saves nothing/);
    }
  }));

test('two resumes at once: both end 0, one restore is sent, one instance with the same volumes', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    const before = await hibernated(w);
    const both = await Promise.all([runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home }), runCli(['autostop', 'resume', before.id, '-o', 'json'], { env: w.env, home: w.home })]);
    for (const r of both) assert.is(r.code, 0, r.stderr);
    assert.equal(both.map((r) => resumeJson(r).sent).sort(), ['restore', null].sort());
    assert.is(restores(w.emu).length, 1, JSON.stringify(restores(w.emu)));
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.equal([now.length, now[0]!.status], [1, 'running']);
    assert.equal(volumesOf(now[0]!), volumesOf(before));
  }, ALLOW));

test('two resumes at once from two homes (no shared lock): the API\'s own state change lets one restore through; both end 0', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    const before = await hibernated(w);
    const other = tempHome();
    const both = await Promise.all([runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home }), runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: other })]);
    for (const r of both) assert.is(r.code, 0, r.stderr);
    assert.is(restores(w.emu).filter((q) => q.status === 202).length, 1, JSON.stringify(restores(w.emu)));
    // The other one sent nothing, or had its restore refused and says it was brought back by another run.
    const quiet = both.map(resumeJson).find((x) => x.sent !== 'restore')!;
    assert.ok(quiet.sent === null, JSON.stringify(quiet));
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.equal([now.length, now[0]!.status], [1, 'running']);
    assert.equal(volumesOf(now[0]!), volumesOf(before));
  }, ALLOW));

/** Holds the answer to the next instance action for a long while after the API carried it out. */
const answerLate = (emu: Emulator) => emu.addFault({ method: 'PUT', path: '/v1/instances', afterHandler: true, delayMs: 120_000 });
async function until(what: string, cond: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 6000; i++) if (await cond()) return;
  else await sleep(20);
  throw new Error(`never: ${what}`);
}
const statusIs = (emu: Emulator, status: string) => async () => (await instancesNamed(emu, 'idle-1'))[0]?.status === status;

test('kill -9 while the hibernate is in flight, then while the restore is in flight (after and before the API carried it out): one hibernate, one restore each time, one instance, the same volumes', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    const [before] = await instancesNamed(w.emu, 'idle-1');
    // 1. The check is killed once its hibernate has been carried out, before the answer came back.
    answerLate(w.emu);
    const check = spawn(process.execPath, [BIN, 'autostop', 'check'], { env: childEnv(w.home, w.env), stdio: 'ignore', cwd: w.home });
    await until('hibernated', statusIs(w.emu, 'hibernating'));
    check.kill('SIGKILL');
    // Gone, not a zombie this process has yet to reap: a zombie still answers kill(pid, 0), so its lock looks held.
    await new Promise((resolve) => (check.exitCode !== null || check.signalCode !== null ? resolve(undefined) : check.once('exit', resolve)));
    const next = await runCli(['autostop', 'check', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(rowsOf(next)['idle-1']!.decision, 'stopped', next.stderr);
    assert.is(actions(w.emu).filter((a) => a.action === 'hibernate').length, 1);
    const saved = await costJson(w);
    assert.is(saved.autostop_saved?.periods.length, 1, 'the killed check left the period: it is recorded before the send');
    assert.is(saved.autostop_saved?.per_hour_now, V100);

    // 2. A resume killed once its restore has been carried out: the next one sends nothing.
    answerLate(w.emu);
    const first = await startResume(w, ['idle-1'], () => restores(w.emu).length === 1);
    await until('restored', statusIs(w.emu, 'running'));
    first.child.kill('SIGKILL');
    await first.exited;
    const after = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(after.code, 0, after.stderr);
    assert.is(resumeJson(after).sent, null);
    assert.is(restores(w.emu).length, 1, 'no second restore');

    // 3. Hibernated again; a resume killed while its restore is held before the API acted on it. The
    // request is carried out after the kill; the next resume finds the instance running.
    assert.is((await emulatorClient(w.emu).call('PUT', '/v1/instances', { action: 'hibernate', id: before!.id })).status, 202);
    let release!: () => void;
    w.emu.addFault({ method: 'PUT', path: '/v1/instances', until: new Promise<void>((r) => (release = r)) });
    const held = await startResume(w, ['idle-1'], () => restores(w.emu).length === 2);
    held.child.kill('SIGKILL');
    await held.exited;
    release();
    await until('the held restore carried out', () => restores(w.emu)[1]!.status !== 0);
    const last = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(last.code, 0, last.stderr);
    assert.is(resumeJson(last).sent, null);
    // The first restore's answer is still held (its status is recorded when answered); it was carried out above.
    assert.is(restores(w.emu).length, 2, 'one restore per hibernation');
    assert.is(restores(w.emu)[1]!.status, 202);
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.equal([now.length, now[0]!.id, now[0]!.status], [1, before!.id, 'running']);
    assert.equal(volumesOf(now[0]!), volumesOf(before!));
  }, ALLOW));

test('a restore the API answers slowly still ends once; one whose answer outlives --timeout is not sent again by the next resume', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    await hibernated(w);
    w.emu.addFault({ method: 'PUT', path: '/v1/instances', delayMs: 4000 });
    const slow = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(slow.code, 0, slow.stderr);
    assert.is(resumeJson(slow).sent, 'restore');

    assert.is((await emulatorClient(w.emu).call('PUT', '/v1/instances', { action: 'hibernate', id: (await instancesNamed(w.emu, 'idle-1'))[0]!.id })).status, 202);
    answerLate(w.emu);
    // A longer --timeout each time, until one run got its restore to the API (a busy machine may not in 3 s).
    let cut: CliResult | undefined;
    for (const seconds of [3, 15, 60]) {
      cut = await runCli(['--timeout', String(seconds), 'autostop', 'resume', 'idle-1'], { env: w.env, home: w.home });
      if (restores(w.emu).length === 2) break;
    }
    assert.is(cut!.code, 1, cut!.stderr);
    assert.match(cut!.stderr, /error: timeout/);
    const next = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(next.code, 0, next.stderr);
    assert.is(resumeJson(next).sent, null);
    assert.is(restores(w.emu).length, 2, 'one restore per hibernation');
  }, ALLOW));

test('no machine free to restore: exit 1 with the API\'s answer, still hibernated with its volumes; a volume cannot be deleted from under it; later it restores once', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    await withDataVolume(w.emu);
    const before = await hibernated(w);
    w.emu.setCapacity({ instance_type: '1V100.6V', location_code: 'FIN-01', mode: 'sold_out' });
    const none = await runCli(['autostop', 'resume', 'idle-1'], { env: w.env, home: w.home });
    assert.is(none.code, 1, none.stderr);
    assert.match(none.stderr, /error: service_unavailable: Not enough resources available to restore 1V100\.6V in FIN-01/);
    const [still] = await instancesNamed(w.emu, 'idle-1');
    assert.equal([still!.status, volumesOf(still!)], ['hibernating', volumesOf(before)]);

    const data = before.volume_ids[0]!;
    const del = await emulatorClient(w.emu).call('PUT', '/v1/volumes', { action: 'delete', id: data });
    assert.is(del.status, 403, 'the API keeps an attached volume of a hibernated instance');

    w.emu.setCapacity({ instance_type: '1V100.6V', location_code: 'FIN-01' });
    const r = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(r.code, 0, r.stderr);
    assert.equal([resumeJson(r).sent, resumeJson(r).volumes.same], ['restore', true]);
    assert.equal(volumesOf((await instancesNamed(w.emu, 'idle-1'))[0]!), volumesOf(before));
    assert.is(restores(w.emu).filter((q) => q.status === 202).length, 1);
  }, ALLOW));

test('resume of a name that is not there, or of a running instance, sends nothing', () =>
  withInstances(ONE, HIBERNATE, async ({ emu, env, home }) => {
    const missing = await runCli(['autostop', 'resume', 'nope-9'], { env, home });
    assert.is(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /error: not_found: no instance nope-9 in this project/);
    const running = await runCli(['autostop', 'resume', 'idle-1'], { env, home });
    assert.is(running.code, 0, running.stderr);
    assert.match(running.stdout, /idle-1\s+running\s+running\s+-\s+already running; nothing sent/);
    assert.equal(actions(emu), []);
  }, ALLOW));

// ---- where the API deletes the instance to hibernate it (the Go SDK's account) ------------------------

const DELETES = { ...ALLOW, emulator: { hibernation: 'deletes-instance' as const } };
const creates = (emu: Emulator) => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances');

test('where hibernating deletes the instance and keeps its volumes detached: the saving still counts, and resume creates it once from its own volumes', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    await withDataVolume(w.emu);
    const [before] = await instancesNamed(w.emu, 'idle-1');
    const made = creates(w.emu).length;
    const r = await runCli(['autostop', 'check', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(rowsOf(r)['idle-1']!.decision, 'hibernate', r.stderr);
    assert.equal(await instancesNamed(w.emu, 'idle-1'), [], 'the API deleted it');
    const during = await costJson(w);
    for (const v of volumesOf(before!)) assert.ok(during.resources.some((x) => x.kind === 'volume' && x.id === v), `volume ${v} kept (and billing)`);
    assert.is(during.autostop_saved?.per_hour_now, V100, 'still hibernated while its OS volume waits detached');

    const both = await Promise.all([runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home }), runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home })]);
    for (const x of both) assert.is(x.code, 0, x.stderr);
    assert.equal(both.map((x) => resumeJson(x).sent).sort(), ['create', null].sort());
    const out = both.map(resumeJson).find((x) => x.sent === 'create')!;
    assert.equal([out.status_before, out.status_after, out.volumes.same], ['deleted', 'running', true]);
    assert.is(creates(w.emu).length, made + 1, 'one create');
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.is(now.length, 1, 'one instance');
    assert.equal(volumesOf(now[0]!), volumesOf(before!), 'from its own volumes');
    const create = JSON.parse(creates(w.emu).at(-1)!.body!) as Record<string, unknown>;
    assert.is(create.image, before!.os_volume_id);
    assert.equal(create.existing_volumes, before!.volume_ids);
    assert.ok(create.startup_script_id, 'the watcher keeps its policy: the script is named again');

    // Idle again on the made-again instance: the check finds its policy and hibernates it once more.
    const again = await runCli(['autostop', 'check', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(rowsOf(again)['idle-1']!.decision, 'hibernate', again.stderr);
    const saved = await costJson(w);
    assert.is(saved.autostop_saved?.periods.length, 2);
    assert.is(saved.autostop_saved?.periods[0]!.still_hibernated, false);
    assert.is(saved.autostop_saved?.periods[1]!.still_hibernated, true);
  }, DELETES));

test('where hibernating deletes the instance: a resume killed once its create reached the API is not followed by a second create', () =>
  withInstances(ONE, HIBERNATE, async (w) => {
    const [before] = await instancesNamed(w.emu, 'idle-1');
    await runCli(['autostop', 'check'], { env: w.env, home: w.home });
    assert.equal(await instancesNamed(w.emu, 'idle-1'), []);
    const made = creates(w.emu).length;
    w.emu.addFault({ method: 'POST', path: '/v1/instances', afterHandler: true, delayMs: 120_000 });
    const first = await startResume(w, ['idle-1'], () => creates(w.emu).length === made + 1);
    await until('created', async () => (await instancesNamed(w.emu, 'idle-1')).length === 1);
    first.child.kill('SIGKILL');
    await first.exited;
    const next = await runCli(['autostop', 'resume', 'idle-1', '-o', 'json'], { env: w.env, home: w.home });
    assert.is(next.code, 0, next.stderr);
    assert.is(resumeJson(next).sent, null);
    assert.is(creates(w.emu).length, made + 1, 'no second create');
    const now = await instancesNamed(w.emu, 'idle-1');
    assert.equal([now.length, now[0]!.os_volume_id], [1, before!.os_volume_id]);
  }, DELETES));

test.run();
