/**
 * The Streamable HTTP endpoint (POST/GET/DELETE /mcp) over node:http. Every session gets its own
 * McpServer and transport (the SDK binds one server to one transport), all built by `newServer` over
 * the same backend, so concurrent agents share one gpucloud client and its rate limits.
 * Requests pass the serve kit's guard (engine/core/kits/serve/: query tokens, Host/Origin, bearer) and a
 * body-size limit before the SDK sees them; the kit bounds time and connections and stops the server.
 *
 * Sessions are capped (`maxSessions`): when the table is full, a new initialize evicts the least
 * recently used session that has no POST in flight. Eviction rather than refusal because the
 * sessions that fill the table are almost always ones their clients forgot (no DELETE), and refusing
 * would lock every new agent out until the idle timeout; an evicted client gets 404, which tells it to
 * initialize again. Only when every session is busy is the initialize refused (503 + Retry-After),
 * since evicting a busy one would cut a running plan apply short.
 *
 * Stateless mode (`stateless`) serves one-shot clients that POST `tools/call` without initialize: each
 * POST gets a fresh server and a transport without a session id (the SDK's documented pattern), torn
 * down when the response ends; GET and DELETE have no session to act on and get 405.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { checkRequest, type GuardPolicy } from '../engine/core/kits/serve/guard.js';
import { serve, type ServeLimits } from '../engine/core/kits/serve/http.js';
import type { ServerToken } from '../engine/core/kits/serve/token.js';
import { SessionTransport, wantsProgress } from './session-transport.js';
import { BodyTooLarge, closeIfBodyUnread, readRequestBody } from '../engine/core/request-body.js';

export const MCP_PATH = '/mcp';
/** Plans are the largest bodies an agent sends; 1 MiB holds thousands of steps. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** About 30 KB each: 100 sessions hold ~3 MB, where 2,000 unbounded ones held 63 MB. */
export const DEFAULT_MAX_SESSIONS = 100;

export interface McpHttpOptions {
  host: string;
  port: number;
  /** The bearer token every request must carry (its digest; engine/core/kits/serve/token.ts). */
  token?: ServerToken;
  maxBodyBytes?: number;
  newServer: () => McpServer;
  /** Sessions unused for this long are closed (clients need not send DELETE). Default 1 hour. */
  sessionIdleMs?: number;
  /** Live sessions at most; see the top of this file. Default DEFAULT_MAX_SESSIONS. */
  maxSessions?: number;
  /** No sessions: every POST is served on its own (one-shot clients that skip initialize). */
  stateless?: boolean;
  log?: (line: string) => void;
  /** The clock idleness is measured by (tests step it); default Date.now. */
  now?: () => number;
  /** Connection bounds (the serve kit's defaults otherwise). */
  connections?: ServeLimits;
}

export interface McpHttpServer {
  url: string;
  port: number;
  sessions(): number;
  /** Sessions closed to make room for new ones since start. */
  evicted(): number;
  close(): Promise<void>;
}

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...closeIfBodyUnread(res), ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const readJson = async (req: IncomingMessage, limit: number): Promise<unknown> => JSON.parse((await readRequestBody(req, limit)).toString('utf8'));

export async function startMcpHttpServer(opts: McpHttpOptions): Promise<McpHttpServer> {
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const transports = new Map<string, SessionTransport>();
  // Insertion order is recency order: a session is re-inserted on every request, so the first
  // entry is the least recently used one (O(1) to find, no sort).
  const lastSeen = new Map<string, number>();
  // POSTs in progress per session: a busy session is never evicted or swept.
  const inFlight = new Map<string, number>();
  const idleMs = opts.sessionIdleMs ?? 60 * 60_000;
  const maxSessions = Math.max(1, opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
  let evicted = 0;
  // Initializes whose session id is not yet in `transports` still count against the cap.
  let pendingInits = 0;
  const policy: GuardPolicy = { host: opts.host, port: opts.port, token: opts.token };
  const now = opts.now ?? Date.now;
  const sweeper = setInterval(() => {
    const cutoff = now() - idleMs;
    for (const [id, at] of lastSeen) if (at < cutoff && !inFlight.get(id)) void transports.get(id)?.close();
  }, Math.min(idleMs, 60_000));
  sweeper.unref();

  const touch = (id: string): void => {
    lastSeen.delete(id);
    lastSeen.set(id, now());
  };
  /** Counts a request against its session until the response is finished or the socket closes. */
  const track = (id: string, res: ServerResponse): void => {
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(id) ?? 1) - 1;
      if (left > 0) inFlight.set(id, left);
      else inFlight.delete(id);
      if (transports.has(id)) touch(id);
    });
  };
  /** Makes room for one more session; false when every session is busy. */
  const makeRoom = async (): Promise<boolean> => {
    while (transports.size + pendingInits >= maxSessions) {
      const victim = [...lastSeen.keys()].find((id) => !inFlight.get(id));
      if (!victim) return false;
      evicted++;
      opts.log?.(`session limit (${maxSessions}) reached: closing the least recently used idle session`);
      const transport = transports.get(victim);
      transports.delete(victim);
      lastSeen.delete(victim);
      await transport?.close().catch(() => undefined);
    }
    return true;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // One POST, one answer: JSON unless the request asked for progress (as in a session: mcp/session-transport.ts).
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
    const server = opts.newServer();
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== MCP_PATH) return jsonRpcError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const verdict = checkRequest(req.headers, req.url ?? '/', policy);
    if (!verdict.ok) {
      opts.log?.(`refused ${req.method} ${path}: ${verdict.message}`);
      return jsonRpcError(res, verdict.status, verdict.message, { connection: 'close', ...(verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
    }
    served.prove(req);

    if (opts.stateless && req.method !== 'POST') {
      return jsonRpcError(res, 405, 'Method not allowed: this server is stateless (no sessions, no GET stream)', { allow: 'POST' });
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) {
      touch(sessionId as string);
      // A POST is work in progress (a tool call, maybe a long apply). The GET stream is not: SDK
      // clients hold one open for the whole session, so counting it would make every session busy.
      if (req.method === 'POST') track(sessionId as string, res);
    }
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
    if (opts.stateless) return serveStateless(req, res, body);
    if (existing) return existing.handleRequest(req, res, body);
    if (sessionId) return jsonRpcError(res, 404, 'Session not found');
    if (!isInitializeRequest(body)) return jsonRpcError(res, 400, 'Bad Request: no valid session; send initialize first');

    if (!(await makeRoom())) {
      opts.log?.(`session limit (${maxSessions}) reached and every session is busy: initialize refused`);
      return jsonRpcError(res, 503, `Too many sessions: all ${maxSessions} are busy; retry shortly or end unused sessions with DELETE`, { 'retry-after': '5' });
    }
    pendingInits++;
    let counted = true;
    const settle = (): void => {
      if (counted) pendingInits--;
      counted = false;
    };
    // Answers as one JSON body unless a request asks for progress (mcp/session-transport.ts).
    const transport = new SessionTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        settle();
        transports.set(id, transport);
        touch(id);
        track(id, res);
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      transports.delete(transport.sessionId);
      lastSeen.delete(transport.sessionId);
    };
    res.once('close', settle);
    await opts.newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const served = await serve({
    host: opts.host,
    port: opts.port,
    limits: opts.connections,
    log: opts.log,
    handler: (req, res) => {
      handle(req, res).catch((err: unknown) => {
        opts.log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
        jsonRpcError(res, 500, 'Internal server error');
      });
    },
  });
  policy.port = served.port;

  return {
    url: `${served.url}${MCP_PATH}`,
    port: served.port,
    sessions: () => transports.size,
    evicted: () => evicted,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      await served.stop(0);
    },
  };
}
