/**
 * Every HTTP server we run (the emulator, the sandbox's Kubernetes API stand-in, MCP over HTTP, the box)
 * answers a body it refuses without reading and then closes the connection: a client that declares a
 * gigabyte gets its 413 (or 401) and a closed socket, not a server that reads and drops the gigabyte to
 * keep the connection alive (Node's default for an answer sent before the body was read).
 */
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBoxServer } from '../../box/server.js';
import { emptyAgent } from '../../box/agents/empty.js';
import { startEmulator } from '../../emulator/index.js';
import { sandboxKubeToken, startKubeApi } from '../../engine/producers/sandbox/kube-api.js';
import { startMcpHttpServer } from '../../mcp/http.js';
import { tempDir } from '../support/temp.js';

const GIGABYTE = 1024 * 1024 * 1024;
/** Long enough for any answer on a busy machine; a server that drains the upload holds the socket for minutes. */
const PATIENCE_MS = 20_000;

/**
 * POSTs a head declaring a gigabyte and sends the first kilobyte of it: the status of the answer, and
 * whether the server closed the connection after it (false: still open after PATIENCE_MS).
 */
function declareGigabyte(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; closed: boolean; head: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const head = text.split('\r\n\r\n')[0] ?? '';
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), closed, head });
    };
    const timer = setTimeout(() => done(false), PATIENCE_MS);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => done(true));
    socket.on('error', () => done(true));
    const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Content-Length: ${GIGABYTE}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${'x'.repeat(1024)}`);
  });
}

test('the emulator answers a declared gigabyte with 413 and closes the connection', async () => {
  const emu = await startEmulator();
  try {
    const r = await declareGigabyte(emu.url, '/v1/instances', { Authorization: 'Bearer whatever' });
    assert.is(r.status, 413, r.head);
    assert.ok(r.closed, 'the connection closed after the answer');
    assert.match(r.head.toLowerCase(), /\r\nconnection: close/);
  } finally {
    await emu.close();
  }
});

test("the sandbox's Kubernetes API answers a declared gigabyte with 413, and a request without its token with 401, closing the connection after either", async () => {
  const dir = tempDir('unread-kube-');
  const api = await startKubeApi(dir);
  try {
    const big = await declareGigabyte(api.url, '/clusters/c1/api/v1/namespaces/default/pods', { Authorization: `Bearer ${sandboxKubeToken(dir)}` });
    assert.is(big.status, 413, big.head);
    assert.ok(big.closed, 'closed after the 413');
    const anonymous = await declareGigabyte(api.url, '/clusters/c1/api/v1/namespaces/default/pods');
    assert.is(anonymous.status, 401, anonymous.head);
    assert.ok(anonymous.closed, 'closed after the 401');
  } finally {
    await api.close();
  }
});

test('MCP over HTTP answers a declared gigabyte with 413 and closes the connection', async () => {
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => new McpServer({ name: 'unread-body', version: '0' }) });
  try {
    const r = await declareGigabyte(server.url, new URL(server.url).pathname || '/mcp', { Accept: 'application/json, text/event-stream' });
    assert.is(r.status, 413, r.head);
    assert.ok(r.closed, 'the connection closed after the answer');
  } finally {
    await server.close();
  }
});

test('the box answers a declared gigabyte with 413 and closes the connection', async () => {
  const box = await startBoxServer({ host: '127.0.0.1', port: 0, agent: emptyAgent(), version: '0' });
  try {
    const r = await declareGigabyte(box.url, '/v1/box/messages');
    assert.is(r.status, 413, r.head);
    assert.ok(r.closed, 'the connection closed after the answer');
  } finally {
    await box.close();
  }
});

test.run();
