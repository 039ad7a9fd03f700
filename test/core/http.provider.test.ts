/**
 * The HTTP JSON provider toolkit (engine/core/kits/http/provider.ts) against real local HTTP servers: paging
 * bounded by pages and bytes (and said when cut), 429 + Retry-After waited out under the caller's
 * signal, 401/403 as clear errors, redirects and next-page links to another origin refused, a
 * plain-HTTP base URL off this machine refused while a token is configured, a stalled body ended by
 * the deadline, and the default-deny classification of its one verb (GraphQL queries read,
 * mutations never).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AssistantError, OperationError, UsageError } from '../../engine/core/errors.js';
import { isGraphqlRead } from '../../engine/core/kits/http/graphql.js';
import { baseUrlFor, fromConfigOrEnv, httpClient, httpProvider, httpVerb, type HttpProviderSpec, type HttpTarget } from '../../engine/core/kits/http/provider.js';
import { redactText } from '../../engine/core/redact.js';
import type { WaitNotice } from '../../engine/core/provider.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Local {
  url: string;
  hits: { method: string; path: string; auth?: string; body: string }[];
  close(): Promise<void>;
}

const servers: Local[] = [];
test.after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(handler: Handler): Promise<Local> {
  const hits: Local['hits'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method!, path: req.url!, auth: req.headers.authorization, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const local: Local = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
  servers.push(local);
  return local;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const TOKEN = 'tok_toolkitSecret0123456789abcdef';
const spec = (over: Partial<HttpProviderSpec> = {}): HttpProviderSpec => ({ name: 'svc', label: 'service', target: () => target(''), ...over });
const target = (baseUrl: string, token: string | null = TOKEN): HttpTarget => ({
  baseUrl,
  headers: token ? { authorization: `Bearer ${token}` } : {},
  source: token ? 'SVC_TOKEN' : 'no token',
  authenticated: Boolean(token),
});
const never = new AbortController().signal;

async function rejects(p: Promise<unknown>): Promise<AssistantError> {
  try {
    await p;
  } catch (err) {
    return err as AssistantError;
  }
  throw new Error('expected a rejection');
}

// ---- paging ------------------------------------------------------------------------------------

/** `n` items per page, `pages` pages, Link rel="next" (absolute) until the last. */
function pagedServer(pages: number, n = 2, pad = 0): Promise<Local> {
  let url = '';
  const s = serve((req, res) => {
    const page = Number(new URL(req.url!, url).searchParams.get('page') ?? 1);
    const items = Array.from({ length: n }, (_, i) => ({ id: (page - 1) * n + i, pad: 'p'.repeat(pad) }));
    json(res, 200, items, page < pages ? { link: `<${url}/items?page=${page + 1}>; rel="next", <${url}/items?page=${pages}>; rel="last"` } : {});
  });
  return s.then((l) => ((url = l.url), l));
}

test('paging follows Link rel="next" and merges the pages into one list', async () => {
  const s = await pagedServer(3);
  const out = await httpClient(spec(), target(s.url)).request('GET', '/items', undefined, never);
  assert.equal((out.data as { id: number }[]).map((x) => x.id), [0, 1, 2, 3, 4, 5]);
  assert.is(out.truncated, undefined);
  assert.equal(s.hits.map((h) => h.path), ['/items', '/items?page=2', '/items?page=3']);
  assert.ok(s.hits.every((h) => h.auth === `Bearer ${TOKEN}`));
});

test('paging stops at maxPages and says so', async () => {
  const s = await pagedServer(50);
  const out = await httpClient(spec({ maxPages: 4 }), target(s.url)).request('GET', '/items', undefined, never);
  assert.is((out.data as unknown[]).length, 8);
  assert.is(out.truncated, 'only the first 4 pages (8 items) were read');
  assert.is(s.hits.length, 4);
});

test('paging stops at maxBytes and says so; a first page over the bound is not parsed at all', async () => {
  const s = await pagedServer(50, 10, 1000); // ~10 KB a page
  const out = await httpClient(spec({ maxBytes: 25_000 }), target(s.url)).request('GET', '/items', undefined, never);
  assert.is((out.data as unknown[]).length, 20, 'two whole pages fit');
  assert.match(out.truncated!, /^stopped at 25000 bytes \(20 items read\)$/);
  const first = await httpClient(spec({ maxBytes: 5_000 }), target(s.url)).request('GET', '/items', undefined, never);
  assert.is(first.data, null);
  assert.is(first.truncated, 'the answer was larger than 5000 bytes and was not read');
});

test('an endless body (a server that never stops sending) is cut at maxBytes without holding it in memory', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const chunk = `${JSON.stringify({ x: 'y'.repeat(1000) })},`.repeat(64);
    const pump = () => {
      while (res.write(chunk));
      res.once('drain', pump);
    };
    pump();
    res.on('close', () => res.removeAllListeners('drain'));
  });
  const out = await httpClient(spec({ maxBytes: 1024 * 1024 }), target(s.url)).request('GET', '/stream', undefined, never);
  assert.is(out.data, null);
  assert.match(out.truncated!, /larger than 1048576 bytes/);
});

test('a cursor pager may ask for the next page with the same POST and a new body', async () => {
  const s = await serve((_req, res, body) => {
    const cursor = (JSON.parse(body) as { after?: string }).after;
    json(res, 200, cursor ? { nodes: [3], end: null } : { nodes: [1, 2], end: 'c1' });
  });
  const pager: HttpProviderSpec['page'] = (b) => {
    const o = b as { nodes: number[]; end: string | null };
    return { items: o.nodes, body: b, next: o.end ? { body: JSON.stringify({ after: o.end }) } : undefined };
  };
  const out = await httpClient(spec({ page: pager }), target(s.url)).request('POST', '/search', '{}', never);
  assert.equal(out.data, [1, 2, 3]);
  assert.equal(s.hits.map((h) => [h.method, h.path, h.body]), [['POST', '/search', '{}'], ['POST', '/search', '{"after":"c1"}']]);
});

test("a base URL with a path (GitHub Enterprise's /api/v3) keeps it; next-page links are taken as given", async () => {
  let url = '';
  const s = await serve((req, res) => json(res, 200, [req.url], req.url === '/api/v3/items' ? { link: `<${url}/api/v3/items?page=2>; rel="next"` } : {}));
  url = s.url;
  const out = await httpClient(spec(), target(`${s.url}/api/v3/`)).request('GET', '/items', undefined, never);
  assert.equal(out.data, ['/api/v3/items', '/api/v3/items?page=2']);
});

test('a body that is not a list is returned whole (no paging)', async () => {
  const s = await serve((_req, res) => json(res, 200, { login: 'me' }, { link: '<http://127.0.0.1:1/x>; rel="next"' }));
  const out = await httpClient(spec(), target(s.url)).request('GET', '/user', undefined, never);
  assert.equal(out.data, { login: 'me' });
  assert.is(s.hits.length, 1);
});

// ---- rate limits --------------------------------------------------------------------------------

test('a 429 with Retry-After is waited out, then the request is sent again', async () => {
  let n = 0;
  const s = await serve((_req, res) => (n++ === 0 ? json(res, 429, { message: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, [1])));
  const started = Date.now();
  const out = await httpClient(spec(), target(s.url)).request('GET', '/items', undefined, never);
  assert.equal(out.data, [1]);
  assert.is(s.hits.length, 2);
  assert.ok(Date.now() - started >= 900, 'it waited the second it was asked to');
});

test("GitHub's limits: a 403 with x-ratelimit-remaining 0 waits until x-ratelimit-reset; a 403 with Retry-After too", async () => {
  let n = 0;
  const s = await serve((_req, res) => {
    n++;
    if (n === 1) return json(res, 403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000)) });
    if (n === 2) return json(res, 403, { message: 'secondary rate limit' }, { 'retry-after': '0' });
    json(res, 200, ['ok']);
  });
  const out = await httpClient(spec(), target(s.url)).request('GET', '/items', undefined, never);
  assert.equal(out.data, ['ok']);
  assert.is(s.hits.length, 3);
});

test('a Retry-After longer than 120 s (seconds or an HTTP date) is a clear error at once, not a wait', async () => {
  const s = await serve((req, res) =>
    json(res, 429, {}, { 'retry-after': req.url === '/date' ? new Date(Date.now() + 3_600_000).toUTCString() : '900' }),
  );
  const c = httpClient(spec(), target(s.url));
  const e = await rejects(c.request('GET', '/secs', undefined, never));
  assert.is(e.code, 'rate_limited');
  assert.match(e.message, /^svc: rate limited; the server asks to wait 900 s, longer than 120 s$/);
  const d = await rejects(c.request('GET', '/date', undefined, never));
  assert.match(d.message, /the server asks to wait 3[56]\d\d s/);
  assert.is(s.hits.length, 2, 'no retries');
});

test('errorKind: a GraphQL 400 saying RATELIMITED is waited out like a 429; one saying "not authenticated" is a 401', async () => {
  let n = 0;
  const s = await serve((req, res) => {
    if (req.url === '/auth') return json(res, 400, { errors: [{ message: 'Authentication required, not authenticated', extensions: { code: 'AUTHENTICATION_ERROR' } }] });
    if (n++ === 0) return json(res, 400, { errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED' } }] }, { 'retry-after': '0' });
    json(res, 200, { data: { ok: true } });
  });
  const kind: HttpProviderSpec['errorKind'] = (_status, text) => (/RATELIMITED/.test(text) ? 'rate_limited' : /AUTHENTICATION/.test(text) ? 'unauthorized' : undefined);
  const c = httpClient(spec({ errorKind: kind }), target(s.url));
  assert.equal((await c.request('POST', '/graphql', '{}', never)).data, { data: { ok: true } });
  assert.is(s.hits.filter((h) => h.path === '/graphql').length, 2);
  const e = await rejects(c.request('POST', '/auth', '{}', never));
  assert.is(e.code, 'unauthorized');
  assert.is(e.message, 'svc: 400 the token was not accepted (/auth): Authentication required, not authenticated');
  // Without the hook a 400 is an ordinary error with the server's message.
  const plain = await rejects(httpClient(spec(), target(s.url)).request('POST', '/auth', '{}', never));
  assert.is(plain.code, 'http_error');
  assert.match(plain.message, /answered 400: Authentication required, not authenticated$/);
});

test('rate limited four times in a row is an error after three waits', async () => {
  const s = await serve((_req, res) => json(res, 429, {}, { 'retry-after': '0' }));
  const e = await rejects(httpClient(spec(), target(s.url)).request('GET', '/x', undefined, never));
  assert.is(e.code, 'rate_limited');
  assert.match(e.message, /still rate limited after waiting three times/);
  assert.is(s.hits.length, 4);
});

test("a Retry-After wait ends with the caller's deadline (its reason), not after the wait", async () => {
  const s = await serve((_req, res) => json(res, 429, {}, { 'retry-after': '100' }));
  const deadline = new AbortController();
  const timeout = new OperationError('timeout', 'the operation timed out');
  const p = rejects(httpClient(spec(), target(s.url)).request('GET', '/x', undefined, deadline.signal));
  await until(() => s.hits.length === 1);
  deadline.abort(timeout);
  const e = await p;
  assert.is(e, timeout);
});

test("a server that sends headers and then stalls is ended by the caller's deadline with its reason", async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[1,');
  });
  const deadline = new AbortController();
  const reason = new OperationError('timeout', 'the operation timed out');
  const p = rejects(httpClient(spec(), target(s.url)).request('GET', '/x', undefined, deadline.signal));
  await until(() => s.hits.length === 1);
  deadline.abort(reason);
  assert.is(await p, reason);
  // Without the caller's deadline, the per-request timeout ends it as a clear error.
  const e = await rejects(httpClient(spec(), target(s.url), { timeoutMs: 300 }).request('GET', '/x', undefined, never));
  assert.is(e.code, 'http_unreachable');
  assert.match(e.message, /^svc: http:\/\/127\.0\.0\.1:\d+ stopped answering/);
});

// ---- auth, redirects, origins -------------------------------------------------------------------

test('401 and 403 are clear errors naming where the token came from; without a token a 401 says none is configured', async () => {
  const s = await serve((req, res) => json(res, req.url === '/forbidden' ? 403 : 401, { message: 'Bad credentials' }));
  const e401 = await rejects(httpClient(spec(), target(s.url)).request('GET', '/user', undefined, never));
  assert.is(e401.code, 'unauthorized');
  assert.is(e401.message, 'svc: 401 the token was not accepted (/user): Bad credentials');
  assert.is(e401.hint, 'check the service token (SVC_TOKEN); `assistant credentials test svc` checks it');
  const e403 = await rejects(httpClient(spec(), target(s.url)).request('GET', '/forbidden', undefined, never));
  assert.match(e403.message, /^svc: 403 the token may not read this \(\/forbidden\)/);
  const anon = await rejects(httpClient(spec(), target(s.url, null)).request('GET', '/user', undefined, never));
  assert.match(anon.message, /^svc: 401 needs a token, and none is configured/);
  assert.is(anon.hint, 'configure a service token (no token)');
});

test('a redirect is not followed (the token is not sent on), and the error says so', async () => {
  const elsewhere = await serve((_req, res) => json(res, 200, ['stolen']));
  const s = await serve((_req, res) => {
    res.writeHead(302, { location: `${elsewhere.url}/loot` });
    res.end();
  });
  const e = await rejects(httpClient(spec(), target(s.url)).request('GET', '/x', undefined, never));
  assert.is(e.code, 'http_redirect_refused');
  assert.match(e.message, /answered 302 \(a redirect\); redirects are not followed/);
  assert.is(elsewhere.hits.length, 0);
});

test('a next-page link to another origin is refused before anything is sent there', async () => {
  const elsewhere = await serve((_req, res) => json(res, 200, []));
  const s = await serve((_req, res) => json(res, 200, [1], { link: `<${elsewhere.url}/page2>; rel="next"` }));
  const e = await rejects(httpClient(spec(), target(s.url)).request('GET', '/x', undefined, never));
  assert.is(e.code, 'http_redirect_refused');
  assert.ok(e.message.includes(`the server pointed to ${elsewhere.url}, another origin than ${s.url}; not followed`), e.message);
  assert.is(elsewhere.hits.length, 0);
  // A protocol-relative path in a step is refused the same way (it names another host).
  const rel = await rejects(httpClient(spec(), target(s.url)).request('GET', `//127.0.0.2:${new URL(elsewhere.url).port}/x`, undefined, never));
  assert.is(rel.code, 'http_redirect_refused');
});

test('plain HTTP to another host is refused while a token is configured; loopback, https and no token are allowed', () => {
  const err = (() => {
    try {
      httpClient(spec(), target('http://api.example.com'));
    } catch (e) {
      return e as AssistantError;
    }
  })();
  assert.ok(err instanceof UsageError);
  assert.match(err!.message, /^svc: base_url http:\/\/api\.example\.com is plain HTTP to another host, and a token is configured: it would travel in clear; nothing was sent$/);
  for (const ok of ['https://api.example.com', 'http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9']) httpClient(spec(), target(ok));
  httpClient(spec(), target('http://api.example.com', null));
  assert.throws(() => httpClient(spec(), target('ftp://api.example.com')), /must be http\(s\)/);
  assert.throws(() => httpClient(spec(), target('not a url')), /is not a URL/);
  // A host that only looks like loopback is not.
  assert.throws(() => httpClient(spec(), target('http://127.0.0.1.example.com')), /plain HTTP to another host/);
  assert.throws(() => httpClient(spec(), target('http://localhost.example.com')), /plain HTTP to another host/);
});

test('credential headers are registered as secrets (redaction masks them); the other headers are not', () => {
  httpClient(spec(), { ...target('https://api.example.com'), headers: { authorization: `Bearer ${TOKEN}`, 'x-api-key': 'key_0123456789abcdef', 'x-api-version': '2031-07-15', accept: 'application/vnd.svc+json' } });
  assert.not.ok(redactText(`Authorization: Bearer ${TOKEN}`).includes(TOKEN));
  assert.not.ok(redactText('k=key_0123456789abcdef').includes('key_0123456789abcdef'));
  assert.is(redactText('released 2031-07-15 as application/vnd.svc+json'), 'released 2031-07-15 as application/vnd.svc+json');
});

// ---- classification and args --------------------------------------------------------------------

test('default deny: GET and HEAD read; every other method is destructive with its reason; isRead may admit a read POST', () => {
  const verb = httpVerb(spec({ isRead: (m, p, b) => m === 'POST' && p === '/graphql' && isGraphqlRead(b) }));
  assert.is(verb.verb, 'svc-api');
  assert.is(verb.classify(['svc-api', 'GET', '/x']).effect, 'read');
  assert.is(verb.classify(['svc-api', 'get', '/x']).effect, 'read');
  assert.is(verb.classify(['svc-api', 'HEAD', '/x']).effect, 'read');
  for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const c = verb.classify(['svc-api', m, '/x', '{}']);
    assert.is(c.effect, 'destroy', m);
    assert.equal(c.reasons, [`${m} /x: not known to be safe (svc steps only read without --destroyer)`]);
  }
  assert.is(verb.classify(['svc-api', 'POST', '/graphql', JSON.stringify({ query: '{ viewer { id } }' })]).effect, 'read');
  assert.is(verb.classify(['svc-api', 'POST', '/graphql', JSON.stringify({ query: 'mutation { issueDelete(id: "1") { success } }' })]).effect, 'destroy');
  assert.is(verb.classify(['svc-api', 'POST', '/other', JSON.stringify({ query: '{ viewer { id } }' })]).effect, 'destroy');
  assert.is(verb.classify(['svc-api', '<METHOD>', '/x']).effect, 'destroy', 'a placeholder method is not known to read');
  assert.is(httpVerb(spec({ name: 'vps_a' })).verb, 'vps-a-api');
  assert.is(verb.describe(['svc-api', 'POST', '/graphql', JSON.stringify({ query: 'query OpenIssues { issues { nodes { id } } }' })]), 'svc POST /graphql (query OpenIssues)');
  assert.is(verb.describe(['svc-api', 'POST', '/graphql', JSON.stringify({ query: 'mutation { a }' })]), 'svc POST /graphql (mutation)');
  assert.is(verb.describe(['svc-api', 'GET', '/x']), 'svc GET /x');
});

test('args are checked before anything is sent', () => {
  const verb = httpVerb(spec());
  const fields = (args: string[]) => verb.checkArgs(args).map((p) => p.field);
  assert.equal(fields(['svc-api', 'GET', '/x']), []);
  assert.equal(fields(['svc-api', 'FETCH', '/x']), ['args[1]']);
  assert.equal(fields(['svc-api', 'GET', 'x']), ['args[2]']);
  assert.equal(fields(['svc-api', 'GET', '//evil.example/x']), ['args[2]']);
  assert.equal(fields(['svc-api', 'GET', '/x\r\nHost: evil']), ['args[2]']);
  assert.equal(fields(['svc-api', 'POST', '/x', '{not json']), ['args[3]']);
  assert.equal(fields(['svc-api', 'GET', '/repos/a/../../user']), ['args[2]']);
  assert.equal(fields(['svc-api', 'GET', '/repos/a/%2E%2e/x']), ['args[2]']);
  assert.equal(fields(['svc-api', 'GET', '/repos/a/./x']), ['args[2]']);
  assert.equal(fields(['svc-api', 'GET', '/repos/a/b.c/x?q=..']), [], 'dots inside a name or in the query are fine');
  assert.equal(fields(['svc-api', 'GET']), ['args', 'args[2]']);
  assert.equal(fields(['svc-api', 'POST', '/x', '{"a":"<ID>"}']), [], 'a placeholder in the body is allowed');
});

test('placeholders in the path are URL-encoded when substituted', () => {
  const verb = httpVerb(spec());
  assert.equal(verb.substitute(['svc-api', 'GET', '/repos/<OWNER>/x'], { OWNER: 'a/b?c' }), ['svc-api', 'GET', '/repos/a%2Fb%3Fc/x']);
});

test("GraphQL: only documents of queries (and fragments) read; a mutation or subscription anywhere, a batch or a broken document does not", () => {
  const q = (query: unknown, extra: object = {}) => JSON.stringify({ query, ...extra });
  const reads = [
    q('{ viewer { id } }'),
    q('query Issues($team: String!) { team(id: $team) { issues(first: 50) { nodes { id title } } } }', { variables: { team: 'ENG' } }),
    q('query A { a } fragment F on Issue { id title }'),
    q('query { issues(filter: { title: { contains: "mutation { x }" } }) { nodes { id } } }'),
    q('# mutation { deleteAll }\nquery { viewer { id } }'),
    q('query { a(s: """ block "with" mutation """) { id } }'),
  ];
  for (const b of reads) assert.ok(isGraphqlRead(b), b);
  const writes = [
    q('mutation { issueDelete(id: "1") { success } }'),
    q('query A { a } mutation B { issueDelete(id: "1") { success } }'),
    q('subscription { issueUpdated { id } }'),
    q('{ a } { b } mutation { c }'),
    q('query { a } }'),
    q('query { a(s: "unterminated) { id } }'),
    q(''),
    q(42),
    JSON.stringify([{ query: '{ viewer { id } }' }]),
    'not json',
    undefined,
    q('query A($x: In = {a: 1}) @dir { a }'),
  ];
  for (const b of writes) assert.not.ok(isGraphqlRead(b as string | undefined), String(b));
});

// ---- the verb through a provider -----------------------------------------------------------------

test('the verb reports a cut list to the run observer and returns { items, truncated }', async () => {
  const s = await pagedServer(5);
  const provider = httpProvider(spec({ maxPages: 2, target: () => target(s.url) }));
  const { client } = await provider.connect({ config: {} as never, env: {}, home: '/nonexistent' });
  const waits: WaitNotice[] = [];
  const out = await provider.verbs[0]!.run(['svc-api', 'GET', '/items'], { client: async () => client, signal: never, waiting: (w) => waits.push(w) });
  assert.equal(out.data, { items: [{ id: 0, pad: '' }, { id: 1, pad: '' }, { id: 2, pad: '' }, { id: 3, pad: '' }], truncated: 'only the first 2 pages (4 items) were read' });
  assert.equal(waits.map((w) => w.message), ['svc: only the first 2 pages (4 items) were read']);
});

test('base_url: the config, else ASSISTANT_<NAME>_BASE_URL, else the default; config keys before env variables', () => {
  assert.is(baseUrlFor('repohost', ' https://ghe.example/api/v3/ ', { ASSISTANT_REPOHOST_BASE_URL: 'http://x' }, 'https://api.github.com'), 'https://ghe.example/api/v3');
  assert.is(baseUrlFor('repohost', undefined, { ASSISTANT_REPOHOST_BASE_URL: 'http://127.0.0.1:9/' }, 'https://api.github.com'), 'http://127.0.0.1:9');
  assert.is(baseUrlFor('repohost', '', {}, 'https://api.github.com'), 'https://api.github.com');
  assert.equal(fromConfigOrEnv(' c ', { A: 'a' }, ['A']), { value: 'c', where: 'config' });
  assert.equal(fromConfigOrEnv(undefined, { A: ' ', B: 'b' }, ['A', 'B']), { value: 'b', where: 'B' });
  assert.equal(fromConfigOrEnv(undefined, {}, ['A']), {});
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('condition not reached');
}

test.run();
