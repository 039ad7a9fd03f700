/**
 * `assistant mcp` the way agents are really run (issue 10 §4): --read-only, --stateless, the session
 * cap and the token minimum off loopback. The real CLI in a child process, the SDK's own client, the
 * emulator behind it. No test here waits on the clock: every step is an awaited request.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startEmulator, EMULATOR_DEMO_IDS, type Emulator } from '../../emulator/index.js';
import { startMcpHttpServer } from '../../mcp/http.js';
import { emulatorEnv, runCli } from '../support/cli.js';
import { callTool, connectHttp, connectStdio, rawInitialize, rawPost, READ_ONLY_TOOL_NAMES, startMcpServer, textOf, withServerToken } from '../support/mcp.js';

const deletePlan = {
  version: 1,
  provider: 'gpucloud',
  commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action: 'delete', id: EMULATOR_DEMO_IDS.offlineInstance })], reason: 'delete demo-cpu' }],
};

async function withEmu<T>(fn: (emu: Emulator) => Promise<T>): Promise<T> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    return await fn(emu);
  } finally {
    await emu.close();
  }
}

const changes = (emu: Emulator) => emu.requests().filter((r) => r.method !== 'GET' && !r.path.includes('oauth2'));

// ---------------------------------------------------------------- --read-only

const readOnly = suite('mcp --read-only');

readOnly('tools that change anything are not listed, and calling one gets "tool not found" with nothing sent', () =>
  withEmu(async (emu) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0', '--read-only'], { env: emulatorEnv(emu) });
    const client = await connectHttp(server.url);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.equal(names, READ_ONLY_TOOL_NAMES);
      for (const t of tools) assert.is(t.annotations?.readOnlyHint, true, `${t.name} is read-only`);
      assert.match(client.getInstructions() ?? '', /--read-only/);

      const r = await callTool(client, 'assistant_plan_apply', { plan: deletePlan });
      assert.ok(r.isError);
      assert.match(textOf(r), /Tool assistant_plan_apply not found/);
      assert.equal(changes(emu), [], 'nothing but GETs reached the API');

      const list = await callTool(client, 'assistant_gpucloud_list', { resource: 'instances' });
      assert.not.ok(list.isError, textOf(list));
      assert.match(server.stderr(), /12 tools, read-only/);
    } finally {
      await client.close();
      await server.stop();
    }
  }),
);

readOnly('--read-only holds on stdio too', () =>
  withEmu(async (emu) => {
    const { client, stderr } = await connectStdio({ env: emulatorEnv(emu), args: ['--read-only'] });
    try {
      const { tools } = await client.listTools();
      assert.not.ok(tools.some((t) => t.name === 'assistant_plan_apply'));
      assert.is(tools.length, 12);
      assert.match(stderr(), /12 tools, read-only/);
    } finally {
      await client.close();
    }
  }),
);

readOnly('--read-only with --destroyer is a usage error (exit 2)', async () => {
  const r = await runCli(['mcp', '--listen', '127.0.0.1:0', '--read-only', '--destroyer']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: usage: --destroyer and --read-only contradict/);
  assert.match(r.stderr, /hint:/);
});

readOnly.run();

// ---------------------------------------------------------------- --stateless

const stateless = suite('mcp --stateless');

const toolsCall = (id: number, name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The JSON-RPC message of an SSE or JSON response body. */
function message(body: string): any {
  const data = body.split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse(data ? data.slice('data: '.length) : body);
}

stateless('a one-shot client can POST tools/call without initialize; no session is created', () =>
  withEmu(async (emu) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0', '--stateless'], { env: emulatorEnv(emu) });
    try {
      assert.match(server.stderr(), /stateless/);
      const res = await rawPost(server.url, toolsCall(7, 'assistant_gpucloud_list', { resource: 'instances' }));
      assert.is(res.status, 200, res.body);
      assert.is(res.headers['mcp-session-id'], undefined, 'no session id');
      const msg = message(res.body);
      assert.is(msg.id, 7);
      assert.not.ok(msg.result.isError, JSON.stringify(msg));
      assert.ok(msg.result.structuredContent.items.some((i: { hostname: string }) => i.hostname === 'demo-a100'));

      // Two one-shot calls at once are independent (each gets its own server and transport).
      const both = await Promise.all([
        rawPost(server.url, toolsCall(1, 'assistant_route_question', { question: 'list my volumes' })),
        rawPost(server.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })),
      ]);
      assert.equal(both.map((r) => r.status), [200, 200]);
      assert.is(message(both[0]!.body).id, 1);
      assert.is(message(both[1]!.body).result.tools.length, 13);

      // GET and DELETE have no session to act on.
      const get = await fetch(server.url, { headers: withServerToken(server.url, { accept: 'text/event-stream' }) });
      assert.is(get.status, 405);
      await get.body?.cancel();
    } finally {
      await server.stop();
    }
  }),
);

stateless('the SDK client works against a stateless server (initialize answered without a session)', () =>
  withEmu(async (emu) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0', '--stateless', '--read-only'], { env: emulatorEnv(emu) });
    const init = await rawInitialize(server.url);
    assert.is(init.status, 200);
    assert.is(init.sessionId, null);
    const client = await connectHttp(server.url);
    try {
      const r = await callTool(client, 'assistant_gpucloud_get', { kind: 'instances', id_or_hostname: 'demo-a100' });
      assert.not.ok(r.isError, textOf(r));
      assert.is(r.structuredContent.record.hostname, 'demo-a100');
      assert.is((await client.listTools()).tools.length, 12, '--read-only applies per request too');
    } finally {
      await client.close();
      await server.stop();
    }
  }),
);

stateless('without --stateless, tools/call without initialize is still refused (sessions stay the default)', () =>
  withEmu(async (emu) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(emu) });
    try {
      const res = await rawPost(server.url, toolsCall(1, 'assistant_gpucloud_list', { resource: 'instances' }));
      assert.is(res.status, 400);
    } finally {
      await server.stop();
    }
  }),
);

stateless.run();

// ---------------------------------------------------------------- session cap

const cap = suite('mcp --max-sessions');

/** Opens a session by hand and returns its id. */
async function openSession(url: string): Promise<string> {
  const init = await rawInitialize(url);
  assert.is(init.status, 200, init.body);
  const sid = init.sessionId!;
  const ack = await rawPost(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': sid });
  assert.is(ack.status, 202);
  return sid;
}

const ping = (url: string, sid: string) => rawPost(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { 'mcp-session-id': sid });

cap('when the table is full a new session evicts the least recently used idle one, which then gets 404', () =>
  withEmu(async (emu) => {
    const server = await startMcpServer(['--listen', '127.0.0.1:0', '--max-sessions', '2'], { env: emulatorEnv(emu), globalArgs: ['--debug'] });
    try {
      const a = await openSession(server.url);
      const b = await openSession(server.url);
      assert.is((await ping(server.url, a)).status, 200, 'a is used again, so b is now the least recently used');
      const c = await openSession(server.url);
      assert.is((await ping(server.url, b)).status, 404, 'b was evicted');
      assert.is((await ping(server.url, a)).status, 200);
      assert.is((await ping(server.url, c)).status, 200);
      assert.match(server.stderr(), /session limit \(2\) reached: closing the least recently used idle session/);

      // An SDK client still connects and works (it evicts the idle one of a and c).
      const client = await connectHttp(server.url);
      const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'locations' });
      assert.not.ok(r.isError, textOf(r));
      await client.close();
    } finally {
      await server.stop();
    }
  }),
);

cap('a busy session is never evicted: when every session has a call in flight, a new initialize gets 503 with Retry-After', async () => {
  // In process: the HTTP layer under test is the real one; the one tool blocks until the test releases
  // it, so "busy" is a state the test controls, not a race against the clock.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inTool = new Promise<void>((r) => (entered = r));
  const newServer = () => {
    const s = new McpServer({ name: 'blocking', version: '1' });
    s.registerTool('block', { description: 'waits for the test' }, async () => {
      entered();
      await released;
      return { content: [{ type: 'text', text: 'released' }] };
    });
    return s;
  };
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, maxSessions: 1, newServer });
  try {
    const client = await connectHttp(server.url);
    const call = client.callTool({ name: 'block', arguments: {} });
    await inTool;
    const refused = await rawInitialize(server.url);
    assert.is(refused.status, 503);
    assert.is(refused.headers['retry-after'], '5');
    assert.match(refused.body, /all 1 are busy/);
    assert.is(server.sessions(), 1);

    release();
    assert.equal((await call).content, [{ type: 'text', text: 'released' }], 'the busy session finished its call');
    // The call's response has ended: the session is idle now and makes room for a new one.
    let next = await rawInitialize(server.url);
    for (let i = 0; next.status === 503 && i < 500; i++) next = await rawInitialize(server.url);
    assert.is(next.status, 200, 'the now idle session was evicted for the new one');
    assert.is(server.evicted(), 1);
    await client.close();
  } finally {
    release();
    await server.close();
  }
});

cap('--max-sessions must be a whole number of at least 1 (exit 2)', async () => {
  const r = await runCli(['mcp', '--listen', '127.0.0.1:0', '--max-sessions', '0']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: invalid_input: --max-sessions: expected a positive whole number \(got "0"\)/);
});

cap.run();

// ---------------------------------------------------------------- token minimum

const token = suite('mcp bearer token off loopback');

token('a short token on a non-loopback listener is refused before binding (exit 2) with a hint; the token is not printed', async () => {
  const short = 'sh0rt-t0ken-xyz';
  for (const env of [{ ASSISTANT_MCP_AUTH_TOKEN: short }, {}]) {
    const args = ['mcp', '--listen', '0.0.0.0:0', ...('ASSISTANT_MCP_AUTH_TOKEN' in env ? [] : ['--auth-token', short])];
    const r = await runCli(args, { env });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: usage: the bearer token is too short for a non-loopback listener \(at least 32 characters\)/);
    assert.match(r.stderr, /hint: .*openssl rand -hex 32/);
    assert.not.ok(r.stderr.includes(short) || r.stdout.includes(short), 'the token is never printed');
  }
});

token('a 32-character token is enough off loopback, and loopback accepts a configured token too', () =>
  withEmu(async (emu) => {
    const long = 'W4u-DwNcverRIAysQFOUm8B_tYz-QxIC'; // 32 random characters (a weak token is refused: secrets.serve-kit)
    const remote = await startMcpServer(['--listen', '0.0.0.0:0'], { env: { ...emulatorEnv(emu), ASSISTANT_MCP_AUTH_TOKEN: long } });
    try {
      const url = remote.url.replace('0.0.0.0', '127.0.0.1');
      assert.is((await rawInitialize(url, { authorization: `Bearer ${long}` })).status, 200);
    } finally {
      await remote.stop();
    }
    const x = 'e71b2a00572750df4c306a3a306279ac9e1efd9a4fc1b67d43f755daab285e4e';
    const local = await startMcpServer(['--listen', '127.0.0.1:0', '--auth-token', x], { env: emulatorEnv(emu) });
    try {
      assert.is((await rawInitialize(local.url, { authorization: `Bearer ${x}` })).status, 200);
      assert.is((await rawInitialize(local.url)).status, 401);
    } finally {
      await local.stop();
    }
  }),
);

token.run();
