/**
 * gemini on the cloud model platform through google-auth-library's real application-default
 * credentials flow: an external-account credentials file whose token exchange goes to a local STS
 * stand-in, and the openai SDK against a local OpenAI-compatible endpoint with the exchanged token.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { redactText } from '../../engine/core/redact.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

const ACCESS_TOKEN = 'ya29.local-test-access-token';

test('gemini: application-default credentials are exchanged for a token that authorises the chat request', async () => {
  const exchanges: string[] = [];
  const sts = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      exchanges.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: ACCESS_TOKEN, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 3600 }));
    });
  });
  await new Promise<void>((r) => sts.listen(0, '127.0.0.1', () => r()));
  const ai = await startOpenAiServer();
  const dir = tempDir('adc-');
  writeFileSync(join(dir, 'subject-token'), 'subject-jwt-from-the-workload');
  writeFileSync(
    join(dir, 'adc.json'),
    JSON.stringify({
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/local',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `http://127.0.0.1:${(sts.address() as AddressInfo).port}/v1/token`,
      credential_source: { file: join(dir, 'subject-token') },
    }),
  );
  process.env.GOOGLE_APPLICATION_CREDENTIALS = join(dir, 'adc.json');
  // Otherwise the library asks the resource manager for the project behind the audience's number.
  process.env.GOOGLE_CLOUD_PROJECT = 'local-test-project';
  try {
    const provider = resolveAiProvider({
      aiConfig: { default_provider: 'gemini', providers: { gemini: { model: 'gemini-2.5-pro', base_url: ai.baseURL } } } as never,
      env: {},
    });
    ai.reply({ text: 'all instances are running' });
    const res = await provider.chat({ messages: [{ role: 'user', content: 'status?' }] });
    assert.is(res.text, 'all instances are running');
    assert.is(exchanges.length, 1);
    assert.match(decodeURIComponent(exchanges[0]!), /subject_token=subject-jwt-from-the-workload/);
    const chat = ai.chatRequests()[0]!;
    assert.is(chat.headers.authorization, `Bearer ${ACCESS_TOKEN}`);
    assert.is(chat.body.model, 'google/gemini-2.5-pro');
    assert.is(redactText(`token ${ACCESS_TOKEN}`), 'token ***', 'the exchanged token is registered as a secret');
  } finally {
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    delete process.env.GOOGLE_CLOUD_PROJECT;
    await ai.close();
    await new Promise<void>((r) => sts.close(() => r()));
  }
});

test('gemini: with no application-default credentials the error says how to set them up', async () => {
  process.env.GOOGLE_APPLICATION_CREDENTIALS = join(tmpdir(), 'does-not-exist-adc.json');
  const provider = resolveAiProvider({
    aiConfig: { default_provider: 'gemini', providers: { gemini: { model: 'gemini-2.5-pro', base_url: 'http://127.0.0.1:9/v1' } } } as never,
    env: {},
    policy: { serverRetryDelaysMs: [] },
  });
  const err = await provider.chat({ messages: [{ role: 'user', content: 'x' }] }).then(
    () => undefined,
    (e: { code?: string; message?: string; hint?: string }) => e,
  );
  assert.is(err?.code, 'ai_not_configured');
  assert.match(err?.message ?? '', /application-default credentials/);
  assert.ok(err?.hint);
  delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
});

test.run();
