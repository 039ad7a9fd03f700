/**
 * `assistant mcp` runs the auto-stop check on a timer when autostop.check_every is set (off by
 * default), and offers assistant_autostop_status (what the check would do, sending nothing). The
 * emulator and ssh2's server stand in for the instances; the test waits on the server's stderr lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { STATE_FILE } from '../../engine/core/kits/autostop/watcher.js';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { callTool, connectHttp, startMcpServer, type McpProcess } from '../support/mcp.js';
import { startSshServer, type SshTestServer } from '../support/ssh-server.js';

const BUSY = '127.0.0.2';
const IDLE = '127.0.0.3';

const cleanup: (() => Promise<void> | void)[] = [];
test.after(async () => {
  for (const c of cleanup.reverse()) await c();
});

const nowS = () => Math.floor(Date.now() / 1000);

async function setup(env: Record<string, string>, autostop: string): Promise<{ home: string; srv: SshTestServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'autostop-mcp-ssh-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const srv = await startSshServer(dir, {
    alsoOn: [BUSY, IDLE],
    filesAt: {
      [BUSY]: { [STATE_FILE]: JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS(), busy: true, gpu_util_max: 93, logins: 0 }) },
      [IDLE]: { [STATE_FILE]: JSON.stringify({ version: 1, updated: nowS(), last_activity: nowS() - 3600, busy: false, gpu_util_max: 0, logins: 0 }) },
    },
  });
  cleanup.push(() => srv.close());
  const home = tempHome('assistant-mcp-');
  writeFileSync(
    join(home, '.assistant.yaml'),
    `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\nautostop:\n  ssh_timeout_seconds: 2\n${autostop}`,
    { mode: 0o600 },
  );
  const made = await runCli(['ask', '--maker', '--ai-profile', 'builtin', '--autostop', '30m', 'create two 1V100.6V instances called busy-1 and idle-1 in FIN-01'], { env, home });
  assert.is(made.code, 0, made.stderr);
  const applied = await runCli(['ask', '--apply'], { env, home, input: made.stdout });
  assert.is(applied.code, 0, applied.stderr);
  return { home, srv };
}

/**
 * An MCP server over the emulator's busy-1 and idle-1 (their watcher states on the SSH server), with
 * `autostop` added to the autostop section of its config; resolves with the server's exit code.
 */
async function withAutostopServer(autostop: string, fn: (emu: Emulator, server: McpProcess) => Promise<void>): Promise<number | null> {
  let code: number | null = null;
  await withEmulator(
    async ({ emu, env }) => {
      const { home } = await setup(env, autostop);
      const server = await startMcpServer([], { env, home });
      try {
        await fn(emu, server);
      } finally {
        code = await server.stop();
      }
    },
    { instanceIps: { 'busy-1': BUSY, 'idle-1': IDLE } },
  );
  return code;
}

/** What assistant_autostop_status answers, and its decision per hostname. */
async function statusOf(server: McpProcess) {
  const client = await connectHttp(server.url);
  const status = await callTool(client, 'assistant_autostop_status', {});
  await client.close();
  // An error has no instances: the test says so with its own isError assertion.
  const rows = Object.fromEntries(((status.structuredContent?.instances ?? []) as { hostname: string; decision: string }[]).map((r) => [r.hostname, r.decision]));
  return { status, rows };
}

const shutdowns = (emu: Emulator) => emu.requests().filter((q) => q.method === 'PUT' && q.path === '/v1/instances' && JSON.parse(q.body!).action === 'shutdown');

test('with autostop.check_every the MCP server checks on its timer: the idle instance is shut down once, the busy one kept', async () => {
  const code = await withAutostopServer('  check_every: 1s\n', async (emu, server) => {
    assert.match(server.stderr(), /autostop: checking every 1 s \(autostop\.check_every\)/);
    await server.waitForStderr(/autostop: idle-1 \([0-9a-f-]+\): shutdown: idle 60 min ≥ 30: shutdown sent/);
    await server.waitForStderr(/auto-stop: 2 instances checked: 1 keep, 1 shutdown/);
    assert.is(shutdowns(emu).length, 1);
    // The next tick finds it stopped and sends nothing.
    await server.waitForStderr(/auto-stop: 2 instances checked: 1 keep, 1 stopped/);
    assert.is(shutdowns(emu).length, 1);

    const { status, rows } = await statusOf(server);
    assert.not.ok(status.isError);
    assert.equal(rows, { 'busy-1': 'keep', 'idle-1': 'stopped' });
    assert.is(shutdowns(emu).length, 1);
  });
  assert.is(code, 0);
});

test('without autostop.check_every (the default) nothing runs on a timer; the status tool only says what a check would do', async () => {
  await withAutostopServer('', async (emu, server) => {
    assert.not.match(server.stderr(), /autostop:/);
    const { status, rows } = await statusOf(server);
    assert.not.ok(status.isError, JSON.stringify(status));
    assert.equal(rows, { 'busy-1': 'keep', 'idle-1': 'would-shutdown' });
    assert.match((status.content[0] as { text: string }).text, /idle-1\s+60 \/ 30/);
    assert.equal(shutdowns(emu), []);
  });
});

test('a --read-only server does not run the timer even when configured', async () => {
  const home = tempHome('assistant-mcp-');
  writeFileSync(join(home, '.assistant.yaml'), 'autostop:\n  check_every: 1s\n', { mode: 0o600 });
  const server = await startMcpServer(['--read-only'], { home, globalArgs: ['--sandbox'] });
  try {
    assert.match(server.stderr(), /autostop: not checking on a timer \(--read-only/);
  } finally {
    await server.stop();
  }
});

test.run();
