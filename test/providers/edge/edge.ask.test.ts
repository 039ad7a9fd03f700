/**
 * edge (Cloudflare-style API v4) as an ask context, through the CLI against its local fake
 * (emulator/fakes/edge.ts): DNS records and zone settings of the zone a question names (looked up by
 * name, its id bound for the next read) or of `default_zone`, zones of the account, routed by words and
 * by --edge, a combined view with appplatform, page/per_page paging followed, a refused token and rate
 * limits made clear, the token never shown, a hostile fake bounded, `credentials test edge`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EDGE_FAKE_ACCOUNT_ID, startEdgeFake } from '../../../emulator/fakes/edge.js';
import type { JsonFake } from '../../../emulator/fakes/json-fake.js';
import { startAppPlatformFake } from '../../../emulator/fakes/appplatform.js';
import { edgeProvider } from '../../../engine/providers/edge/provider.js';
import { runUntilHeld } from '../../support/held-request.js';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { builtinConfig, runWithConfig } from '../../support/integration.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const home = () => tempHome('assistant-edge-');
const config = builtinConfig;
const section = (fake: JsonFake, extra = '') => `edge:\n  api_token: ${fake.token}\n  account_id: ${EDGE_FAKE_ACCOUNT_ID}\n  default_zone: example.com\n  base_url: ${fake.url}\n${extra}`;

const ask = (fake: JsonFake, args: string[], opts: { env?: Record<string, string>; config?: string } = {}) => runWithConfig(opts.config ?? config(section(fake)), args, fake.token, opts.env);

test('a DNS question is routed to edge without a flag: the default zone is looked up by name, then its records read', async () => {
  const fake = await startEdgeFake();
  try {
    const r = await ask(fake, ['ask', 'which dns records are proxied?']);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, '3 proxied DNS records:\n- example.com (A 203.0.113.10 ttl auto proxied)\n- www.example.com (CNAME example.com ttl auto proxied)\n- ipv6.example.com (AAAA 2001:db8::10 ttl auto proxied)\n');
    const paths = fake.requests().map((q) => q.path);
    assert.is(paths[0], `/client/v4/zones?name=example.com&account.id=${EDGE_FAKE_ACCOUNT_ID}`);
    assert.match(paths[1]!, /^\/client\/v4\/zones\/[0-9a-f]{32}\/dns_records\?per_page=100$/);
    assert.is(paths.length, 2);
  } finally {
    await fake.close();
  }
});

test('--edge selects it; a zone named in the question wins over default_zone; settings and zones answer too', async () => {
  const fake = await startEdgeFake();
  try {
    const ssl = await ask(fake, ['ask', '--edge', 'what is the ssl mode of example.org?']);
    assert.is(ssl.code, 0, ssl.stderr);
    assert.is(ssl.stdout, '1 ssl zone setting:\n- ssl (flexible)\n');
    assert.ok(fake.requests().some((q) => q.path.startsWith('/client/v4/zones?name=example.org')));
    const zones = await ask(fake, ['ask', '--edge', 'which are pending?']);
    assert.is(zones.code, 0, zones.stderr);
    assert.match(zones.stdout, /1 zone pending:\n- staging-example\.net \(Free Website, pending\)/);
  } finally {
    await fake.close();
  }
});

test('without a zone named or configured, edge lists the zones rather than guessing one', async () => {
  const fake = await startEdgeFake();
  try {
    const r = await ask(fake, ['ask', '--edge', 'show my dns records'], { config: config(`edge:\n  api_token: ${fake.token}\n  base_url: ${fake.url}\n`) });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^3 zones:\n- example\.com/);
    assert.equal(fake.requests().map((q) => q.path), ['/client/v4/zones?per_page=50']);
  } finally {
    await fake.close();
  }
});

test('--edge with --appplatform answers both in one view', async () => {
  const fake = await startEdgeFake();
  const app = await startAppPlatformFake();
  try {
    const cfg = config(`${section(fake)}appplatform:\n  api_token: ${app.token}\n  base_url: ${app.url}\n`);
    const r = await ask(fake, ['ask', '--edge', '--appplatform', 'which deployments failed and which dns records are cnames?'], { config: cfg });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 deployments ERROR:/);
    assert.match(r.stdout, /1 cname DNS record:\n- www\.example\.com \(CNAME example\.com ttl auto proxied\)/);
    assert.not.ok(r.stdout.includes(app.token));
  } finally {
    await fake.close();
    await app.close();
  }
});

test('every page of records is read: page=2, 3… up to result_info.total_pages', async () => {
  const fake = await startEdgeFake({ records: 230 });
  try {
    const r = await ask(fake, ['ask', 'how many a records does example.com have?']);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout.trim(), '226 a DNS records.');
    const pages = fake.requests().map((q) => new URL(q.path, 'http://x').searchParams.get('page')).slice(1);
    assert.equal(pages, [null, '2', '3']);
  } finally {
    await fake.close();
  }
});

test('a refused token is one clear error; the envelope of an unknown zone is shown, not a stack', async () => {
  const fake = await startEdgeFake();
  try {
    const wrong = config(`edge:\n  api_token: wrongtoken0123456789abc\n  default_zone: example.com\n  base_url: ${fake.url}\n`);
    const r = await ask(fake, ['ask', 'list dns records'], { config: wrong });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: unauthorized: edge: 401 the token was not accepted \(\/client\/v4\/zones\)(: .+)?$/m);
    assert.match(r.stderr, /^hint: check the CDN\/DNS token \(edge\.api_token in the config file\)/m);
    assert.not.ok((r.stdout + r.stderr).includes('wrongtoken0123456789abc'));
    const unknown = config(`edge:\n  api_token: ${fake.token}\n  default_zone: 0123456789abcdef0123456789abcdef\n  base_url: ${fake.url}\n`);
    const u = await ask(fake, ['ask', 'list dns records'], { config: unknown });
    assert.is(u.code, 1);
    assert.match(u.stderr, /^error: http_error: edge: GET \/client\/v4\/zones\/0123456789abcdef0123456789abcdef\/dns_records answered 404: .+/m);
    assert.not.match(u.stderr, /\n\s+at /);
  } finally {
    await fake.close();
  }
});

test('429 with Retry-After is waited out; a limit that never lifts is a clear error', async () => {
  const fake = await startEdgeFake();
  try {
    fake.rateLimit(1, 1);
    const ok = await ask(fake, ['--debug', 'ask', 'how many zones']);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '3 zones.');
    assert.match(ok.stderr, /edge: rate limited; waiting 1 s \(Retry-After\)/);
    fake.rateLimit(10, 0);
    const no = await ask(fake, ['ask', 'how many zones']);
    assert.is(no.code, 1);
    assert.match(no.stderr, /^error: rate_limited: edge: still rate limited after waiting three times$/m);
  } finally {
    await fake.close();
  }
});

test('a hostile fake cannot hold ask: slow answers end at --timeout, endless pages and huge answers are cut and said so', async () => {
  const fake = await startEdgeFake();
  try {
    fake.hostile('slow');
    const slow = await runUntilHeld(fake, (timeout) => ask(fake, [...timeout, 'ask', 'how many zones']));
    assert.is(slow.code, 1, slow.stderr);
    assert.match(slow.stderr, /^error: .*tim(ed out|eout)/im);
    fake.hostile('endless');
    const endless = await ask(fake, ['ask', 'how many zones']);
    assert.is(endless.stdout.trim(), '10 zones (edge: only the first 10 pages (10 items) were read; the answer covers those).');
    fake.hostile('huge');
    const huge = await ask(fake, ['ask', 'how many dns records in example.com']);
    assert.match(huge.stdout, /^edge: no DNS records could be read \(the answer was larger than 5242880 bytes and was not read\)\./);
  } finally {
    await fake.close();
  }
});

test('credentials test edge verifies the token from the environment', async () => {
  const fake = await startEdgeFake();
  try {
    const r = await runCli(['credentials', 'test', 'edge'], { env: { EDGE_API_TOKEN: fake.token, ASSISTANT_EDGE_BASE_URL: fake.url }, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'edge credentials work (source: EDGE_API_TOKEN); token status active\n');
    assert.equal(fake.requests().map((q) => q.path), ['/client/v4/user/tokens/verify']);
  } finally {
    await fake.close();
  }
});

test('only GETs read: changing a record or a setting, or purging the cache, needs --destroyer; paths keep the API prefix', () => {
  const verb = edgeProvider.verbs[0]!;
  assert.is(verb.classify(['edge-api', 'GET', '/client/v4/zones']).effect, 'read');
  assert.is(verb.classify(['edge-api', 'PATCH', '/client/v4/zones/z/settings/ssl', '{"value":"off"}']).effect, 'destroy');
  assert.is(verb.classify(['edge-api', 'POST', '/client/v4/zones/z/purge_cache', '{"purge_everything":true}']).effect, 'destroy');
  assert.is(verb.classify(['edge-api', 'DELETE', '/client/v4/zones/z/dns_records/r']).effect, 'destroy');
  assert.match(verb.checkArgs(['edge-api', 'GET', '/zones'])[0]?.message ?? '', /edge paths start with \/client\/v4\//);
});

test('the MCP ask tool routes by words to edge and appplatform together and reads both, read-only', async () => {
  const fake = await startEdgeFake();
  const app = await startAppPlatformFake();
  const cfg = config(`${section(fake)}appplatform:\n  api_token: ${app.token}\n  base_url: ${app.url}\n`);
  const { client } = await connectStdio({ home: home(), globalArgs: ['--config', cfg] });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which vercel deployments failed, and which dns records are proxied?' });
    assert.not.ok(r.isError, textOf(r));
    assert.equal([...r.structuredContent.providers].sort(), ['appplatform', 'edge']);
    assert.match(r.structuredContent.answer, /2 deployments ERROR:/);
    assert.match(r.structuredContent.answer, /3 proxied DNS records:/);
    const text = JSON.stringify(r);
    assert.not.ok(text.includes(fake.token) || text.includes(app.token));
    assert.ok([...fake.requests(), ...app.requests()].every((q) => q.method === 'GET'));
  } finally {
    await client.close();
    await fake.close();
    await app.close();
  }
});

test.run();
