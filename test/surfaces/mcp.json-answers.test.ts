/**
 * The HTTP server answers a POST with one JSON body unless a request in it asks for progress, which
 * then streams (mcp/session-transport.ts, issue 25): checked on the wire, in sessions and stateless, with
 * two POSTs of one session in flight at once, each keeping its own mode.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { wantsProgress } from '../../mcp/session-transport.js';
import { emulatorEnv, tempHome } from '../support/cli.js';
import { connectHttp, rawInitialize, rawPost, startMcpServer, type McpProcess } from '../support/mcp.js';

const ctx = { emu: undefined as unknown as Emulator, server: undefined as unknown as McpProcess, stateless: undefined as unknown as McpProcess };
const test = suite('mcp answers as json unless progress is asked for');

test.before(async () => {
  ctx.emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  ctx.server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(ctx.emu), home: tempHome('assistant-mcp-json-') });
  ctx.stateless = await startMcpServer(['--listen', '127.0.0.1:0', '--stateless'], { env: emulatorEnv(ctx.emu), home: tempHome('assistant-mcp-json-') });
});

test.after(async () => {
  await ctx.server?.stop();
  await ctx.stateless?.stop();
  await ctx.emu?.close();
});

const listCall = (id: number, progressToken?: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'assistant_gpucloud_list', arguments: { resource: 'instances' }, ...(progressToken ? { _meta: { progressToken } } : {}) },
  });

async function session(url: string): Promise<Record<string, string>> {
  const init = await rawInitialize(url);
  assert.is(init.status, 200);
  const headers = { 'mcp-session-id': init.sessionId!, 'mcp-protocol-version': '2025-03-26' };
  const ack = await rawPost(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
  assert.is(ack.status, 202);
  return headers;
}

test('which bodies ask for progress: a token in any request of a batch, nothing else', () => {
  assert.ok(wantsProgress(JSON.parse(listCall(1, 'p'))));
  assert.ok(wantsProgress([JSON.parse(listCall(1)), JSON.parse(listCall(2, 'p'))]));
  assert.not.ok(wantsProgress(JSON.parse(listCall(1))));
  assert.not.ok(wantsProgress([JSON.parse(listCall(1))]));
  assert.not.ok(wantsProgress(null));
  assert.not.ok(wantsProgress({ params: { _meta: null } }));
  assert.ok(wantsProgress({ params: { _meta: { progressToken: 0 } } }), 'a token of 0 is a token');
});

test('in a session, a call without a progress token is answered as one JSON body', async () => {
  const headers = await session(ctx.server.url);
  const res = await rawPost(ctx.server.url, listCall(2), headers);
  assert.is(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.is(res.headers['mcp-session-id'], headers['mcp-session-id'], 'a JSON answer names its session, as a streamed one does');
  const answer = JSON.parse(res.body) as { id: number; result: { structuredContent: { resource: string; count: number } } };
  assert.is(answer.id, 2);
  assert.is(answer.result.structuredContent.resource, 'instances');
  assert.ok(answer.result.structuredContent.count > 0);
});

test('in a session, a call with a progress token streams (text/event-stream)', async () => {
  const headers = await session(ctx.server.url);
  const res = await rawPost(ctx.server.url, listCall(3, 'tok'), headers);
  assert.is(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/event-stream/);
  assert.match(res.body, /^data: .*"id":3/m);
});

test('two POSTs of one session in flight at once keep their own modes', async () => {
  const headers = await session(ctx.server.url);
  const calls = Array.from({ length: 8 }, (_, i) => rawPost(ctx.server.url, listCall(10 + i, i % 2 ? `t${i}` : undefined), headers));
  const answers = await Promise.all(calls);
  answers.forEach((res, i) => {
    assert.is(res.status, 200);
    assert.match(String(res.headers['content-type']), i % 2 ? /^text\/event-stream/ : /^application\/json/, `call ${i}`);
    assert.match(res.body, `"id":${10 + i}`);
  });
});

test('stateless: JSON without a token, a stream with one', async () => {
  const plain = await rawPost(ctx.stateless.url, listCall(4));
  assert.is(plain.status, 200);
  assert.match(String(plain.headers['content-type']), /^application\/json/);
  assert.is((JSON.parse(plain.body) as { id: number }).id, 4);
  const streamed = await rawPost(ctx.stateless.url, listCall(5, 'tok'));
  assert.match(String(streamed.headers['content-type']), /^text\/event-stream/);
  assert.match(streamed.body, /"id":5/);
});

test("the SDK's client reads both kinds of answer in one session", async () => {
  const client = await connectHttp(ctx.server.url);
  try {
    const plain = (await client.callTool({ name: 'assistant_gpucloud_list', arguments: { resource: 'volumes' } })) as { structuredContent?: { resource: string } };
    assert.is(plain.structuredContent?.resource, 'volumes');
    const seen: number[] = [];
    const withProgress = (await client.callTool({ name: 'assistant_gpucloud_list', arguments: { resource: 'volumes' } }, undefined, { onprogress: (p) => seen.push(p.progress) })) as {
      structuredContent?: { resource: string };
    };
    assert.is(withProgress.structuredContent?.resource, 'volumes');
  } finally {
    await client.close();
  }
});

test.run();
