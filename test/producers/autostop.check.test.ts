/**
 * `assistant autostop check` end to end: instances made by `ask --maker --autostop` (and `deploy
 * --autostop`) in the emulator, each pointed at a "host" of ssh2's server standing in for the
 * instance: one whose watcher reports busy, one idle, and one that does not answer. The check is the
 * real CLI, reading over SSH and acting through the emulator's API.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AUTOSTOP_READ_COMMAND } from '../../engine/core/kits/autostop/template.js';
import { actions, closeAutostopFixtures, rowsOf, statusOf, withInstances, writeConfig } from '../support/autostop.js';
import { cliInThisProcess, runCli } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

test.after(closeAutostopFixtures);

test('busy is kept, idle past its limit is shut down once, unreachable is reported and left alone; a second check sends nothing more', () =>
  withInstances('create three 1V100.6V instances called busy-1, idle-1 and gone-1 in FIN-01', ['--autostop', '30m'], async ({ emu, env, home, srv }) => {

    const dry = await runCli(['autostop', 'check', '--dry-run', '-o', 'json'], { env, home });
    assert.is(dry.code, 1, `unreachable makes the exit 1: ${dry.stderr}`);
    assert.equal(Object.fromEntries(Object.entries(rowsOf(dry)).map(([h, r]) => [h, r.decision])), { 'busy-1': 'keep', 'idle-1': 'would-shutdown', 'gone-1': 'unreachable' });
    assert.equal(actions(emu), [], '--dry-run sends nothing');

    const first = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(first.code, 1, first.stderr);
    const rows = rowsOf(first);
    assert.is(rows['busy-1']!.decision, 'keep');
    assert.match(rows['busy-1']!.detail, /in use \(GPU 87%, 1 login\)/);
    assert.is(rows['idle-1']!.decision, 'shutdown');
    assert.is(rows['idle-1']!.idle_minutes, 42);
    assert.match(rows['idle-1']!.detail, /idle 42 min ≥ 30: shutdown sent/);
    assert.ok(rows['idle-1']!.last_activity);
    assert.equal(rows['idle-1']!.policy, { idle_minutes: 30, action: 'shutdown' });
    assert.is(rows['gone-1']!.decision, 'unreachable');
    assert.match(rows['gone-1']!.detail, /unreachable over SSH: still failing after \d+ s \(127\.0\.0\.4:\d+: ECONNREFUSED\); nothing done/);
    assert.equal(actions(emu), [{ action: 'shutdown', id: rows['idle-1']!.id }]);
    assert.is(await statusOf(emu, 'idle-1'), 'offline');
    assert.is(await statusOf(emu, 'busy-1'), 'running');
    assert.is(await statusOf(emu, 'gone-1'), 'running', 'unreachable: never stopped');
    // Over SSH only the read-only template ran, once per reachable host per check.
    assert.ok(srv.execs.every((e) => e.command === AUTOSTOP_READ_COMMAND), JSON.stringify(srv.execs));

    const table = await runCli(['autostop', 'check'], { env, home });
    assert.is(table.code, 1);
    assert.match(table.stdout.split('\n')[0]!, /^ID\s+HOSTNAME\s+IDLE MIN\s+LAST ACTIVITY\s+DECISION\s+DETAIL$/);
    assert.match(table.stdout, /idle-1\s+- \/ 30\s+-\s+stopped\s+status offline; nothing to do/);
    assert.match(table.stdout, /busy-1\s+0 \/ 30\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+keep/);
    assert.match(table.stderr, /auto-stop: 3 instances checked: 1 keep, 1 stopped, 1 unreachable/);
    assert.is(actions(emu).length, 1, 'the second check sent no second action');
  }));
test('delete needs autostop.allow_delete in the config that runs the check: refused (exit 3) without it, sent with it; the unreachable one is never deleted', () =>
  withInstances('create two 1V100.6V instances called idle-1 and gone-1 in FIN-01', ['--autostop', '30m', '--autostop-action', 'delete'], async ({ emu, env, home, srv }) => {
    writeFileSync(join(home, 'only-idle.yaml'), readFileSync(join(home, '.assistant.yaml'), 'utf8'));

    const refused = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(refused.code, 1, 'the unreachable one makes it 1');
    assert.is(rowsOf(refused)['idle-1']!.decision, 'refused');
    assert.match(rowsOf(refused)['idle-1']!.detail, /autostop\.allow_delete: true/);
    assert.equal(actions(emu), []);

    writeConfig(home, srv, '  allow_delete: true\n');
    const deleted = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(deleted.code, 1, deleted.stderr);
    assert.is(rowsOf(deleted)['idle-1']!.decision, 'delete');
    assert.is(rowsOf(deleted)['gone-1']!.decision, 'unreachable');
    assert.equal(actions(emu), [{ action: 'delete', id: rowsOf(deleted)['idle-1']!.id }]);
    assert.is(await statusOf(emu, 'gone-1'), 'running');
  }));
test('only a refused delete: exit 3 with a hint; nothing is sent', () =>
  withInstances('create a 1V100.6V instance called idle-1 in FIN-01', ['--autostop', '20m', '--autostop-action', 'delete'], async ({ emu, env, home }) => {
    const r = await runCli(['autostop', 'check'], { env, home });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /idle-1\s+42 \/ 20\s+.*refused/);
    assert.match(r.stderr, /hint: to let the check delete, set autostop\.allow_delete: true/);
    assert.equal(actions(emu), []);
  }));
test('two checks at once send one shutdown: the second is refused while the first holds the lock, or finds the instance stopped', () =>
  withInstances('create a 1V100.6V instance called idle-1 in FIN-01', ['--autostop', '30m'], async ({ emu, env, home }) => {
    const both = await Promise.all([runCli(['autostop', 'check', '-o', 'json'], { env, home }), runCli(['autostop', 'check', '-o', 'json'], { env, home })]);
    for (const r of both) assert.ok(r.code === 0 || (r.code === 3 && /another auto-stop check is running/.test(r.stderr)), `${r.code}: ${r.stderr}`);
    assert.is(actions(emu).length, 1, JSON.stringify(actions(emu)));
  }));
test.run();
