/**
 * The bedrock provider through the real AWS SDK (SigV4 signing, Converse and ConverseStream with the
 * binary event-stream encoding) against a local server standing in for the managed model service
 * (HTTP/2 cleartext, as the SDK's runtime client speaks HTTP/2).
 */
import { createServer, type Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { AssistantError } from '../../engine/core/errors.js';

// The SDK's default credential chain reads these; no profile file, no instance metadata.
process.env.AWS_ACCESS_KEY_ID = 'AKIATESTKEY';
process.env.AWS_SECRET_ACCESS_KEY = 'test-secret-access-key';
process.env.AWS_EC2_METADATA_DISABLED = 'true';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

function event(type: string, body: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':message-type': { type: 'string', value: 'event' },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: new Uint8Array(Buffer.from(JSON.stringify(body))),
  });
}

interface Seen {
  path: string;
  authorization: string;
  body: any;
}

type Handler = (path: string, body: any) => { status: number; headers: Record<string, string>; body: Uint8Array | string };

async function startBedrock(handler: Handler) {
  const seen: Seen[] = [];
  const server = createServer(async (req: Http2ServerRequest, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const path = decodeURIComponent(req.url ?? '');
    seen.push({ path, authorization: String(req.headers.authorization ?? ''), body });
    const out = handler(path, body);
    res.writeHead(out.status, out.headers);
    res.end(out.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const bedrock = (endpoint: string) =>
  resolveAiProvider({
    aiConfig: { default_provider: 'bedrock', providers: { bedrock: { region: 'eu-west-1', model: 'anthropic.test-model-v1', base_url: endpoint } } } as never,
    env: {},
    policy: { max429Retries: 0, serverRetryDelaysMs: [] },
  });

/** The error a one-message chat ends with (undefined if it succeeded). */
const chatFailure = (endpoint: string) =>
  bedrock(endpoint)
    .chat({ messages: [{ role: 'user', content: 'x' }] })
    .then(() => undefined, (e: unknown) => e as AssistantError);

/** A 200 answer of `type`. */
const answer = (type: string, body: Uint8Array | string) => ({ status: 200, headers: { 'content-type': type }, body });

/** A Bedrock stand-in that answers every request with `response`; closed after `fn`, whatever it did. */
async function withBedrock<T>(response: ReturnType<Handler>, fn: (srv: Awaited<ReturnType<typeof startBedrock>>) => Promise<T>): Promise<T> {
  const srv = await startBedrock(() => response);
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

/** The error a chat ends with when Bedrock answers `status` with an AWS error of `type` (x-amzn-errortype) and `message`. */
const failureOn = (status: number, type: string, message: string) =>
  withBedrock({ status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': type }, body: JSON.stringify({ message }) }, (srv) => chatFailure(srv.url));

test('bedrock: a signed Converse request carries the model, system prompt and messages; the text comes back', () =>
  withBedrock(
    answer('application/json', JSON.stringify({ output: { message: { role: 'assistant', content: [{ text: 'two instances are running' }] } }, stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 4, totalTokens: 5 }, metrics: { latencyMs: 1 } })),
    async (srv) => {
      const res = await bedrock(srv.url).chat({ system: 'be brief', messages: [{ role: 'user', content: 'how many are running?' }] });
      assert.is(res.text, 'two instances are running');
      const req = srv.seen[0]!;
      assert.is(req.path, '/model/anthropic.test-model-v1/converse');
      assert.match(req.authorization, /^AWS4-HMAC-SHA256 Credential=AKIATESTKEY\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
      assert.equal(req.body.system, [{ text: 'be brief' }]);
      assert.equal(req.body.messages, [{ role: 'user', content: [{ text: 'how many are running?' }] }]);
    },
  ));

test('bedrock: ConverseStream tokens arrive in order as they are decoded from the event stream', () =>
  withBedrock(
    answer(
      'application/vnd.amazon.eventstream',
      Buffer.concat([
        event('messageStart', { role: 'assistant' }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'demo-a100' } }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' is' } }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' running' } }),
        event('contentBlockStop', { contentBlockIndex: 0 }),
        event('messageStop', { stopReason: 'end_turn' }),
      ].map((b) => Buffer.from(b))),
    ),
    async (srv) => {
      const tokens: string[] = [];
      const res = await bedrock(srv.url).chat({ messages: [{ role: 'user', content: 'status?' }], onToken: (t) => tokens.push(t) });
      assert.equal(tokens, ['demo-a100', ' is', ' running']);
      assert.is(res.text, 'demo-a100 is running');
      assert.is(srv.seen[0]!.path, '/model/anthropic.test-model-v1/converse-stream');
    },
  ));

test("bedrock: a ThrottlingException is reported as the AI provider's rate limit", async () => {
  const err = await failureOn(429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
  assert.ok(err instanceof AssistantError);
  assert.is(err.code, 'ai_rate_limited');
  assert.match(err.message, /AI provider/);
});

test('bedrock: an AccessDeniedException is an authentication error with a config hint', async () => {
  const err = await failureOn(403, 'AccessDeniedException', 'You do not have access to the model.');
  assert.is(err?.code, 'ai_auth');
  assert.ok(err?.hint);
});

test.run();
