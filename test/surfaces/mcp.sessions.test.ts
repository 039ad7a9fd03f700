/**
 * Session lifetime of the HTTP server (in-process, SDK client): DELETE ends a session, idle sessions
 * are closed, and a closed session is answered 404 so the client knows to initialize again.
 */
import { PROVIDERS } from '../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpHttpServer } from '../../mcp/http.js';
import { progressReporter } from '../../mcp/progress.js';
import { createMcpServer } from '../../mcp/server.js';
import type { McpBackend } from '../../mcp/tools.js';
import type { Config } from '../../schemas/config.js';
import { tempDir } from '../support/temp.js';

const backend: McpBackend = {
  config: {} as Config,
  predefined: {},
  providers: PROVIDERS,
  runContext: () => {
    throw new Error('no gpucloud in this test');
  },
  home: tempDir('mcp-sessions-'),
  env: {},
  sandbox: false,
  destroyer: false,
};

/** Waits for `pred`, checking every few ms; a minute at most (a busy machine delays timers, never skips them). */
async function until(pred: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 60 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 't', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

test('DELETE ends a session and the server forgets it', async () => {
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => createMcpServer(backend) });
  try {
    const { client, transport } = await connect(server.url);
    assert.is(server.sessions(), 1);
    await transport.terminateSession();
    assert.is(server.sessions(), 0);
    await client.close();
  } finally {
    await server.close();
  }
});

test('an idle session is closed and a later request on it gets 404', async () => {
  // Idleness by a clock the test steps: however slow the machine, the session is not idle until it says so.
  let clock = 0;
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, sessionIdleMs: 150, now: () => clock, newServer: () => createMcpServer(backend) });
  try {
    const { client, transport } = await connect(server.url);
    await client.callTool({ name: 'assistant_route_question', arguments: { question: 'list my volumes' } });
    clock += 1_000;
    await until(() => server.sessions() === 0); // the sweeper runs every 150 ms; a busy machine may delay it
    assert.is(server.sessions(), 0, 'the idle session was closed');
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    assert.is(res.status, 404);
    await client.close();
  } finally {
    await server.close();
  }
});

test('a request without a session that is not initialize is refused with 400', async () => {
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => createMcpServer(backend) });
  try {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.is(res.status, 400);
    const other = await fetch(server.url.replace('/mcp', '/other'), { method: 'POST', body: '{}' });
    assert.is(other.status, 404);
  } finally {
    await server.close();
  }
});

test('a port already in use is a clear listen_failed error, not a crash', async () => {
  const first = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => createMcpServer(backend) });
  try {
    const err = await startMcpHttpServer({ host: '127.0.0.1', port: first.port, newServer: () => createMcpServer(backend) }).then(
      () => undefined,
      (e: { code?: string; message?: string; hint?: string }) => e,
    );
    assert.is(err?.code, 'listen_failed');
    assert.match(err?.message ?? '', /address already in use/);
    assert.match(err?.hint ?? '', /--listen/);
  } finally {
    await first.close();
  }
});

test('progress keeps increasing through heartbeats and repeated step counts, and stays below the next step', async () => {
  const sent: { progress: number; total?: number }[] = [];
  const progress = progressReporter(
    { _meta: { progressToken: 't' }, sendNotification: async (n) => void sent.push(n.params as { progress: number; total?: number }) },
    20,
  );
  progress.report(0, 2, 'step 1/2');
  await until(() => sent.length >= 4); // a long wait: three heartbeats
  progress.report(1, 2, 'step 1/2 done');
  progress.report(1, 2, 'step 2/2'); // the next step starts at the count the last one ended on
  progress.report(2, 2, 'step 2/2 done');
  progress.stop();
  const values = sent.map((n) => n.progress);
  assert.ok(values.length >= 6, `heartbeats were sent: ${values.join(', ')}`);
  for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `strictly increasing: ${values.join(', ')}`);
  assert.ok(values.filter((v) => v > 0 && v < 1).length >= 2, 'heartbeats stay between step 0 and step 1');
  assert.is(values.at(-1), 2);
  const count = sent.length;
  await new Promise((r) => setTimeout(r, 60));
  assert.is(sent.length, count, 'no heartbeat after stop');
});

test('without a progress token nothing is sent', () => {
  const sent: unknown[] = [];
  const progress = progressReporter({ _meta: {}, sendNotification: async (n) => void sent.push(n) }, 5);
  progress.report(1, 2, 'x');
  progress.stop();
  assert.equal(sent, []);
});

test.run();
