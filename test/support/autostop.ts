/**
 * The fixture shared by the `autostop check` end-to-end tests (autostop.check, autostop.edges):
 * instances made by `ask --maker --autostop` in the emulator, each pointed at a "host" of ssh2's
 * server standing in for it — one whose watcher reports busy, one idle, and one that does not answer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { STATE_FILE } from '../../engine/core/kits/autostop/watcher.js';
import { runCli, tempHome, withEmulator, type CliResult } from './cli.js';
import { startSshServer, type SshTestServer } from './ssh-server.js';
import { tempDir } from './temp.js';

export const BUSY = '127.0.0.2';
export const IDLE = '127.0.0.3';
/** Nothing listens here: the instance that does not answer. */
export const DOWN = '127.0.0.4';
/** The emulator's `instanceIps` option: which host each made instance answers on. */
export const IPS = { 'busy-1': BUSY, 'idle-1': IDLE, 'gone-1': DOWN };

/** Closers run by `closeAutostopFixtures` (hand it to `test.after`), last registered first. */
export const cleanup: (() => Promise<void> | void)[] = [];
export async function closeAutostopFixtures(): Promise<void> {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
}

const nowS = () => Math.floor(Date.now() / 1000);
const busyRecord = () => JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS(), boot: nowS() - 7200, busy: true, gpu_util_max: 87, logins: 1 });
const idleRecord = (minutes: number) => JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS() - minutes * 60, boot: nowS() - 7200, busy: false, gpu_util_max: 0, logins: 0 });

/** The SSH hosts: BUSY's watcher reports busy, IDLE's idle for 42 minutes; DOWN has nothing. */
export async function sshHosts(): Promise<SshTestServer> {
  const srv = await startSshServer(tempDir('autostop-ssh-'), { alsoOn: [BUSY, IDLE], filesAt: { [BUSY]: { [STATE_FILE]: busyRecord() }, [IDLE]: { [STATE_FILE]: idleRecord(42) } } });
  cleanup.push(() => srv.close());
  return srv;
}

export function writeConfig(home: string, srv: SshTestServer, autostop = ''): void {
  writeFileSync(
    join(home, '.assistant.yaml'),
    `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\nautostop:\n  ssh_timeout_seconds: 2\n${autostop}`,
    { mode: 0o600 },
  );
}

/** `ask --maker --autostop …` then `ask --apply`: the instances exist and run. */
export async function makeInstances(env: Record<string, string>, home: string, request: string, flags: string[]): Promise<void> {
  const made = await runCli(['ask', '--maker', '--ai-profile', 'builtin', ...flags, request], { env, home });
  assert.is(made.code, 0, made.stderr);
  writeFileSync(join(home, 'plan.json'), made.stdout);
  const applied = await runCli(['ask', '--apply', '--plan-file', join(home, 'plan.json')], { env, home });
  assert.is(applied.code, 0, applied.stderr + applied.stdout);
}

export type Row = { id: string; hostname: string; decision: string; detail: string; idle_minutes: number | null; last_activity: string | null; policy: unknown };
/** `autostop check -o json`'s rows by hostname. */
export const rowsOf = (r: CliResult): Record<string, Row> => Object.fromEntries((JSON.parse(r.stdout).instances as Row[]).map((x) => [x.hostname, x]));
/** The instance actions the emulator received. */
export const actions = (emu: Emulator) =>
  emu
    .requests()
    .filter((q) => q.method === 'PUT' && q.path === '/v1/instances')
    .map((q) => JSON.parse(q.body!) as { action: string; id: string });
export async function statusOf(emu: Emulator, hostname: string): Promise<string | undefined> {
  const { json } = await emulatorClient(emu).call('GET', '/v1/instances');
  return (json as { hostname: string; status: string }[]).find((i) => i.hostname === hostname)?.status;
}

export interface AutostopWorld {
  emu: Emulator;
  env: Record<string, string>;
  home: string;
  srv: SshTestServer;
}

/** What a fixture's HOME config adds under `autostop:`, and options of its emulator. */
export interface AutostopFixtureOptions {
  autostop?: string;
  emulator?: EmulatorOptions;
}

/** An emulator answering on the hosts of IPS, the SSH hosts, and a HOME whose config points at them. */
export function withAutostopHosts(fn: (w: AutostopWorld) => Promise<void>, opts: AutostopFixtureOptions = {}): Promise<void> {
  return withEmulator(
    async ({ emu, env }) => {
      const srv = await sshHosts();
      const home = tempHome();
      writeConfig(home, srv, opts.autostop);
      await fn({ emu, env, home, srv });
    },
    { ...opts.emulator, instanceIps: IPS },
  );
}

/** withAutostopHosts with the instances of `request` made (`ask --maker <flags> <request>`, then applied). */
export function withInstances(request: string, flags: string[], fn: (w: AutostopWorld) => Promise<void>, opts: AutostopFixtureOptions = {}): Promise<void> {
  return withAutostopHosts(async (w) => {
    await makeInstances(w.env, w.home, request, flags);
    await fn(w);
  }, opts);
}
