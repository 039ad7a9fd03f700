/**
 * One session's transport: answers a POST with one JSON body unless a request in it asks for progress
 * (issue 25), using only the SDK's public transport API (issue 37 §6 replaced a run-time patch of its
 * private fields that a new SDK release could have broken without a sound).
 *
 * Why JSON: Streamable HTTP lets the server answer any POST either way, and the stream costs the
 * agent's SDK client about 0.5 ms of CPU per call (web streams, the event-stream parser) and the server
 * ~0.15 ms; but a call that asked for progress needs the stream. The SDK chooses once per transport
 * (`enableJsonResponse`), so a session here is two kinds of SDK transport behind one `Transport`, the
 * interface the SDK defines for transports of one's own:
 *   - the session's own StreamableHTTPServerTransport (session id, initialize, the GET stream, DELETE,
 *     and every POST that asks for progress, answered as an SSE stream);
 *   - for every other POST, a one-POST StreamableHTTPServerTransport built with enableJsonResponse and
 *     without a session (so it checks no session id: the caller found this session by that id first).
 * The McpServer sees one transport. Incoming messages from both reach it; what it sends goes back by
 * request id to the transport that brought the request (a response, or a notification about it), and
 * everything else (notifications with no request, e.g. log messages) to the session's GET stream.
 *
 * This server sends nothing about a request before its answer except progress (mcp/progress.ts: no
 * sampling, elicitation or per-request logging), so a request without a token loses nothing; the one
 * thing that could (a notification about a request answered as JSON) is dropped, as the SDK's own
 * JSON mode drops it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Whether any request of a POST body (one message or a batch) asks for progress notifications. */
export function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta !== undefined && meta !== null && meta.progressToken !== undefined;
  });
}

/**
 * Whether a POST body needs the session's own transport: it asks for progress, or (re)initializes. By
 * the method alone, not the SDK's isInitializeRequest (a schema parse of every POST, about 1% of a
 * list call's server CPU): the session's transport then checks the message and refuses a second
 * initialize as the SDK does.
 */
function needsSessionTransport(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return wantsProgress(body) || messages.some((m) => (m as { method?: unknown } | null)?.method === 'initialize');
}

/** Messages come parsed (the SDK's transports checked them): their shape tells their kind, no schema needed. */
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => 'id' in m && !('method' in m);
const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => 'id' in m && 'method' in m;

export interface SessionTransportOptions {
  sessionIdGenerator: () => string;
  onsessioninitialized: (sessionId: string) => void;
}

export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  /** The session's own transport (SSE answers, the GET stream, DELETE). */
  private readonly session: StreamableHTTPServerTransport;
  /** Requests in flight that came with a JSON-answering POST, and the one-POST transport that answers each. */
  private readonly answeredAsJson = new Map<RequestId, StreamableHTTPServerTransport>();
  private closed = false;

  constructor(opts: SessionTransportOptions) {
    this.session = new StreamableHTTPServerTransport({ sessionIdGenerator: opts.sessionIdGenerator, onsessioninitialized: opts.onsessioninitialized });
    this.session.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.session.onerror = (error) => this.onerror?.(error);
    this.session.onclose = () => {
      this.closed = true;
      this.answeredAsJson.clear();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.session.sessionId;
  }

  async start(): Promise<void> {
    await this.session.start();
  }

  /** Serves one request of this session (the body parsed already for a POST). */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    // A closed session answers 404 from its own transport; a one-POST transport would still pass the call on.
    if (this.closed || req.method !== 'POST' || needsSessionTransport(body)) return this.session.handleRequest(req, res, body);
    const post = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const ids: RequestId[] = [];
    post.onmessage = (message, extra) => {
      if (isRequest(message)) {
        this.answeredAsJson.set(message.id, post);
        ids.push(message.id);
      }
      this.onmessage?.(message, extra);
    };
    post.onerror = (error) => this.onerror?.(error);
    // A request that is never answered (cancelled by the client, which then hangs up) leaves no entry behind.
    res.once('close', () => {
      for (const id of ids) if (this.answeredAsJson.get(id) === post) this.answeredAsJson.delete(id);
    });
    // The one-POST transport has no session; the answer still names it, as the session's own would.
    if (this.sessionId) res.setHeader('mcp-session-id', this.sessionId);
    await post.handleRequest(req, res, body);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const id = response ? message.id : options?.relatedRequestId;
    const post = id === undefined ? undefined : this.answeredAsJson.get(id);
    if (!post) return this.session.send(message, options);
    // A notification or request about a call answered as JSON has no stream to go on (the SDK's JSON mode drops it too).
    if (!response) return;
    this.answeredAsJson.delete(id!);
    await post.send(message, options);
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}
