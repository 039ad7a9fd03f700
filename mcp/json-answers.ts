/**
 * Answers a POST with one JSON body instead of an SSE stream when nothing but the answer will be sent
 * (issue 25). Streamable HTTP lets the server pick either for every POST; the SDK picks one per
 * transport (`enableJsonResponse`), and our sessions need the stream for progress. Measured per call
 * (`npm run bench`, CPU profile of server and agent): the stream costs the agent's SDK client about
 * 0.5 ms of CPU (web streams, the event-stream parser) and the server ~0.15 ms, which on a 2-core
 * machine running agents, server and API together is a fifth of what one list call costs.
 *
 * The rule: a POST is answered as JSON unless one of its requests carries a progress token. This server
 * sends nothing else about a request before its answer (no sampling, elicitation or per-request
 * logging: mcp/progress.ts is the only sender), so a request without a token loses nothing.
 *
 * The SDK has no per-request switch, so this sets its transport's flag around the two places that read
 * it, both synchronous for a pre-parsed body and without an event store (our setup): deciding how to
 * answer a POST, and sending a message on that POST's stream (decided per stream, so concurrent POSTs
 * of one session each keep their own mode). If the SDK's internals are not what this expects, nothing
 * is changed and every answer streams as before (the test in test/mcp.json-answers.test.ts notices).
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface WebTransportInternals {
  _enableJsonResponse: boolean;
  _streamMapping: Map<string, { resolveJson?: unknown }>;
  _requestToStreamMapping: Map<string | number, string>;
  handlePostRequest(req: unknown, options?: { parsedBody?: unknown }): Promise<unknown>;
  send(message: unknown, options?: { relatedRequestId?: string | number }): Promise<void>;
}

/** Whether any request of a POST body (one message or a batch) asks for progress notifications. */
export function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta !== undefined && meta !== null && meta.progressToken !== undefined;
  });
}

function internalsOf(transport: StreamableHTTPServerTransport): WebTransportInternals | undefined {
  const web = (transport as unknown as { _webStandardTransport?: Partial<WebTransportInternals> })._webStandardTransport;
  if (
    !web ||
    typeof web._enableJsonResponse !== 'boolean' ||
    !(web._streamMapping instanceof Map) ||
    !(web._requestToStreamMapping instanceof Map) ||
    typeof web.handlePostRequest !== 'function' ||
    typeof web.send !== 'function'
  ) {
    return undefined;
  }
  return web as WebTransportInternals;
}

/**
 * Makes `transport` (built without enableJsonResponse) answer POSTs without a progress token as JSON.
 * Returns whether it could (false: the SDK changed; every answer streams).
 */
export function answerAsJsonWhenNoProgress(transport: StreamableHTTPServerTransport): boolean {
  const web = internalsOf(transport);
  if (!web || web._enableJsonResponse) return false;
  const handlePost = web.handlePostRequest.bind(web);
  const send = web.send.bind(web);
  web.handlePostRequest = (req, options) => {
    // Read synchronously inside the call (the body is parsed already), reset before anything else runs.
    web._enableJsonResponse = options?.parsedBody !== undefined && !wantsProgress(options.parsedBody);
    try {
      return handlePost(req, options);
    } finally {
      web._enableJsonResponse = false;
    }
  };
  web.send = (message, options) => {
    const m = message as { id?: string | number; result?: unknown; error?: unknown };
    const requestId = m.id !== undefined && ('result' in m || 'error' in m) ? m.id : options?.relatedRequestId;
    const streamId = requestId === undefined ? undefined : web._requestToStreamMapping.get(requestId);
    web._enableJsonResponse = streamId !== undefined && web._streamMapping.get(streamId)?.resolveJson !== undefined;
    try {
      return send(message, options);
    } finally {
      web._enableJsonResponse = false;
    }
  };
  return true;
}
