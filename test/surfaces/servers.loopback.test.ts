/**
 * Loopback is not trusted for changes (issue 36 §5): the real `box serve` and `assistant mcp` in child
 * processes. A server that can apply plans requires a bearer token on 127.0.0.1 too, made and kept
 * 0600 and printed once when none is configured; a read-only one stays open. A guessable token is
 * refused. Slow half-sent requests (slowloris) do not lock out a client that has the token. Where the
 * test runs as root, a second OS user tries the servers and the backend's admin socket.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adminSocketPath, socketTempRoot } from '../../backend/server.js';
import { tokenBits } from '../../engine/core/kits/serve/strength.js';
import { startEmulator } from '../../emulator/index.js';
import { startBackendProcess } from '../support/backend.js';
import { startBox } from '../support/box.js';
import { emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { rawInitialize, startMcpServer } from '../support/mcp.js';
import { tempDir } from '../support/temp.js';

const TOKEN = 'Xq3v_9Lm2Pz8Kc4Rt7Wy1Bn6Hd5Gf0Js-Ua2Ve8Io3Np'; // 43 random base64url characters

test('token strength: repeats, sequences and words count little; random tokens count their alphabet', async () => {
  for (const weak of ['a'.repeat(32), 'abcdabcdabcdabcdabcdabcdabcdabcd', 'passwordpasswordpasswordpassword', 'box-test-token-0123456789abcdef0123456789abcdef', '0123456789012345678901234567890123456789']) {
    assert.ok((await tokenBits(weak)) < 128, weak);
  }
  assert.ok((await tokenBits(TOKEN)) >= 128);
  assert.ok((await tokenBits('e71b2a00572750df4c306a3a306279ac9e1efd9a4fc1b67d43f755daab285e4e')) >= 128, 'openssl rand -hex 32');
});

test('box serve --allow-apply on loopback without a token makes one: 0600, printed once, required, reused', async () => {
  const home = tempHome('assistant-box-token-');
  const box = await startBox(['--agent', 'assistant', '--allow-apply', '--ai-profile', 'builtin'], { home, globalArgs: ['--sandbox'] });
  try {
    const path = join(home, '.assistant', 'serve', 'box.token');
    assert.ok(existsSync(path));
    assert.is(statSync(path).mode & 0o777, 0o600);
    const token = readFileSync(path, 'utf8').trim();
    assert.match(token, /^abx_[A-Za-z0-9_-]{43}$/);
    assert.match(box.stderr(), /token: generated for this box and kept in .*box\.token \(0600\)/);
    assert.not.ok(box.stderr().includes(token), 'the token is not on stderr');
    const none = await fetch(`${box.url}/v1/box/info`, { headers: { authorization: '' } });
    assert.is(none.status, 401, 'no token on 127.0.0.1: refused');
    assert.is((await fetch(`${box.url}/v1/box/info`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  } finally {
    await box.stop();
  }
  const again = await startBox(['--agent', 'assistant', '--allow-apply', '--ai-profile', 'builtin'], { home, globalArgs: ['--sandbox'] });
  try {
    assert.not.match(again.stderr(), /token: generated/, 'kept from the first start, not made again');
    assert.match(again.stderr(), /bearer token required \(.*box\.token\)/);
  } finally {
    await again.stop();
  }
  // A box that does not apply stays open on loopback.
  const open = await startBox(['--agent', 'empty'], { home: tempHome('assistant-box-open-') });
  try {
    assert.is((await fetch(`${open.url}/v1/box/info`)).status, 200);
  } finally {
    await open.stop();
  }
});

test('mcp that can apply needs a token on loopback (made, printed once on stdout); --read-only stays open', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  try {
    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(emu) });
    try {
      assert.ok(server.token, 'a token was made');
      assert.is(statSync(join(server.home, '.assistant', 'serve', 'mcp.token')).mode & 0o777, 0o600);
      assert.is((await rawInitialize(server.url, { authorization: '' })).status, 401);
      assert.is((await rawInitialize(server.url, { authorization: `Bearer ${server.token}` })).status, 200);
      assert.not.ok(server.stderr().includes(server.token!));
    } finally {
      await server.stop();
    }
    const readOnly = await startMcpServer(['--listen', '127.0.0.1:0', '--read-only'], { env: emulatorEnv(emu) });
    try {
      assert.is(readOnly.token, undefined);
      assert.is((await rawInitialize(readOnly.url)).status, 200, 'read-only on loopback: no token');
    } finally {
      await readOnly.stop();
    }
  } finally {
    await emu.close();
  }
});

test('a guessable token is refused on any address (exit 2), and never printed', async () => {
  for (const weak of ['a'.repeat(32), 'passwordpasswordpasswordpassword']) {
    const mcp = await runCli(['mcp', '--listen', '0.0.0.0:0'], { env: { ASSISTANT_MCP_AUTH_TOKEN: weak } });
    assert.is(mcp.code, 2, mcp.stderr);
    assert.match(mcp.stderr, /^error: usage: the bearer token is too easy to guess for a non-loopback listener: about \d+ bits, at least 128 are needed/m);
    const local = await runCli(['mcp', '--listen', '127.0.0.1:0', '--auth-token', weak]);
    assert.is(local.code, 2, local.stderr);
    const box = await runCli(['box', 'serve', '--agent', 'empty', '--listen', '0.0.0.0:0'], { env: { ASSISTANT_BOX_TOKEN: weak } });
    assert.is(box.code, 2, box.stderr);
    assert.match(box.stderr, /^error: weak_token: ASSISTANT_BOX_TOKEN: the bearer token is too easy to guess/m);
    for (const r of [mcp, local, box]) assert.not.ok((r.stdout + r.stderr).includes(weak));
  }
});

/** Opens a connection and sends half a request (no blank line ends the headers), then holds it. */
function halfRequest(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`GET /v1/box/info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: 1\r\n`);
      resolve(s);
    });
    s.once('error', (err) => (s.connecting ? reject(err) : undefined));
  });
}

test('260 slow half-sent requests without a token do not lock out a client with the token', async () => {
  const box = await startBox(['--agent', 'empty'], { env: { ASSISTANT_BOX_TOKEN: TOKEN } });
  const slow: Socket[] = [];
  const open = new Set<Socket>();
  try {
    const port = Number(new URL(box.url).port);
    for (let i = 0; i < 260; i++) {
      const s = await halfRequest(port);
      s.on('error', () => undefined);
      open.add(s);
      s.once('close', () => open.delete(s));
      slow.push(s);
    }
    const res = await fetch(`${box.url}/v1/box/info`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(res.status, 200, 'the client with the token was answered');
    // Answered while slow connections were still held: it took the place of the oldest ones, it did not
    // wait for them to time out.
    assert.ok(open.size > 0, `slow connections still open when the answer came: ${open.size}`);
    assert.ok(open.size < 260, 'the oldest slow connections were closed to make room');
  } finally {
    for (const s of slow) s.destroy();
    await box.stop();
  }
});

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const hasTools = spawnSync('sh', ['-c', 'command -v useradd && command -v userdel && command -v setpriv'], { stdio: 'ignore' }).status === 0;

test('another OS user can neither use a token-guarded server on 127.0.0.1 nor reach the backend admin socket', async () => {
  if (!root || !hasTools) {
    console.log(`  skipped: needs root and useradd/setpriv to create a throwaway user (root: ${root})`);
    return;
  }
  const user = `asst${process.pid}`;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
  const uid = execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim();
  const gid = execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim();
  /** Runs a small node script as the other user; its stdout. */
  const asOther = (script: string) =>
    spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', process.execPath, '-e', script], { encoding: 'utf8', timeout: 60_000, cwd: '/' }).stdout.trim();
  const backendHome = tempHome('assistant-backend-other-');
  const backend = await startBackendProcess({ home: backendHome });
  const box = await startBox(['--agent', 'assistant', '--allow-apply', '--ai-profile', 'builtin'], { globalArgs: ['--sandbox'] });
  try {
    // The box on 127.0.0.1 (which applies plans): the other user has no token.
    const status = asOther(`fetch(${JSON.stringify(`${box.url}/v1/box/messages`)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'create an instance', mode: 'apply' }) }).then((r) => console.log(r.status), (e) => console.log('error ' + e.message))`);
    assert.is(status, '401');
    // The backend's admin socket (mints API keys): unreachable for the other user.
    const where = adminSocketPath(backend.dataDir, socketTempRoot(process.env));
    assert.ok('path' in where);
    const sock = (where as { path: string }).path;
    assert.is(statSync(sock).mode & 0o777, 0o600);
    const minted = asOther(
      `const r = require('node:http').request({ socketPath: ${JSON.stringify(sock)}, method: 'POST', path: '/admin/keys', headers: { 'content-type': 'application/json' } }, (res) => console.log('status ' + res.statusCode)); r.on('error', (e) => console.log(e.code)); r.end(JSON.stringify({ tenant: 'evil', envs: ['production'] }))`,
    );
    assert.match(minted, /^(EACCES|ENOENT)$/, minted);
    const keys = await runCli(['backend', 'keys', 'list', '-o', 'json'], { home: backendHome });
    assert.equal(JSON.parse(keys.stdout), [], 'no key was minted');
  } finally {
    await box.stop();
    await backend.kill('SIGTERM');
    spawnSync('userdel', [user]);
  }
});

test('the admin socket never falls back to a path the kernel would cut, nor to a directory others can enter', () => {
  const deep = join(tempDir('assistant-deep-'), 'x'.repeat(120));
  mkdirSync(deep, { recursive: true });
  const tmp = tempDir('assistant-sock-tmp-');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  // The per-user fallback directory exists but is a file: no socket at all (the server refuses to start).
  mkdirSync(tmp, { recursive: true });
  execFileSync('sh', ['-c', 'touch "$1"', 'sh', join(tmp, `assistant-backend-${uid}`)]);
  const blocked = adminSocketPath(deep, tmp);
  assert.ok('problem' in blocked, JSON.stringify(blocked));
  assert.match((blocked as { problem: string }).problem, /too long for a socket inside it/);
  // A usable fallback is made 0700; a data directory opened up to others is closed again.
  const shortTmp = mkdtempSync('/tmp/as-');
  try {
    const ok = adminSocketPath(deep, shortTmp);
    assert.ok('path' in ok && Buffer.byteLength(ok.path) < 104, JSON.stringify(ok));
    assert.is(statSync(join(shortTmp, `assistant-backend-${uid}`)).mode & 0o777, 0o700);
    // A fallback that would itself be too long is no fallback either.
    assert.ok('problem' in adminSocketPath(deep, tempDir('assistant-sock-long-'.padEnd(90, 'x'))));
  } finally {
    rmSync(shortTmp, { recursive: true, force: true });
  }
  const wide = tempDir('assistant-wide-');
  chmodSync(wide, 0o755);
  const inside = adminSocketPath(wide, socketTempRoot(process.env));
  assert.ok('path' in inside);
  assert.is(statSync(wide).mode & 0o777, 0o700);
});

test.run();
