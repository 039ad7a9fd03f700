/**
 * Request headers and body encoding as they go over the wire. The emulator does not record headers, so
 * this one test captures them with a tiny node:http listener (no API behaviour is imitated here).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';

const version = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

test('Authorization, Accept, User-Agent on every call; Content-Type and JSON body only when there is a body', async () => {
  const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/v1/oauth2/token' ? JSON.stringify({ access_token: 'tok-abcdef-123', expires_in: 3600 }) : '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    const c = createGpuCloudClient({ baseUrl: `http://127.0.0.1:${port}/v1`, credentials: { clientId: 'cid', clientSecret: 'csecret-xyz' } });
    await c.request({ method: 'get', path: '/v1/balance?currency=usd' });
    await c.request({ method: 'PUT', path: '/v1/instances', body: { action: 'start', id: 'x' } });

    const [token, get, put] = seen;
    assert.is(token!.url, '/v1/oauth2/token');
    // The scope is named explicitly (issue 39 item 7): the token works only for cloud-api-v1.
    assert.equal(JSON.parse(token!.body), { grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret-xyz', scope: 'cloud-api-v1' });
    assert.match(String(token!.headers['content-type']), /^application\/json/);

    assert.is(get!.method, 'GET');
    assert.is(get!.url, '/v1/balance?currency=usd');
    assert.is(get!.headers.authorization, 'Bearer tok-abcdef-123');
    assert.is(get!.headers.accept, 'application/json');
    assert.is(get!.headers['user-agent'], `assistant/${version}`);
    assert.is(get!.headers['content-type'], undefined);
    assert.is(get!.body, '');

    assert.is(put!.headers['content-type'], 'application/json');
    assert.is(put!.headers.authorization, 'Bearer tok-abcdef-123');
    assert.equal(JSON.parse(put!.body), { action: 'start', id: 'x' });
  } finally {
    server.close();
  }
});

test.run();
