/**
 * A local OpenAI-compatible HTTP server for tests (127.0.0.1, port 0): scripted replies, recorded
 * requests, streaming over SSE, 429 with Retry-After, slow replies for timeouts. It also answers the
 * Anthropic Messages and Models endpoints (requests with an `anthropic-version` header), so the real
 * SDKs of both protocols can be run against it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'uvu';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined for GET). */
  body: any;
  at: number;
}

export type ScriptedReply =
  /** A chat answer; streamed token by token when the request asks for a stream. */
  | {
      text: string;
      tokens?: string[];
      tokenDelayMs?: number;
      delayMs?: number;
      /** Streams this many tokens, then drops the connection. */
      cutAfterTokens?: number;
      /** Streams the first token, then holds the rest until this settles: a client that sees the
       * first token before it resolves is provably streaming (no timing involved). */
      restAfter?: Promise<unknown>;
    }
  /** An HTTP error (or any status) with a JSON body and headers. */
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Decide from the request. */
  | ((req: RecordedRequest) => ScriptedReply);

export interface OpenAiTestServer {
  url: string;
  /** OpenAI-style base URL: `${url}/v1`. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Chat requests only (chat completions and anthropic messages). */
  chatRequests(): RecordedRequest[];
  /** Queue replies for the next chat requests, in order. */
  reply(...replies: ScriptedReply[]): void;
  /** Reply used when the queue is empty (default: text "ok"). */
  setDefault(reply: ScriptedReply): void;
  /** Model ids listed by GET /v1/models. */
  setModels(ids: string[]): void;
  /** Resolves with the next chat request whose client went away before its reply was complete. */
  nextCancelled(): Promise<RecordedRequest>;
  reset(): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

// Unref'd: tests script replies that never come in time (minutes) to mean "too slow"; those must not
// keep the test process alive once the server is closed.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

function splitTokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

export async function startOpenAiServer(): Promise<OpenAiTestServer> {
  let queue: ScriptedReply[] = [];
  let fallback: ScriptedReply = { text: 'ok' };
  let models = ['test-model-a', 'test-model-b'];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const cancelled: RecordedRequest[] = [];
  // Responses the server itself cut (cutAfterTokens, close): not the client cancelling.
  const dropped = new WeakSet<ServerResponse>();
  let cancelWaiters: ((req: RecordedRequest) => void)[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    const path = (req.url ?? '/').split('?')[0]!;
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers, body: raw ? safeJson(raw) : undefined, at: Date.now() };
    requests.push(recorded);
    res.on('close', () => {
      if (res.writableEnded || dropped.has(res)) return;
      const waiter = cancelWaiters.shift();
      if (waiter) waiter(recorded);
      else cancelled.push(recorded);
    });
    const anthropic = Boolean(headers['anthropic-version']);

    if (recorded.method === 'GET' && path.endsWith('/models')) {
      if (anthropic) {
        return send(res, 200, {
          data: models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
          has_more: false,
          first_id: models[0] ?? null,
          last_id: models[models.length - 1] ?? null,
        });
      }
      return send(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })) });
    }
    const isChat = recorded.method === 'POST' && (path.endsWith('/chat/completions') || path.endsWith('/messages'));
    if (!isChat) return send(res, 404, { error: { message: `no route ${recorded.method} ${path}`, type: 'not_found' } });

    let reply: ScriptedReply = queue.length ? queue.shift()! : fallback;
    while (typeof reply === 'function') reply = reply(recorded);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if ('status' in reply) return send(res, reply.status, reply.body ?? { error: { message: `status ${reply.status}` } }, reply.headers);

    const model = recorded.body?.model ?? 'unknown';
    const streamed = recorded.body?.stream === true;
    const tokens = reply.tokens ?? splitTokens(reply.text);
    if (anthropic) return anthropicReply(res, model, reply.text, tokens, streamed, reply.tokenDelayMs ?? 0, recorded.body);
    if (!streamed) {
      return send(res, 200, {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.text, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const [i, t] of tokens.entries()) {
      if (i === 1 && reply.restAfter) await reply.restAfter;
      if (reply.tokenDelayMs) await sleep(reply.tokenDelayMs);
      if (res.destroyed) return;
      if (i === reply.cutAfterTokens) return void (dropped.add(res), res.socket?.destroy());
      res.write(chunk({ content: t }, null));
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.method === 'POST'),
    reply: (...replies) => queue.push(...replies),
    setDefault: (r) => (fallback = r),
    setModels: (ids) => (models = ids),
    nextCancelled: () => (cancelled.length ? Promise.resolve(cancelled.shift()!) : new Promise((resolve) => cancelWaiters.push(resolve))),
    reset: () => {
      cancelled.length = 0;
      cancelWaiters = [];
      queue = [];
      fallback = { text: 'ok' };
      models = ['test-model-a', 'test-model-b'];
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) dropped.add(res), res.destroy();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function anthropicReply(res: ServerResponse, model: string, text: string, tokens: string[], streamed: boolean, tokenDelayMs: number, body: any) {
  const toolName: string | undefined = body?.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
  const content = toolName
    ? [{ type: 'tool_use', id: 'toolu_test', name: toolName, input: safeJson(text) }]
    : [{ type: 'text', text }];
  const message = { id: 'msg_test', type: 'message', role: 'assistant', model, content, stop_reason: toolName ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  if (!streamed) return send(res, 200, message);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  ev('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } });
  ev('content_block_start', { type: 'content_block_start', index: 0, content_block: toolName ? { type: 'tool_use', id: 'toolu_test', name: toolName, input: {} } : { type: 'text', text: '' } });
  for (const t of tokens) {
    if (tokenDelayMs) await sleep(tokenDelayMs);
    if (res.destroyed) return;
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: toolName ? { type: 'input_json_delta', partial_json: t } : { type: 'text_delta', text: t } });
  }
  ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } });
  ev('message_stop', { type: 'message_stop' });
  res.end();
}

/**
 * One server for a whole uvu suite: started before the first test, reset before each, closed after
 * the last. The returned handle forwards to the running server, so tests use it like the server itself.
 */
export function openAiServerFor(suite: Test): OpenAiTestServer {
  let current: OpenAiTestServer | undefined;
  suite.before(async () => {
    current = await startOpenAiServer();
  });
  suite.after(async () => {
    await current?.close();
  });
  suite.before.each(() => {
    current?.reset();
  });
  return new Proxy({} as OpenAiTestServer, {
    get(_target, key) {
      if (!current) throw new Error('the OpenAI test server is not started yet (use it inside a test)');
      const value = (current as unknown as Record<string | symbol, unknown>)[key];
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

/**
 * Holds a streamed reply after its first token (`restAfter: gate.rest`) until the test has seen that token
 * (`gate.firstSeen()`): a client that buffered the stream would never see it, so a safety valve lets the
 * rest go after 60 s and `gate.valveOpened()` says so, which makes that a failure, not a hang.
 */
export function firstTokenGate(): { rest: Promise<void>; firstSeen(): void; valveOpened(): boolean } {
  let firstSeen!: () => void;
  let valveOpened = false;
  const rest = new Promise<void>((resolve) => {
    firstSeen = resolve;
    setTimeout(() => ((valveOpened = true), resolve()), 60_000).unref();
  });
  return { rest, firstSeen: () => firstSeen(), valveOpened: () => valveOpened };
}

/** Config lines that make the `openai` profile the default, pointed at `baseURL` (a test server), its key read from TEST_AI_KEY. */
export const openAiConfigYaml = (baseURL: string) =>
  `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${baseURL}\n`;
