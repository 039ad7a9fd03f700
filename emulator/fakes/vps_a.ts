/**
 * A local stand-in for vps_a, a DigitalOcean-style API v2 (the wire format of its public reference):
 * `Authorization: Bearer <token>`; lists as `{"droplets": […], "links": {"pages": {"next": "<absolute
 * URL>"}}, "meta": {"total": N}}` paged with `page`/`per_page`; each droplet carries its size with
 * `price_hourly`/`price_monthly` (USD); errors as `{"id": "unauthorized", "message": …}`. Seeded with a
 * small account; `pageSize` caps `per_page` so tests see paging. Backs `--sandbox` and the tests.
 */
import { bearer, pageOf, startFakeServer, type FakeHandle, type FakeRequest } from './fake-api-server.js';

export const VPS_A_FAKE_TOKEN = 'dop_v1_fake0123456789abcdef0123456789abcdef';

interface Size {
  slug: string;
  memory: number;
  vcpus: number;
  disk: number;
  price_monthly: number;
  price_hourly: number;
}

const SIZES: Size[] = [
  { slug: 's-1vcpu-1gb', memory: 1024, vcpus: 1, disk: 25, price_monthly: 6, price_hourly: 0.00893 },
  { slug: 's-2vcpu-4gb', memory: 4096, vcpus: 2, disk: 80, price_monthly: 24, price_hourly: 0.03571 },
  { slug: 's-4vcpu-8gb', memory: 8192, vcpus: 4, disk: 160, price_monthly: 48, price_hourly: 0.07143 },
];

function droplet(id: number, name: string, sizeSlug: string, region: string, status: string, ip: string) {
  const size = SIZES.find((s) => s.slug === sizeSlug)!;
  return {
    id,
    name,
    memory: size.memory,
    vcpus: size.vcpus,
    disk: size.disk,
    locked: false,
    status,
    created_at: '2026-10-01T09:00:00Z',
    features: ['monitoring'],
    backup_ids: [],
    snapshot_ids: [],
    image: { id: 129211873, name: '24.04 (LTS) x64', distribution: 'Ubuntu', slug: 'ubuntu-24-04-x64' },
    size: { ...size, transfer: 1, regions: [region], available: true, description: 'Basic' },
    size_slug: sizeSlug,
    networks: { v4: [{ ip_address: ip, netmask: '255.255.240.0', gateway: ip.replace(/\.\d+$/, '.1'), type: 'public' }], v6: [] },
    region: { name: region.toUpperCase(), slug: region, available: true },
    tags: ['prod'],
    volume_ids: [],
  };
}

export const VPS_A_SEED = {
  droplets: [
    droplet(3164444, 'web-1', 's-1vcpu-1gb', 'nyc3', 'active', '203.0.113.10'),
    droplet(3164445, 'web-2', 's-1vcpu-1gb', 'nyc3', 'active', '203.0.113.11'),
    droplet(3164446, 'db-1', 's-2vcpu-4gb', 'fra1', 'active', '203.0.113.12'),
    droplet(3164447, 'build-1', 's-4vcpu-8gb', 'ams3', 'off', '203.0.113.13'),
    droplet(3164448, 'staging', 's-1vcpu-1gb', 'fra1', 'active', '203.0.113.14'),
  ],
  volumes: [{ id: '506f78a4-e098-11e5-ad9f-000f53306ae1', name: 'db-data', size_gigabytes: 100, region: { slug: 'fra1', name: 'FRA1' }, droplet_ids: [3164446], filesystem_type: 'ext4', created_at: '2026-10-01T09:00:00Z', tags: [] }],
};

export interface VpsAFakeOptions {
  token?: string;
  /** Most items per page, whatever `per_page` asks (DigitalOcean allows 200). */
  pageSize?: number;
  droplets?: unknown[];
}

export interface VpsAFake extends FakeHandle {
  token: string;
}

export async function startVpsAFake(opts: VpsAFakeOptions = {}): Promise<VpsAFake> {
  const token = opts.token ?? VPS_A_FAKE_TOKEN;
  const lists: Record<string, unknown[]> = { droplets: opts.droplets ?? VPS_A_SEED.droplets, volumes: VPS_A_SEED.volumes, sizes: SIZES.map((s) => ({ ...s, available: true, regions: ['nyc3', 'fra1', 'ams3'] })) };
  const handle = await startFakeServer({
    authorized: (req) => bearer(req) === token,
    unauthorized: () => ({ status: 401, body: { id: 'Unauthorized', message: 'Unable to authenticate you' } }),
    rateLimited: () => ({ status: 429, body: { id: 'too_many_requests', message: 'API Rate limit exceeded.' } }),
    route(req: FakeRequest, state) {
      const url = new URL(req.path, state.origin);
      if (req.method !== 'GET') return { status: 405, body: { id: 'method_not_allowed', message: 'this fake only reads' } };
      if (url.pathname === '/v2/account') {
        return { status: 200, body: { account: { droplet_limit: 25, floating_ip_limit: 3, volume_limit: 100, email: 'ops@example.com', uuid: 'b6fr89dbf6d9156cace5f3c78dc9851d957381ef', email_verified: true, status: 'active', status_message: '' } } };
      }
      if (url.pathname === '/v2/balance') {
        return { status: 200, body: { month_to_date_balance: '23.44', account_balance: '12.23', month_to_date_usage: '11.21', generated_at: '2026-11-25T00:00:00Z' } };
      }
      const kind = /^\/v2\/(droplets|volumes|sizes)$/.exec(url.pathname)?.[1];
      if (!kind) return { status: 404, body: { id: 'not_found', message: 'The resource you were accessing could not be found.' } };
      const all = lists[kind]!;
      const { items, page, perPage, last } = pageOf(all, url, state, { defaultPerPage: 20, maxPerPage: opts.pageSize ?? 200, filler: (i, pad, p) => ({ id: 9_000_000 + p * 10_000 + i, name: `filler-${i}-${pad}`, status: 'active' }) });
      const link = (p: number) => `${state.origin}/v2/${kind}?page=${p}&per_page=${perPage}`;
      const pages: Record<string, string> = {};
      if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) });
      if (page < last || state.hostile.endlessNext) Object.assign(pages, { next: link(page + 1), last: link(state.hostile.endlessNext ? page + 1000 : last) });
      return { status: 200, body: { [kind]: items, links: { pages }, meta: { total: all.length } } };
    },
  });
  return Object.assign(handle, { token });
}
