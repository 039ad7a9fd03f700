/**
 * A local stand-in for vps_b, a Hetzner-Cloud-style API v1 (the wire format of its public reference):
 * `Authorization: Bearer <token>`; lists as `{"servers": […], "meta": {"pagination": {"page", "per_page",
 * "previous_page", "next_page", "last_page", "total_entries"}}}` paged with `page`/`per_page` (at most 50);
 * a server carries its `server_type` with `prices` per location (`price_hourly`/`price_monthly`, `net`
 * and `gross` as decimal strings, EUR); errors as `{"error": {"code", "message", "details"}}`.
 */
import { bearer, pageOf, startFakeServer, type FakeHandle, type FakeRequest } from './fake-api-server.js';

export const VPS_B_FAKE_TOKEN = 'hc-fake-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789';

const price = (location: string, hourly: number, monthly: number) => ({
  location,
  price_hourly: { net: hourly.toFixed(10), gross: (hourly * 1.19).toFixed(10) },
  price_monthly: { net: monthly.toFixed(10), gross: (monthly * 1.19).toFixed(10) },
});

export const VPS_B_SERVER_TYPES = [
  { id: 22, name: 'cpx11', description: 'CPX 11', cores: 2, memory: 2, disk: 40, deprecated: false, storage_type: 'local', cpu_type: 'shared', architecture: 'x86', prices: [price('fsn1', 0.0063, 3.85), price('nbg1', 0.0063, 3.85), price('ash', 0.0083, 4.99)] },
  { id: 23, name: 'cpx21', description: 'CPX 21', cores: 3, memory: 4, disk: 80, deprecated: false, storage_type: 'local', cpu_type: 'shared', architecture: 'x86', prices: [price('fsn1', 0.0105, 6.49), price('nbg1', 0.0105, 6.49)] },
  { id: 96, name: 'ccx23', description: 'CCX 23 Dedicated CPU', cores: 4, memory: 16, disk: 160, deprecated: false, storage_type: 'local', cpu_type: 'dedicated', architecture: 'x86', prices: [price('fsn1', 0.0395, 24.49), price('hel1', 0.0395, 24.49)] },
];

function server(id: number, name: string, type: string, location: string, status: string, ip: string) {
  return {
    id,
    name,
    status,
    created: '2026-10-01T09:00:00+00:00',
    public_net: { ipv4: { ip, blocked: false, dns_ptr: `static.${ip}.clients.example` }, ipv6: null, floating_ips: [], firewalls: [] },
    private_net: [],
    server_type: VPS_B_SERVER_TYPES.find((t) => t.name === type)!,
    datacenter: { id: 4, name: `${location}-dc14`, description: `${location} DC 14`, location: { id: 1, name: location, description: location, country: 'DE', city: location, network_zone: 'eu-central' } },
    image: { id: 114690387, type: 'system', name: 'ubuntu-24.04', description: 'Ubuntu 24.04' },
    labels: { env: 'prod' },
    volumes: [],
    load_balancers: [],
    primary_disk_size: VPS_B_SERVER_TYPES.find((t) => t.name === type)!.disk,
    locked: false,
  };
}

export const VPS_B_SEED = {
  servers: [
    server(42, 'api-1', 'cpx21', 'fsn1', 'running', '198.51.100.20'),
    server(43, 'api-2', 'cpx21', 'nbg1', 'running', '198.51.100.21'),
    server(44, 'worker', 'ccx23', 'hel1', 'off', '198.51.100.22'),
    server(45, 'bastion', 'cpx11', 'fsn1', 'running', '198.51.100.23'),
  ],
};

export interface VpsBFakeOptions {
  token?: string;
  /** Most items per page, whatever `per_page` asks (the API allows 50). */
  pageSize?: number;
}

export interface VpsBFake extends FakeHandle {
  token: string;
}

const apiError = (status: number, code: string, message: string) => ({ status, body: { error: { code, message, details: {} } } });

export async function startVpsBFake(opts: VpsBFakeOptions = {}): Promise<VpsBFake> {
  const token = opts.token ?? VPS_B_FAKE_TOKEN;
  const lists: Record<string, unknown[]> = { servers: VPS_B_SEED.servers, server_types: VPS_B_SERVER_TYPES };
  const handle = await startFakeServer({
    authorized: (req) => bearer(req) === token,
    unauthorized: () => apiError(401, 'unauthorized', 'unable to authenticate'),
    rateLimited: () => apiError(429, 'rate_limit_exceeded', 'limit of 3600 requests per hour reached'),
    route(req: FakeRequest, state) {
      const url = new URL(req.path, state.origin);
      if (req.method !== 'GET') return apiError(405, 'method_not_allowed', 'this fake only reads');
      if (url.pathname === '/v1/pricing') {
        return { status: 200, body: { pricing: { currency: 'EUR', vat_rate: '19.00', server_types: VPS_B_SERVER_TYPES.map((t) => ({ id: t.id, name: t.name, prices: t.prices })) } } };
      }
      const kind = /^\/v1\/(servers|server_types)$/.exec(url.pathname)?.[1];
      if (!kind) return apiError(404, 'not_found', 'not found');
      const all = lists[kind]!;
      const { items, page, perPage, last } = pageOf(all, url, state, { defaultPerPage: 25, maxPerPage: opts.pageSize ?? 50, filler: (i, pad, p) => ({ id: 900_000 + p * 10_000 + i, name: `filler-${i}-${pad}`, status: 'running' }) });
      const next = page < last || state.hostile.endlessNext ? page + 1 : null;
      return {
        status: 200,
        body: { [kind]: items, meta: { pagination: { page, per_page: perPage, previous_page: page > 1 ? page - 1 : null, next_page: next, last_page: state.hostile.endlessNext ? page + 1000 : last, total_entries: all.length } } },
      };
    },
  });
  return Object.assign(handle, { token });
}
