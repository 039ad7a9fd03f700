/**
 * `assistant autostop check` at its edges (the rest is autostop.check.test.ts): hostile records, the
 * command's deadline, deploy --autostop, and refusals. End to end: instances made by `ask --maker --autostop` (and `deploy
 * --autostop`) in the emulator, each pointed at a "host" of ssh2's server standing in for the
 * instance: one whose watcher reports busy, one idle, and one that does not answer. The check is the
 * real CLI, reading over SSH and acting through the emulator's API.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STATE_FILE } from '../../engine/core/kits/autostop/watcher.js';
import { actions, BUSY, cleanup, closeAutostopFixtures, IDLE, rowsOf, statusOf, withAutostopHosts, withInstances } from '../support/autostop.js';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';
import { FASTAPI_TORCH, makeRepo, startGitHttp } from '../support/git-repos.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): the edges are records, deadlines and refusals, not the process.
cliInThisProcess();

test.after(closeAutostopFixtures);

test('a host whose record is not the watcher\'s, or which has none yet, is reported and left alone', () =>
  withInstances('create two 1V100.6V instances called busy-1 and idle-1 in FIN-01', ['--autostop', '30m', '--autostop-action', 'delete'], async ({ emu, env, home, srv }) => {
    srv.filesAt[IDLE]![STATE_FILE] = '{"version":1,"updated":"soon","last_activity":0,"busy":false}\n';
    delete srv.filesAt[BUSY]![STATE_FILE];
    const r = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(r.code, 1);
    const rows = rowsOf(r);
    assert.is(rows['idle-1']!.decision, 'unknown');
    assert.match(rows['idle-1']!.detail, /not the watcher's/);
    assert.is(rows['busy-1']!.decision, 'unknown');
    assert.match(rows['busy-1']!.detail, /no record on the instance yet/);
    assert.equal(actions(emu), []);
  }, { autostop: '  allow_delete: true\n' }));
test('a startup script that cannot be read leaves its instance reported as unknown and untouched', () =>
  withInstances('create a 1V100.6V instance called idle-1 in FIN-01', ['--autostop', '30m'], async ({ emu, env, home, srv }) => {
    emu.addFault({ method: 'GET', path: '/v1/scripts/*', times: -1, status: 403, code: 'forbidden', message: 'no access to scripts' });
    const r = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(r.code, 1, r.stderr);
    assert.is(rowsOf(r)['idle-1']!.decision, 'unknown');
    assert.match(rowsOf(r)['idle-1']!.detail, /its startup script: could not be read \(forbidden: .*\); nothing done/);
    assert.equal(actions(emu), []);
    assert.equal(srv.execs, [], 'not even read over SSH');
  }));

test('the command\'s --timeout bounds the check: a host still being retried is reported as not finished, the others are decided and acted on', () =>
  withInstances('create two 1V100.6V instances called idle-1 and gone-1 in FIN-01', ['--autostop', '30m'], async ({ emu, env, home }) => {
    // Each host may take 10 minutes to answer; the command has 12 s.
    writeFileSync(join(home, '.assistant.yaml'), readFileSync(join(home, '.assistant.yaml'), 'utf8').replace('ssh_timeout_seconds: 2', 'ssh_timeout_seconds: 600'));
    const r = await runCli(['--timeout', '12', 'autostop', 'check', '-o', 'json'], { env, home });
    assert.is(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.is(out.timed_out, true);
    const rows = rowsOf(r);
    assert.is(rows['idle-1']!.decision, 'shutdown');
    assert.is(rows['gone-1']!.decision, 'unknown');
    assert.match(rows['gone-1']!.detail, /^not finished: timeout after 12 s \(--timeout\); nothing done$/);
    assert.equal(actions(emu), [{ action: 'shutdown', id: rows['idle-1']!.id }]);
  }));
test('deploy --autostop puts the watcher first in the startup script and the policy on the create; the check then stops the deployed instance', async () => {
  const repo = makeRepo('idle-1', FASTAPI_TORCH, tempDir('autostop-repos-'));
  const git = await startGitHttp(dirname(repo.dir));
  cleanup.push(() => git.close());
  await withAutostopHosts(async ({ emu, env, home }) => {
    const r = await runCli(['deploy', git.urlOf(basename(repo.dir)), '--autostop', '30m', '--apply', '-o', 'json'], { env, home });
    assert.is(r.code, 0, r.stderr);
    const script = JSON.parse(emu.requests().find((q) => q.method === 'POST' && q.path === '/v1/scripts')!.body!).script as string;
    assert.match(script, /^#!\/bin\/bash\n# --- assistant auto-stop \(shutdown after 30 idle minutes\)/);
    assert.match(script, /# assistant deploy: idle-1/, 'the deploy part follows');
    const check = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
    assert.is(check.code, 0, check.stderr);
    assert.is(rowsOf(check)['idle-1']!.decision, 'shutdown');
    assert.is(await statusOf(emu, 'idle-1'), 'offline');
  });
});
test('--autostop is refused where it cannot work, before anything is sent', async () => {
  const home = tempHome();
  const r1 = await runCli(['ask', '--autostop', '30m', 'what is my balance'], { home });
  assert.is(r1.code, 2);
  assert.match(r1.stderr, /--autostop goes with --maker/);
  const r2 = await runCli(['--sandbox', 'ask', '--maker', '--autostop', '30s', 'create a 1V100.6V instance called a in FIN-01'], { home });
  assert.is(r2.code, 2);
  assert.match(r2.stderr, /--autostop takes an idle time/);
  const r3 = await runCli(['--sandbox', 'ask', '--maker', '--autostop', '30m', 'shut down demo-a100'], { home });
  assert.is(r3.code, 2);
  assert.match(r3.stderr, /creates none/);
});

test.run();
