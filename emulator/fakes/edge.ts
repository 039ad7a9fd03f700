/**
 * A local fake of the CDN/DNS API (Cloudflare-style API v4 under /client/v4): zones, DNS records, zone
 * settings, token verification. Wire format as the public reference gives it: every answer is the
 * envelope `{success, errors: [{code, message}], messages, result}`, lists add
 * `result_info: {page, per_page, count, total_count, total_pages}` and page with `page` / `per_page`
 * (zones: at most 50 a page; DNS records: at most 5000). Backs `--sandbox` and the tests.
 */
import { randomBytes } from 'node:crypto';
import { bearerToken, startJsonFake, type FakeReply, type FakeRequest, type HostileMode, type JsonFake } from './json-fake.js';

export const EDGE_FAKE_ACCOUNT_ID = '01a7362d577a6c3019a474fd6f485823';

export interface EdgeFakeOptions {
  token?: string;
  /** DNS records in example.com (default: the seeded ones; more are generated). */
  records?: number;
}

const hex = () => randomBytes(16).toString('hex');
const envelope = (result: unknown, resultInfo?: unknown) => ({ success: true, errors: [], messages: [], result, ...(resultInfo ? { result_info: resultInfo } : {}) });
const failure = (status: number, code: number, message: string): FakeReply => ({ status, body: { success: false, errors: [{ code, message }], messages: [], result: null } });

interface Zone {
  id: string;
  name: string;
  status: string;
  plan: string;
}

interface DnsRecord {
  id: string;
  zone: string;
  name: string;
  type: string;
  content: string;
  proxied: boolean;
  ttl: number;
}

export async function startEdgeFake(opts: EdgeFakeOptions = {}): Promise<JsonFake> {
  const zones: Zone[] = [
    { id: hex(), name: 'example.com', status: 'active', plan: 'Pro Website' },
    { id: hex(), name: 'example.org', status: 'active', plan: 'Free Website' },
    { id: hex(), name: 'staging-example.net', status: 'pending', plan: 'Free Website' },
  ];
  const [com, org] = zones as [Zone, Zone, Zone];
  const records: DnsRecord[] = [
    { id: hex(), zone: com.id, name: 'example.com', type: 'A', content: '203.0.113.10', proxied: true, ttl: 1 },
    { id: hex(), zone: com.id, name: 'www.example.com', type: 'CNAME', content: 'example.com', proxied: true, ttl: 1 },
    { id: hex(), zone: com.id, name: 'api.example.com', type: 'A', content: '203.0.113.20', proxied: false, ttl: 300 },
    { id: hex(), zone: com.id, name: 'example.com', type: 'MX', content: 'mail.example.com', proxied: false, ttl: 3600 },
    { id: hex(), zone: com.id, name: 'example.com', type: 'TXT', content: '"v=spf1 include:_spf.example.net ~all"', proxied: false, ttl: 3600 },
    { id: hex(), zone: com.id, name: 'ipv6.example.com', type: 'AAAA', content: '2001:db8::10', proxied: true, ttl: 1 },
    { id: hex(), zone: org.id, name: 'example.org', type: 'A', content: '198.51.100.7', proxied: true, ttl: 1 },
  ];
  for (let i = records.filter((r) => r.zone === com.id).length; i < (opts.records ?? 0); i++) {
    records.push({ id: hex(), zone: com.id, name: `host-${i}.example.com`, type: 'A', content: `10.0.${Math.floor(i / 250)}.${i % 250}`, proxied: false, ttl: 1 });
  }
  const settings = (zone: Zone) => [
    ['ssl', zone === com ? 'strict' : 'flexible'],
    ['always_use_https', 'on'],
    ['min_tls_version', '1.2'],
    ['tls_1_3', 'on'],
    ['http3', 'on'],
    ['ipv6', 'on'],
    ['security_level', 'medium'],
    ['cache_level', 'aggressive'],
    ['development_mode', 'off'],
    ['browser_cache_ttl', 14400],
  ].map(([id, value]) => ({ id, value, editable: true, modified_on: '2026-11-01T10:00:00.000000Z' }));

  function listPage<T>(items: T[], q: URLSearchParams, maxPerPage: number, defaultPerPage: number, render: (t: T) => unknown, mode: HostileMode | undefined): FakeReply {
    const page = q.has('page') ? Number(q.get('page')) : 1;
    const perPage = q.has('per_page') ? Number(q.get('per_page')) : defaultPerPage;
    if (!Number.isInteger(page) || page < 1) return failure(400, 1001, 'Invalid page number');
    if (!Number.isInteger(perPage) || perPage < 5 || perPage > maxPerPage) return failure(400, 1001, `Invalid per_page: must be between 5 and ${maxPerPage}`);
    if (mode === 'endless') return { body: envelope(items.slice(0, 1).map(render), { page, per_page: perPage, count: 1, total_count: (page + 1) * perPage, total_pages: page + 1 }) };
    const slice = items.slice((page - 1) * perPage, page * perPage);
    return { body: envelope(slice.map(render), { page, per_page: perPage, count: slice.length, total_count: items.length, total_pages: Math.max(1, Math.ceil(items.length / perPage)) }) };
  }

  const zoneObject = (z: Zone) => ({
    id: z.id,
    name: z.name,
    status: z.status,
    paused: false,
    type: 'full',
    development_mode: 0,
    name_servers: ['ada.ns.example-dns.com', 'bob.ns.example-dns.com'],
    original_name_servers: null,
    account: { id: EDGE_FAKE_ACCOUNT_ID, name: 'Example Co' },
    plan: { id: 'p1', name: z.plan },
    created_on: '2026-01-10T10:00:00.000000Z',
    modified_on: '2026-11-01T10:00:00.000000Z',
  });
  const recordObject = (r: DnsRecord) => {
    const zone = zones.find((z) => z.id === r.zone)!;
    return { id: r.id, zone_id: zone.id, zone_name: zone.name, name: r.name, type: r.type, content: r.content, proxiable: ['A', 'AAAA', 'CNAME'].includes(r.type), proxied: r.proxied, ttl: r.ttl, settings: {}, meta: {}, comment: null, tags: [], created_on: '2026-02-01T10:00:00.000000Z', modified_on: '2026-11-01T10:00:00.000000Z' };
  };

  function handle(req: FakeRequest, mode: HostileMode | undefined): FakeReply {
    if (req.method !== 'GET') return failure(405, 10000, 'method not allowed in this fake');
    const p = req.path;
    if (p === '/client/v4/user/tokens/verify') return { body: envelope({ id: 'ed17574386854bf78a67040be0a770b0', status: 'active' }, undefined) };
    if (p === '/client/v4/zones') {
      let list = zones;
      const name = req.query.get('name');
      if (name) list = list.filter((z) => z.name === name);
      const account = req.query.get('account.id');
      if (account && account !== EDGE_FAKE_ACCOUNT_ID) list = [];
      return listPage(list, req.query, 50, 20, zoneObject, mode);
    }
    const m = /^\/client\/v4\/zones\/([^/]+)(\/dns_records|\/settings)?$/.exec(p);
    const zone = m && zones.find((z) => z.id === m[1]);
    if (m && !zone) return failure(404, 7003, 'Could not route to /zones/' + m[1] + ', perhaps your object identifier is invalid?');
    if (zone && m![2] === '/dns_records') {
      let list = mode === 'huge' ? Array.from({ length: 100 }, (_, i) => ({ id: hex(), zone: zone.id, name: `huge-${i}.${zone.name}`, type: 'TXT', content: 'x'.repeat(60_000), proxied: false, ttl: 1 })) : records.filter((r) => r.zone === zone.id);
      const type = req.query.get('type');
      if (type) list = list.filter((r) => r.type === type);
      return listPage(list, req.query, 5000, 100, recordObject, mode);
    }
    if (zone && m![2] === '/settings') return { body: envelope(settings(zone)) };
    if (zone) return { body: envelope(zoneObject(zone)) };
    return failure(404, 7000, 'No route for that URI');
  }

  return startJsonFake(
    {
      tokenOf: bearerToken,
      unauthorized: () => ({ success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [], result: null }),
      rateLimited: () => ({ success: false, errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }], messages: [], result: null }),
      handle,
    },
    { token: opts.token },
  );
}
