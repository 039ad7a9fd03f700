/**
 * The Streamable HTTP endpoint (POST/GET/DELETE /mcp) over node:http. Every session gets its own
 * McpServer and transport (the SDK binds one server to one transport), all built by `newServer` over
 * the same backend, so concurrent agents share one gpucloud client and its rate limits.
 * Requests pass the guard (Host/Origin, bearer) and a body-size limit before the SDK sees them.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { listenError } from '../listen.js';
import { checkRequest } from './guard.js';

export const MCP_PATH = '/mcp';
/** Plans are the largest bodies an agent sends; 1 MiB holds thousands of steps. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface McpHttpOptions {
  host: string;
  port: number;
  authToken?: string;
  maxBodyBytes?: number;
  newServer: () => McpServer;
  /** Sessions unused for this long are closed (clients need not send DELETE). Default 1 hour. */
  sessionIdleMs?: number;
  log?: (line: string) => void;
}

export interface McpHttpServer {
  url: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startMcpHttpServer(opts: McpHttpOptions): Promise<McpHttpServer> {
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const lastSeen = new Map<string, number>();
  const idleMs = opts.sessionIdleMs ?? 60 * 60_000;
  let port = opts.port;
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, at] of lastSeen) if (at < cutoff) void transports.get(id)?.close();
  }, Math.min(idleMs, 60_000));
  sweeper.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== MCP_PATH) return jsonRpcError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const verdict = checkRequest(req.headers, { host: opts.host, port, authToken: opts.authToken });
    if (!verdict.ok) {
      opts.log?.(`refused ${req.method} ${path}: ${verdict.message}`);
      return jsonRpcError(res, verdict.status, verdict.message, verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    }

    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) lastSeen.set(sessionId as string, Date.now());
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!existing) return jsonRpcError(res, sessionId ? 404 : 400, sessionId ? 'Session not found' : 'Bad Request: Mcp-Session-Id header is required');
      return existing.handleRequest(req, res);
    }
    if (req.method !== 'POST') return jsonRpcError(res, 405, 'Method not allowed', { allow: 'GET, POST, DELETE' });

    let body: unknown;
    try {
      body = await readJson(req, limit);
    } catch (err) {
      if (err instanceof BodyTooLarge) return jsonRpcError(res, 413, `Request body larger than ${limit} bytes`);
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
    }
    if (existing) return existing.handleRequest(req, res, body);
    if (sessionId) return jsonRpcError(res, 404, 'Session not found');
    if (!isInitializeRequest(body)) return jsonRpcError(res, 400, 'Bad Request: no valid session; send initialize first');

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        lastSeen.set(id, Date.now());
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      transports.delete(transport.sessionId);
      lastSeen.delete(transport.sessionId);
    };
    await opts.newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
      jsonRpcError(res, 500, 'Internal server error');
    });
  });
  // Agents keep sessions open; idle sockets must not hold the process at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, opts.host, opts.port)));
    server.listen(opts.port, opts.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const hostInUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  return {
    url: `http://${hostInUrl}:${port}${MCP_PATH}`,
    port,
    sessions: () => transports.size,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
