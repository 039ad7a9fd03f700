/**
 * `assistant autostop check` at its edges (the rest is autostop.check.test.ts): hostile records, the
 * command's deadline, deploy --autostop, and refusals. End to end: instances made by `ask --maker --autostop` (and `deploy
 * --autostop`) in the emulator, each pointed at a "host" of ssh2's server standing in for the
 * instance: one whose watcher reports busy, one idle, and one that does not answer. The check is the
 * real CLI, reading over SSH and acting through the emulator's API.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../emulator/index.js';
import { emulatorClient } from '../emulator/test-client.js';
import { STATE_FILE } from '../engine/producers/autostop/watcher.js';
import { runCli, tempHome, withEmulator, type CliResult } from './support/cli.js';
import { FASTAPI_TORCH, makeRepo, startGitHttp } from './support/git-repos.js';
import { startSshServer, type SshTestServer } from './support/ssh-server.js';

const BUSY = '127.0.0.2';
const IDLE = '127.0.0.3';
/** Nothing listens here: the instance that does not answer. */
const DOWN = '127.0.0.4';
const IPS = { 'busy-1': BUSY, 'idle-1': IDLE, 'gone-1': DOWN };

const cleanup: (() => Promise<void> | void)[] = [];
test.after(async () => {
  for (const c of cleanup.reverse()) await c();
});
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
};

const nowS = () => Math.floor(Date.now() / 1000);
const busyRecord = () => JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS(), boot: nowS() - 7200, busy: true, gpu_util_max: 87, logins: 1 });
const idleRecord = (minutes: number) => JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS() - minutes * 60, boot: nowS() - 7200, busy: false, gpu_util_max: 0, logins: 0 });

async function sshHosts(): Promise<SshTestServer> {
  const srv = await startSshServer(tmp('autostop-ssh-'), { alsoOn: [BUSY, IDLE], filesAt: { [BUSY]: { [STATE_FILE]: busyRecord() }, [IDLE]: { [STATE_FILE]: idleRecord(42) } } });
  cleanup.push(() => srv.close());
  return srv;
}

function writeConfig(home: string, srv: SshTestServer, autostop = ''): void {
  writeFileSync(
    join(home, '.assistant.yaml'),
    `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\nautostop:\n  ssh_timeout_seconds: 2\n${autostop}`,
    { mode: 0o600 },
  );
}

/** `ask --maker --autostop …` then `ask --apply`: the instances exist and run. */
async function makeInstances(env: Record<string, string>, home: string, request: string, flags: string[]): Promise<void> {
  const made = await runCli(['ask', '--maker', '--ai-profile', 'builtin', ...flags, request], { env, home });
  assert.is(made.code, 0, made.stderr);
  writeFileSync(join(home, 'plan.json'), made.stdout);
  const applied = await runCli(['ask', '--apply', '--plan-file', join(home, 'plan.json')], { env, home });
  assert.is(applied.code, 0, applied.stderr + applied.stdout);
}

type Row = { id: string; hostname: string; decision: string; detail: string; idle_minutes: number | null; last_activity: string | null; policy: unknown };
const rowsOf = (r: CliResult): Record<string, Row> => Object.fromEntries((JSON.parse(r.stdout).instances as Row[]).map((x) => [x.hostname, x]));
const actions = (emu: Emulator) =>
  emu
    .requests()
    .filter((q) => q.method === 'PUT' && q.path === '/v1/instances')
    .map((q) => JSON.parse(q.body!) as { action: string; id: string });
async function statusOf(emu: Emulator, hostname: string): Promise<string | undefined> {
  const { json } = await emulatorClient(emu).call('GET', '/v1/instances');
  return (json as { hostname: string; status: string }[]).find((i) => i.hostname === hostname)?.status;
}

test('a host whose record is not the watcher\'s, or which has none yet, is reported and left alone', () =>
  withEmulator(
    async ({ emu, env }) => {
      const srv = await sshHosts();
      srv.filesAt[IDLE]![STATE_FILE] = '{"version":1,"updated":"soon","last_activity":0,"busy":false}\n';
      delete srv.filesAt[BUSY]![STATE_FILE];
      const home = tempHome();
      writeConfig(home, srv, '  allow_delete: true\n');
      await makeInstances(env, home, 'create two 1V100.6V instances called busy-1 and idle-1 in FIN-01', ['--autostop', '30m', '--autostop-action', 'delete']);
      const r = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
      assert.is(r.code, 1);
      const rows = rowsOf(r);
      assert.is(rows['idle-1']!.decision, 'unknown');
      assert.match(rows['idle-1']!.detail, /not the watcher's/);
      assert.is(rows['busy-1']!.decision, 'unknown');
      assert.match(rows['busy-1']!.detail, /no record on the instance yet/);
      assert.equal(actions(emu), []);
    },
    { instanceIps: IPS },
  ));
test('a startup script that cannot be read leaves its instance reported as unknown and untouched', () =>
  withEmulator(
    async ({ emu, env }) => {
      const srv = await sshHosts();
      const home = tempHome();
      writeConfig(home, srv);
      await makeInstances(env, home, 'create a 1V100.6V instance called idle-1 in FIN-01', ['--autostop', '30m']);
      emu.addFault({ method: 'GET', path: '/v1/scripts/*', times: -1, status: 403, code: 'forbidden', message: 'no access to scripts' });
      const r = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
      assert.is(r.code, 1, r.stderr);
      assert.is(rowsOf(r)['idle-1']!.decision, 'unknown');
      assert.match(rowsOf(r)['idle-1']!.detail, /its startup script: could not be read \(forbidden: .*\); nothing done/);
      assert.equal(actions(emu), []);
      assert.equal(srv.execs, [], 'not even read over SSH');
    },
    { instanceIps: IPS },
  ));

test('the command\'s --timeout bounds the check: a host still being retried is reported as not finished, the others are decided and acted on', () =>
  withEmulator(
    async ({ emu, env }) => {
      const srv = await sshHosts();
      const home = tempHome();
      writeConfig(home, srv);
      await makeInstances(env, home, 'create two 1V100.6V instances called idle-1 and gone-1 in FIN-01', ['--autostop', '30m']);
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
    },
    { instanceIps: IPS },
  ));
test('deploy --autostop puts the watcher first in the startup script and the policy on the create; the check then stops the deployed instance', async () => {
  const repo = makeRepo('idle-1', FASTAPI_TORCH, tmp('autostop-repos-'));
  const git = await startGitHttp(dirname(repo.dir));
  cleanup.push(() => git.close());
  await withEmulator(
    async ({ emu, env }) => {
      const srv = await sshHosts();
      const home = tempHome();
      writeConfig(home, srv);
      const r = await runCli(['deploy', git.urlOf(basename(repo.dir)), '--autostop', '30m', '--apply', '-o', 'json'], { env, home });
      assert.is(r.code, 0, r.stderr);
      const script = JSON.parse(emu.requests().find((q) => q.method === 'POST' && q.path === '/v1/scripts')!.body!).script as string;
      assert.match(script, /^#!\/bin\/bash\n# --- assistant auto-stop \(shutdown after 30 idle minutes\)/);
      assert.match(script, /# assistant deploy: idle-1/, 'the deploy part follows');
      const check = await runCli(['autostop', 'check', '-o', 'json'], { env, home });
      assert.is(check.code, 0, check.stderr);
      assert.is(rowsOf(check)['idle-1']!.decision, 'shutdown');
      assert.is(await statusOf(emu, 'idle-1'), 'offline');
    },
    { instanceIps: IPS },
  );
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
