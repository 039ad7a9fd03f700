/**
 * The box's HTTP server (node:http) and WebSocket endpoint (the `ws` package).
 *
 *   GET  /healthz                  no auth; 200 {status: ok}, 503 while shutting down
 *   GET  /v1/box/info              the agent, its modes, the limits
 *   POST /v1/box/messages          {session_id?, message, mode?} → JSON, or SSE with Accept: text/event-stream
 *   GET  /v1/box/sessions/{id}     the session's history
 *   GET  /v1/box/ws                WebSocket: {type: "message", …} frames in, session/token/answer/error frames out
 *
 * There is no route that runs commands. Every request passes the serve kit's guard first
 * (engine/core/kits/serve/guard.ts: query tokens, Host, Origin, bearer). Bounds: body and frame size,
 * message length, one deadline per message, live sessions, one message at a time per session, and from
 * the kit header and upload time, connections, and unproven (slow, tokenless) connections. `close(drainMs)`
 * stops taking work, lets in-flight answers finish for up to drainMs, then cancels the rest.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { checkRequest, normaliseOrigin, type GuardPolicy } from '../engine/core/kits/serve/guard.js';
import { serve, type ServeLimits } from '../engine/core/kits/serve/http.js';
import type { ServerToken } from '../engine/core/kits/serve/token.js';
import { redactText } from '../engine/core/redact.js';
import type { AgentRunner } from './agent.js';
import { RequestAborted, type ClientError } from './errors.js';
import { answerMessage, InFlight, inputProblem, messageSchema, type MessageContext, type MessageOutcome } from './messages.js';
import { SessionStore } from './sessions.js';
import { BodyTooLarge, closeIfBodyUnread, readRequestBody } from '../engine/core/request-body.js';

export const BOX_DEFAULTS = {
  maxBodyBytes: 1024 * 1024,
  maxMessageChars: 32_000,
  requestTimeoutMs: 120_000,
  maxSessions: 100,
  sessionIdleMs: 30 * 60_000,
  maxTurns: 50,
  drainMs: 10_000,
} as const;

/** After the drain, cancelled answers get this long to send their error before connections are cut. */
const CANCEL_GRACE_MS = 2_000;
/** SSE comment lines keep proxies from closing a quiet stream while the agent thinks. */
const SSE_HEARTBEAT_MS = 15_000;

export interface BoxServerOptions {
  host: string;
  port: number;
  agent: AgentRunner;
  token?: ServerToken;
  version: string;
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  maxMessageChars?: number;
  requestTimeoutMs?: number;
  maxSessions?: number;
  sessionIdleMs?: number;
  maxTurns?: number;
  /** Connection bounds (the serve kit's defaults otherwise). */
  connections?: ServeLimits;
  log?: (line: string) => void;
}

export interface BoxServer {
  url: string;
  port: number;
  sessions(): number;
  inFlight(): number;
  /** Stops taking work; in-flight answers get `drainMs` to finish, then are cancelled. */
  close(drainMs?: number): Promise<{ finished: number; cancelled: number }>;
}

const readBody = async (req: IncomingMessage, limit: number): Promise<string> => (await readRequestBody(req, limit)).toString('utf8');

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text), ...closeIfBodyUnread(res), ...headers });
  res.end(text);
}

const errorBody = (e: ClientError) => ({ error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });

function sendError(res: ServerResponse, e: ClientError, headers: Record<string, string> = {}): void {
  sendJson(res, e.status, errorBody(e), headers);
}

const ROUTES: { path: RegExp; methods: string[] }[] = [
  { path: /^\/healthz$/, methods: ['GET', 'HEAD'] },
  { path: /^\/v1\/box\/info$/, methods: ['GET'] },
  { path: /^\/v1\/box\/messages$/, methods: ['POST'] },
  { path: /^\/v1\/box\/sessions\/[^/]+$/, methods: ['GET'] },
  { path: /^\/v1\/box\/ws$/, methods: ['GET'] },
];

export async function startBoxServer(opts: BoxServerOptions): Promise<BoxServer> {
  const limits = {
    maxBodyBytes: opts.maxBodyBytes ?? BOX_DEFAULTS.maxBodyBytes,
    maxMessageChars: opts.maxMessageChars ?? BOX_DEFAULTS.maxMessageChars,
    requestTimeoutMs: opts.requestTimeoutMs ?? BOX_DEFAULTS.requestTimeoutMs,
  };
  const log = opts.log ? (line: string) => opts.log!(redactText(line)) : undefined;
  const sessions = new SessionStore({
    max: opts.maxSessions ?? BOX_DEFAULTS.maxSessions,
    idleMs: opts.sessionIdleMs ?? BOX_DEFAULTS.sessionIdleMs,
    maxTurns: opts.maxTurns ?? BOX_DEFAULTS.maxTurns,
    onEnd: (id) => opts.agent.endSession?.(id),
  });
  const inFlight = new InFlight();
  let draining = false;
  const schema = messageSchema(limits.maxMessageChars);
  const messages: MessageContext = { agent: opts.agent, sessions, inFlight, limits, draining: () => draining, log };
  const policy: GuardPolicy = { host: opts.host, port: opts.port, token: opts.token, hostCheck: 'loopback', allowedOrigins: new Set((opts.allowedOrigins ?? []).map((o) => normaliseOrigin(o) ?? o)) };
  /** Whether a request that passed the guard proves its connection: one that showed the token (or the box has none). */
  const proves = (needsToken: boolean) => needsToken || !opts.token;

  const info = () => ({
    box: 'assistant box',
    version: opts.version,
    agent: { name: opts.agent.name, kind: opts.agent.kind, description: opts.agent.description, modes: opts.agent.modes },
    auth: opts.token ? 'bearer' : 'none (loopback only)',
    sessions: { live: sessions.size, max: sessions.max, idle_expiry_s: (opts.sessionIdleMs ?? BOX_DEFAULTS.sessionIdleMs) / 1000, max_turns: opts.maxTurns ?? BOX_DEFAULTS.maxTurns },
    limits: { max_body_bytes: limits.maxBodyBytes, max_message_chars: limits.maxMessageChars, request_timeout_s: limits.requestTimeoutMs / 1000 },
    routes: ['GET /healthz', 'GET /v1/box/info', 'POST /v1/box/messages', 'GET /v1/box/sessions/{id}', 'GET /v1/box/ws (WebSocket)'],
  });

  const postMessage = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const type = String(req.headers['content-type'] ?? 'application/json');
    if (!/^application\/json\b/i.test(type)) return sendError(res, { status: 415, code: 'unsupported_media_type', message: 'send the message as application/json' });
    let text: string;
    try {
      text = await readBody(req, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        return sendError(res, { status: 413, code: 'body_too_large', message: `the body is larger than ${limits.maxBodyBytes} bytes` });
      }
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendError(res, { status: 400, code: 'invalid_json', message: 'the body is not JSON' });
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) return sendError(res, inputProblem(parsed.error));
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const wantsSse = /\btext\/event-stream\b/i.test(String(req.headers.accept ?? ''));
    if (!wantsSse) {
      const outcome = await answerMessage(messages, parsed.data, { clientGone: gone.signal });
      return outcome.ok ? sendJson(res, 200, replyBody(outcome)) : sendError(res, outcome.error);
    }
    // SSE: the session first, the answer's text as it comes, then the answer (or an error) and the end.
    let started = false;
    const event = (name: string, data: unknown) => {
      if (!started) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
        started = true;
      }
      if (!res.destroyed) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const heartbeat = setInterval(() => started && !res.destroyed && res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    try {
      const outcome = await answerMessage(messages, parsed.data, {
        clientGone: gone.signal,
        onSession: (id) => event('session', { session_id: id }),
        onToken: (t) => event('token', { text: t }),
      });
      // Refused before anything streamed (busy, unknown session, too many): a plain HTTP error.
      if (!outcome.ok && !started) return sendError(res, outcome.error);
      if (outcome.ok) event('answer', replyBody(outcome));
      else event('error', errorBody(outcome.error).error);
      event('done', {});
      res.end();
    } finally {
      clearInterval(heartbeat);
    }
  };

  const getSession = (res: ServerResponse, id: string): void => {
    let key: string;
    try {
      key = decodeURIComponent(id);
    } catch {
      key = ''; // not even a valid escape: no session has that id
    }
    const s = sessions.get(key);
    if (!s) return sendError(res, { status: 404, code: 'session_not_found', message: 'no such session (or it expired)' });
    sendJson(res, 200, {
      session_id: s.id,
      created_at: new Date(s.createdAt).toISOString(),
      last_used_at: new Date(s.lastUsedAt).toISOString(),
      expires_at: new Date(sessions.expiresAt(s)).toISOString(),
      busy: s.busy,
      turns: s.turns,
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    const route = ROUTES.find((r) => r.path.test(path));
    const needsToken = path !== '/healthz';
    const verdict = checkRequest(req.headers, url, policy, { needsToken });
    if (!verdict.ok) {
      log?.(`refused ${req.method} ${path}: ${verdict.code}`);
      return sendError(res, { status: verdict.status, code: verdict.code, message: verdict.message }, { connection: 'close', ...(verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
    }
    if (proves(needsToken)) served.prove(req);
    if (!route) return sendError(res, { status: 404, code: 'not_found', message: `no route ${path}`, hint: 'routes: GET /healthz, GET /v1/box/info, POST /v1/box/messages, GET /v1/box/sessions/{id}, GET /v1/box/ws' });
    if (!route.methods.includes(req.method ?? '')) return sendError(res, { status: 405, code: 'method_not_allowed', message: `${req.method} is not allowed on ${path}` }, { allow: route.methods.join(', ') });
    if (path === '/healthz') return sendJson(res, draining ? 503 : 200, { status: draining ? 'shutting_down' : 'ok', agent: opts.agent.name });
    if (path === '/v1/box/info') return sendJson(res, 200, info());
    if (path === '/v1/box/ws') return sendError(res, { status: 426, code: 'upgrade_required', message: 'this route is a WebSocket' }, { upgrade: 'websocket' });
    if (path === '/v1/box/messages') return postMessage(req, res);
    return getSession(res, path.slice('/v1/box/sessions/'.length));
  };

  // Slow or stalled clients cannot hold the box: headers within 10 s, a whole upload within 30 s, and
  // tokenless connections give way to a client with the token (engine/core/kits/serve/http.ts).
  const served = await serve({
    host: opts.host,
    port: opts.port,
    limits: { maxConnections: Math.max(64, 2 * sessions.max + 16), ...opts.connections },
    log,
    handler: (req, res) => {
      handle(req, res).catch((err: unknown) => {
        log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
        sendError(res, { status: 500, code: 'internal', message: 'internal error' });
      });
    },
  });
  const server = served.server;
  policy.port = served.port;

  // ---------------------------------------------------------------- WebSocket
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxBodyBytes, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();
  const refuseUpgrade = (socket: Socket, status: number, code: string, message: string): void => {
    const body = JSON.stringify({ error: { code, message } });
    const reason = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' }[status] ?? 'Error';
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${status === 401 ? 'WWW-Authenticate: Bearer\r\n' : ''}\r\n${body}`);
  };
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => undefined);
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (path !== '/v1/box/ws') return refuseUpgrade(socket, 404, 'not_found', `no WebSocket at ${path}`);
    const verdict = checkRequest(req.headers, url, policy, { needsToken: true });
    if (!verdict.ok) {
      log?.(`refused WebSocket: ${verdict.code}`);
      return refuseUpgrade(socket, verdict.status, verdict.code, verdict.message);
    }
    served.prove(req);
    if (draining) return refuseUpgrade(socket, 503, 'shutting_down', 'the box is shutting down');
    if (sockets.size >= sessions.max) return refuseUpgrade(socket, 503, 'too_many_connections', `the box holds ${sessions.max} WebSocket connections already`);
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  });

  const serveSocket = (ws: WebSocket): void => {
    sockets.add(ws);
    const gone = new AbortController();
    let busy = false;
    const idleMs = opts.sessionIdleMs ?? BOX_DEFAULTS.sessionIdleMs;
    // A connection with no message for idleMs is closed; one waiting for its answer is not idle.
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      if (ws.readyState !== ws.OPEN) return; // an answer finishing after the client left arms nothing
      idle = setTimeout(() => (busy ? armIdle() : ws.close(1000, 'idle')), idleMs);
      idle.unref();
    };
    armIdle();
    const send = (frame: Record<string, unknown>) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame));
    ws.on('close', () => {
      sockets.delete(ws);
      clearTimeout(idle);
      gone.abort();
    });
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      armIdle();
      if (isBinary) return ws.close(1003, 'text frames only');
      let frame: unknown;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        return send({ type: 'error', code: 'invalid_json', message: 'the frame is not JSON' });
      }
      const { type, id, ...rest } = (frame && typeof frame === 'object' ? frame : {}) as Record<string, unknown>;
      const ref = typeof id === 'string' || typeof id === 'number' ? { id } : {};
      if (type !== 'message') return send({ type: 'error', ...ref, code: 'invalid_frame', message: 'frames are {"type": "message", "message": "...", "session_id"?, "mode"?, "id"?}' });
      const parsed = schema.safeParse(rest);
      if (!parsed.success) return send({ type: 'error', ...ref, ...errorBody(inputProblem(parsed.error)).error });
      if (busy) return send({ type: 'error', ...ref, code: 'busy', message: 'this connection is answering another message; wait for its answer' });
      busy = true;
      void answerMessage(messages, parsed.data, {
        clientGone: gone.signal,
        onSession: (sessionId) => send({ type: 'session', ...ref, session_id: sessionId }),
        onToken: (text) => send({ type: 'token', ...ref, text }),
      }).then((outcome) => {
        busy = false;
        armIdle();
        if (outcome.ok) send({ type: 'answer', ...ref, ...replyBody(outcome) });
        else send({ type: 'error', ...ref, ...(outcome.sessionId ? { session_id: outcome.sessionId } : {}), ...errorBody(outcome.error).error });
      });
    });
  };

  let closing: Promise<{ finished: number; cancelled: number }> | undefined;
  const close = async (drainMs: number = BOX_DEFAULTS.drainMs) => {
    draining = true;
    served.stopAccepting();
    const pending = inFlight.size;
    const all = await inFlight.drained(drainMs);
    let cancelled = 0;
    if (!all) {
      cancelled = inFlight.size;
      inFlight.abortAll(new RequestAborted('shutting_down', 'the box is shutting down; the answer was cancelled'));
      await inFlight.drained(CANCEL_GRACE_MS);
    }
    for (const ws of sockets) ws.close(1001, 'shutting down');
    sessions.close();
    await opts.agent.close().catch(() => undefined);
    wss.close();
    await served.stop(0);
    return { finished: pending - cancelled, cancelled };
  };

  return {
    url: served.url,
    port: served.port,
    sessions: () => sessions.size,
    inFlight: () => inFlight.size,
    close: (drainMs) => (closing ??= close(drainMs)),
  };
}

function replyBody(outcome: Extract<MessageOutcome, { ok: true }>): Record<string, unknown> {
  const { reply } = outcome;
  return {
    session_id: outcome.sessionId,
    mode: outcome.mode,
    answer: reply.answer,
    ...(reply.plan ? { plan: reply.plan } : {}),
    ...(reply.report ? { report: reply.report } : {}),
    ...(reply.meta ? { meta: reply.meta } : {}),
  };
}
