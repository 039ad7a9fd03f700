/**
 * AI provider layer against a real local OpenAI-compatible server, through the real openai and
 * Anthropic SDKs: profiles, key and model resolution, endpoints, streaming, reasoning models,
 * the AI provider's 429, timeouts and structured output fallbacks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InterruptedError } from '../../engine/core/errors.js';
import { resolveAiProvider, type ResolveAiProviderOptions } from '../../engine/producers/ai/resolve.js';
import { isReasoningModel, parseRetryAfter } from '../../engine/producers/ai/call-policy.js';
import { redactText } from '../../engine/core/redact.js';
import type { AiConfig } from '../../schemas/config.js';
import { firstTokenGate, openAiServerFor } from '../support/openai-server.js';
import { assistantErrorOf } from '../support/errors.js';
import { standIn } from '../support/standin.js';
import { tempDir } from '../support/temp.js';

const srv = openAiServerFor(test);

// Short waits, but a request timeout no busy machine reaches (the timeout tests set their own).
const FAST = { timeoutMs: 60_000, serverRetryDelaysMs: [10, 10], rateLimitBackoffMs: [10, 10, 10] };

function provider(ai: Partial<AiConfig>, extra: Partial<ResolveAiProviderOptions> = {}) {
  return resolveAiProvider({ aiConfig: ai, env: {}, policy: FAST, ...extra });
}

function openaiProfile(extra: Record<string, unknown> = {}): Partial<AiConfig> {
  return { default_provider: 'openai', providers: { openai: { base_url: srv.baseURL, ...extra } } };
}

const errorOf = assistantErrorOf;

const hello = { messages: [{ role: 'user' as const, content: 'hello' }] };

test('key resolution order: --flag key > profile api_key > api_key_env > well-known env var', async () => {
  const ai = openaiProfile({ api_key: 'sk-from-profile-1', api_key_env: 'MY_OPENAI_KEY' });
  const env = { MY_OPENAI_KEY: 'sk-from-named-env-2', OPENAI_API_KEY: 'sk-from-wellknown-3' };
  const auth = async (p: ReturnType<typeof provider>) => {
    await p.chat(hello);
    return srv.chatRequests().at(-1)!.headers.authorization;
  };
  assert.is(await auth(provider(ai, { env, keyFlags: { openai: 'sk-from-flag-0' } })), 'Bearer sk-from-flag-0');
  assert.is(await auth(provider(ai, { env })), 'Bearer sk-from-profile-1');
  assert.is(await auth(provider(openaiProfile({ api_key_env: 'MY_OPENAI_KEY' }), { env })), 'Bearer sk-from-named-env-2');
  assert.is(await auth(provider(openaiProfile({ api_key_env: 'UNSET_VAR' }), { env })), 'Bearer sk-from-wellknown-3');
});

test('CO_API_KEY and COHERE_API_KEY are both well-known for cohere (CO_API_KEY first)', async () => {
  const ai: Partial<AiConfig> = { default_provider: 'cohere', providers: { cohere: { base_url: srv.baseURL } } };
  await provider(ai, { env: { CO_API_KEY: 'co-key-first', COHERE_API_KEY: 'cohere-key-second' } }).chat(hello);
  assert.is(srv.chatRequests().at(-1)!.headers.authorization, 'Bearer co-key-first');
  await provider(ai, { env: { COHERE_API_KEY: 'cohere-key-second' } }).chat(hello);
  assert.is(srv.chatRequests().at(-1)!.headers.authorization, 'Bearer cohere-key-second');
});

test('resolved API keys are registered for redaction', async () => {
  provider(openaiProfile({ api_key: 'sk-redact-me-please-42' }));
  assert.is(redactText('key is sk-redact-me-please-42'), 'key is ***');
});

test('no key anywhere → ai_not_configured (exit 2, a configuration error) with a config snippet naming the env var', async () => {
  const err = await errorOf(Promise.resolve().then(() => provider({ default_provider: 'deepseek' })));
  assert.is(err.code, 'ai_not_configured');
  assert.is(err.exitCode, 2);
  assert.match(err.message, /DEEPSEEK_API_KEY/);
  assert.match(err.hint ?? '', /default_provider: deepseek/);
  assert.match(err.hint ?? '', /providers:/);
  // The hint is printed through redaction: its `<key>` placeholder must survive it, and real values must not.
  assert.match(redactText(err.hint ?? ''), /export DEEPSEEK_API_KEY=<key>/);
  assert.is(redactText('export DEEPSEEK_API_KEY=sk-live-123456'), 'export DEEPSEEK_API_KEY=***');
});

test('ai.default_provider omitted → openai is used', async () => {
  const p = provider({ providers: { openai: { base_url: srv.baseURL, api_key: 'sk-default-fallback' } } });
  assert.is(p.name, 'openai');
  await p.chat(hello);
  assert.is(srv.chatRequests()[0]!.body.model, 'gpt-4o-mini');
});

test('--ai-profile selects a named profile whose provider: is set, with its model and key', async () => {
  const ai: Partial<AiConfig> = {
    default_provider: 'openai',
    providers: {
      openai: { base_url: srv.baseURL, api_key: 'sk-not-this-one' },
      work: { provider: 'deepseek', base_url: srv.baseURL, api_key: 'ds-work-key-1', model: 'deepseek-work-model' },
    },
  };
  const p = provider(ai, { profileName: 'work' });
  assert.is(p.name, 'deepseek');
  assert.is(p.profile, 'work');
  await p.chat(hello);
  const req = srv.chatRequests()[0]!;
  assert.is(req.body.model, 'deepseek-work-model');
  assert.is(req.headers.authorization, 'Bearer ds-work-key-1');
});

test('default_provider finds a profile by its provider: value when no profile has that name', async () => {
  const ai: Partial<AiConfig> = { default_provider: 'minimax', providers: { mm: { provider: 'minimax', base_url: srv.baseURL, api_key: 'mm-key-123456' } } };
  const p = provider(ai);
  assert.is(p.profile, 'mm');
  await p.chat(hello);
  assert.is(srv.chatRequests()[0]!.body.model, 'MiniMax-M2');
});

test('--<provider>-model overrides the profile model (seen in the recorded request)', async () => {
  const ai = openaiProfile({ api_key: 'sk-model-test', model: 'profile-model' });
  await provider(ai, { modelOverrides: { openai: 'flag-model', anthropic: 'ignored' } }).chat(hello);
  assert.is(srv.chatRequests()[0]!.body.model, 'flag-model');
  await provider(ai).chat(hello);
  assert.is(srv.chatRequests()[1]!.body.model, 'profile-model');
});

test('unknown --ai-profile → exit 2 listing the configured profiles', async () => {
  const err = await errorOf(Promise.resolve().then(() => provider(openaiProfile({ api_key: 'sk-x-123456' }), { profileName: 'nope' })));
  assert.is(err.code, 'ai_profile_unknown');
  assert.is(err.exitCode, 2);
  assert.match(err.hint ?? '', /openai/);
});

test('every OpenAI-compatible provider honours a base_url override and sends its default model', async () => {
  const cases: [string, string][] = [
    ['openai', 'gpt-4o-mini'],
    ['gemini-api', 'gemini-2.5-flash'],
    ['deepseek', 'deepseek-chat'],
    ['cohere', 'command-a-03-2025'],
    ['minimax', 'MiniMax-M2'],
    ['github-models', 'openai/gpt-4.1-mini'],
    ['assistant-cloud', 'test-model-a'], // no default model: the first of GET /models
  ];
  for (const [kind, model] of cases) {
    srv.reset();
    const p = provider({ default_provider: kind as never, providers: { [kind]: { base_url: srv.baseURL } } }, { keyFlags: { [kind]: `key-for-${kind}` } });
    const res = await p.chat(hello);
    const req = srv.chatRequests()[0]!;
    assert.is(req.path, '/v1/chat/completions', kind);
    assert.is(req.body.model, model, kind);
    assert.is(req.headers.authorization, `Bearer key-for-${kind}`, kind);
    assert.is(res.model, model, kind);
  }
});

test('openai local_model_inference_url works without a key', async () => {
  const p = provider({ providers: { openai: { local_model_inference_url: srv.baseURL, model: 'llama3' } } });
  const res = await p.chat(hello);
  assert.is(res.text, 'ok');
  assert.is(srv.chatRequests()[0]!.body.model, 'llama3');
});

test('github-models takes its token from `gh auth token` (run once) and registers it as a secret', async () => {
  const calls: string[][] = [];
  const p = provider(
    { default_provider: 'github-models', providers: { 'github-models': { base_url: srv.baseURL } } },
    { runCommand: async (cmd, args) => (calls.push([cmd, ...args]), 'gho_token_from_cli_123\n') },
  );
  await p.chat(hello);
  await p.chat(hello);
  assert.equal(calls, [['gh', 'auth', 'token']]);
  assert.is(srv.chatRequests()[0]!.headers.authorization, 'Bearer gho_token_from_cli_123');
  assert.is(redactText('gho_token_from_cli_123'), '***');
});

test('github-models runs the gh of the command\'s environment (its PATH), not the process\'s', async () => {
  const gh = standIn('gh', [{ match: 'auth token', stdout: 'gho_token_from_env_path_456' }]);
  const p = provider({ default_provider: 'github-models', providers: { 'github-models': { base_url: srv.baseURL } } }, { env: { PATH: gh.path } });
  await p.chat(hello);
  assert.equal(gh.calls(), [['auth', 'token']]);
  assert.is(srv.chatRequests().at(-1)!.headers.authorization, 'Bearer gho_token_from_env_path_456');
});

test('github-models runs gh in the command\'s environment less this tool\'s secrets (AI keys, gpucloud credentials)', async () => {
  const dir = tempDir('gh-env-');
  const seen = join(dir, 'env.json');
  writeFileSync(join(dir, 'gh'), `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(Object.keys(process.env)));\nprocess.stdout.write('gho_token_from_own_env_789\\n');\n`, { mode: 0o755 });
  const env = { PATH: `${dir}:${process.env.PATH ?? ''}`, HOME: dir, ANTHROPIC_API_KEY: 'sk-ant-not-for-gh', GPUCLOUD_CLIENT_SECRET: 'not-for-gh' };
  const p = provider({ default_provider: 'github-models', providers: { 'github-models': { base_url: srv.baseURL } } }, { env });
  await p.chat(hello);
  const names = JSON.parse(readFileSync(seen, 'utf8')) as string[];
  for (const kept of ['PATH', 'HOME']) assert.ok(names.includes(kept), `gh sees ${kept}`);
  for (const secret of ['ANTHROPIC_API_KEY', 'GPUCLOUD_CLIENT_SECRET']) assert.not.ok(names.includes(secret), `gh does not see ${secret}`);
  assert.is(srv.chatRequests().at(-1)!.headers.authorization, 'Bearer gho_token_from_own_env_789');
});

test('github-models without gh → ai_not_configured naming gh auth login', async () => {
  const p = provider(
    { default_provider: 'github-models', providers: { 'github-models': { base_url: srv.baseURL } } },
    { runCommand: async () => Promise.reject(Object.assign(new Error('spawn gh ENOENT'), { code: 'ENOENT' })) },
  );
  const err = await errorOf(p.chat(hello));
  assert.is(err.code, 'ai_not_configured');
  assert.match(err.message, /gh CLI is not installed/);
  assert.match(err.hint ?? '', /gh auth login/);
});

test('streaming: tokens arrive in order, as they are sent', async () => {
  // The server sends the rest only after the client has seen the first token; a client that buffered
  // the stream would never see it, and the safety valve (60 s) makes that a failure, not a hang.
  const gate = firstTokenGate();
  srv.reply({ text: 'Hello streaming world', tokens: ['Hel', 'lo', ' stream', 'ing', ' world'], restAfter: gate.rest });
  const got: string[] = [];
  const p = provider(openaiProfile({ api_key: 'sk-stream-test' }));
  const res = await p.chat({ ...hello, stream: true, onToken: (t) => (got.push(t), gate.firstSeen()) });
  assert.equal(got, ['Hel', 'lo', ' stream', 'ing', ' world']);
  assert.is(res.text, 'Hello streaming world');
  assert.is(srv.chatRequests()[0]!.body.stream, true);
  assert.not.ok(gate.valveOpened(), 'the first token reached onToken while the rest was still unsent');
});

test('temperature is not sent for reasoning models (o3-mini, gpt-5) but is for others', async () => {
  const ai = openaiProfile({ api_key: 'sk-reasoning' });
  await provider(ai, { modelOverrides: { openai: 'o3-mini' } }).chat({ ...hello, temperature: 0 });
  await provider(ai, { modelOverrides: { openai: 'gpt-5-mini' } }).chat({ ...hello, temperature: 0 });
  await provider(ai, { modelOverrides: { openai: 'gpt-4o' } }).chat({ ...hello, temperature: 0 });
  const [a, b, c] = srv.chatRequests();
  assert.not.ok('temperature' in a!.body);
  assert.not.ok('temperature' in b!.body);
  assert.is(c!.body.temperature, 0);
  assert.ok(isReasoningModel('openai/o4-mini'));
  assert.not.ok(isReasoningModel('gpt-4o'));
});

test('a 400 rejecting temperature is retried once without it, and remembered', async () => {
  srv.setDefault((req) =>
    req.body.temperature !== undefined
      ? { status: 400, body: { error: { message: "Unsupported value: 'temperature' does not support 0 with this model.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } } }
      : { text: 'fine' },
  );
  const p = provider(openaiProfile({ api_key: 'sk-temp', model: 'some-new-reasoner' }));
  const res = await p.chat({ ...hello, temperature: 0 });
  assert.is(res.text, 'fine');
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 2);
  assert.is(reqs[0]!.body.temperature, 0);
  assert.not.ok('temperature' in reqs[1]!.body);
  await p.chat({ ...hello, temperature: 0 });
  assert.is(srv.chatRequests().length, 3, 'the second call goes without temperature at once');
});

test("AI provider 429 with Retry-After is waited out, then the answer comes", async () => {
  srv.reply({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached for requests', type: 'requests' } } }, { text: 'after the wait' });
  const t0 = Date.now();
  const res = await provider(openaiProfile({ api_key: 'sk-429' })).chat(hello);
  const took = Date.now() - t0;
  assert.is(res.text, 'after the wait');
  assert.is(srv.chatRequests().length, 2);
  assert.ok(took >= 950, `took ${took} ms: the 1 s Retry-After was waited out`);
});

test("429 budget exhausted → ai_rate_limited saying it is the AI provider's limit, not gpucloud's", async () => {
  srv.setDefault({ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached', type: 'requests' } } });
  const p = provider(openaiProfile({ api_key: 'sk-429-budget' }), { policy: { ...FAST, max429Retries: 2 } });
  const err = await errorOf(p.chat(hello));
  assert.is(err.code, 'ai_rate_limited');
  assert.is(err.exitCode, 1);
  assert.match(err.message, /AI provider openai/);
  assert.match(err.message, /not gpucloud's/);
  assert.match(err.message, /HTTP 429/);
  assert.is(srv.chatRequests().length, 3);
});

test('a Retry-After longer than the cap fails at once instead of hanging', async () => {
  srv.setDefault({ status: 429, headers: { 'retry-after': '3600' }, body: { error: { message: 'quota' } } });
  const err = await errorOf(provider(openaiProfile({ api_key: 'sk-429-long' }), { policy: { ...FAST, maxRetryAfterMs: 2000 } }).chat(hello));
  assert.is(err.code, 'ai_rate_limited');
  assert.match(err.message, /3600 s/);
  assert.is(srv.chatRequests().length, 1, 'no wait and no retry: it gave up on the first answer');
  assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250' })), 250);
});

test('timeout: a slow AI provider ends with ai_timeout and a clear message', async () => {
  srv.reply({ text: 'too late', delayMs: 600_000 }); // only the timeout can end this call
  const err = await errorOf(provider(openaiProfile({ api_key: 'sk-slow' }), { policy: { ...FAST, timeoutMs: 300 } }).chat(hello));
  assert.is(err.code, 'ai_timeout');
  assert.match(err.message, /AI provider openai \(model gpt-4o-mini\) did not answer within 0\.3 s/);
});

test('timeout: a stream that stalls between tokens ends with ai_timeout', async () => {
  srv.reply({ text: 'a b c', tokens: ['a', ' b', ' c'], tokenDelayMs: 600_000 });
  const got: string[] = [];
  const err = await errorOf(provider(openaiProfile({ api_key: 'sk-stall' }), { policy: { ...FAST, timeoutMs: 400 } }).chat({ ...hello, onToken: (t) => got.push(t) }));
  assert.is(err.code, 'ai_timeout');
});

test('the caller aborting → InterruptedError (exit 130), not a timeout', async () => {
  srv.reply({ text: 'never', delayMs: 600_000 });
  const ctl = new AbortController();
  void (async () => {
    while (srv.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 5)); // abort in flight
    ctl.abort();
  })();
  const err = await errorOf(provider(openaiProfile({ api_key: 'sk-abort' })).chat({ ...hello, signal: ctl.signal }));
  assert.ok(err instanceof InterruptedError);
  assert.is(err.exitCode, 130);
});

test('5xx from the AI provider is retried, then succeeds', async () => {
  srv.reply({ status: 502, body: { error: { message: 'bad gateway' } } }, { text: 'recovered' });
  const res = await provider(openaiProfile({ api_key: 'sk-5xx' })).chat(hello);
  assert.is(res.text, 'recovered');
  assert.is(srv.chatRequests().length, 2);
});

test('401 → ai_auth with a config hint', async () => {
  srv.setDefault({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
  const err = await errorOf(provider(openaiProfile({ api_key: 'sk-wrong-key' })).chat(hello));
  assert.is(err.code, 'ai_auth');
  assert.match(err.hint ?? '', /api_key_env: OPENAI_API_KEY/);
});

test('json: response_format json_schema is sent; when refused it falls back to json_object', async () => {
  srv.setDefault((req) =>
    req.body.response_format?.type === 'json_schema'
      ? { status: 400, body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model." } } }
      : { text: '{"ok":true}' },
  );
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
  const res = await provider(openaiProfile({ api_key: 'sk-json' })).chat({ ...hello, json: { schema, name: 'answer' } });
  assert.is(res.text, '{"ok":true}');
  const [first, second] = srv.chatRequests();
  assert.is(first!.body.response_format.type, 'json_schema');
  assert.equal(first!.body.response_format.json_schema.schema, schema);
  assert.is(second!.body.response_format.type, 'json_object');
});

test('anthropic: empty model is auto-detected from the model list; JSON comes back through a forced tool', async () => {
  srv.setModels(['claude-haiku-x', 'claude-sonnet-y']);
  const ai: Partial<AiConfig> = { default_provider: 'anthropic', providers: { anthropic: { base_url: srv.url } } };
  const p = provider(ai, { env: { ANTHROPIC_API_KEY: 'sk-ant-test-key' } });
  assert.is(p.model, '');
  srv.reply({ text: '{"answer":42}' });
  const res = await p.chat({ system: 'be brief', ...hello, json: { schema: { type: 'object' }, name: 'answer' } });
  assert.is(res.text, '{"answer":42}');
  assert.is(p.model, 'claude-sonnet-y');
  const req = srv.chatRequests()[0]!;
  assert.is(req.path, '/v1/messages');
  assert.match(req.headers['x-api-key'] ?? req.headers.authorization ?? '', /sk-ant-test-key/);
  assert.is(req.body.model, 'claude-sonnet-y');
  assert.is(req.body.system, 'be brief');
  assert.equal(req.body.tool_choice, { type: 'tool', name: 'answer' });
});

test('anthropic: streaming text tokens arrive in order', async () => {
  const ai: Partial<AiConfig> = { default_provider: 'anthropic', providers: { anthropic: { base_url: srv.url, model: 'claude-fixed' } } };
  srv.reply({ text: 'one two three', tokens: ['one', ' two', ' three'], tokenDelayMs: 20 });
  const got: string[] = [];
  const res = await provider(ai, { keyFlags: { anthropic: 'sk-ant-flag' } }).chat({ ...hello, onToken: (t) => got.push(t) });
  assert.equal(got, ['one', ' two', ' three']);
  assert.is(res.text, 'one two three');
  assert.is(srv.chatRequests()[0]!.body.model, 'claude-fixed');
});

test('bedrock without a region → ai_not_configured with a cloud_a_profile/region snippet', async () => {
  const err = await errorOf(Promise.resolve().then(() => provider({ default_provider: 'bedrock' })));
  assert.is(err.code, 'ai_not_configured');
  assert.match(err.hint ?? '', /cloud_a_profile/);
  const p = provider({ default_provider: 'bedrock', providers: { bedrock: { region: 'eu-west-1', cloud_a_profile: 'ml', model: 'some.model-v1' } } });
  assert.is(p.model, 'some.model-v1');
  assert.match(p.describe(), /bedrock \(some\.model-v1\)/);
});

test('gemini (cloud model platform) resolves without a key and uses the google/ model prefix', async () => {
  const p = provider({ default_provider: 'gemini', providers: { gemini: { model: 'gemini-2.5-pro' } } });
  assert.is(p.name, 'gemini');
  assert.is(p.model, 'google/gemini-2.5-pro');
});

test('the builtin provider does not chat and says how to configure an AI provider', async () => {
  const p = provider({ default_provider: 'builtin' });
  assert.is(p.name, 'builtin');
  const err = await errorOf(p.chat(hello));
  assert.is(err.code, 'ai_not_configured');
  assert.match(err.hint ?? '', /default_provider: openai/);
});

test.run();
