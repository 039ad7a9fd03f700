/**
 * vps_b's catalogue of reads (a Hetzner-Cloud-style API v1): servers with the price of their server
 * type in their own location, and the server types with their prices per location. Each is one GET,
 * paged by the client (`meta.pagination.next_page`).
 */
import type { ApiReadSpec, PricedRecord } from '../../core/kits/http/api-reads.js';
import { arr, cliRead, num, obj, str } from '../../core/kits/cli/reads.js';
import { formatAmount } from '../../core/render/money.js';

export const VPS_B_VERB = 'vps-b-api';

/** The gross price (what is paid, VAT included) of a server type in a location, per hour and per month. */
function priceIn(type: Record<string, unknown>, location: string | undefined): { hourly?: number; monthly?: number } {
  const p = arr(type.prices).map(obj).find((x) => x.location === location);
  if (!p) return {};
  return { hourly: num(obj(p.price_hourly).gross), monthly: num(obj(p.price_monthly).gross) };
}

function serverRecord(s: unknown): PricedRecord {
  const o = obj(s);
  const type = obj(o.server_type);
  const location = str(obj(obj(o.datacenter).location).name);
  const { hourly, monthly } = priceIn(type, location);
  const ip = str(obj(obj(o.public_net).ipv4).ip);
  const detail = [str(type.name), location, ip, monthly !== undefined ? `€${formatAmount(monthly)}/month` : undefined].filter(Boolean).join(', ');
  return { name: str(o.name) ?? String(o.id ?? '?'), state: str(o.status), detail, hourly, monthly, currency: 'EUR' };
}

function serverTypeRecord(t: unknown): PricedRecord {
  const o = obj(t);
  const prices = arr(o.prices).map(obj);
  const monthly = prices.map((p) => ({ location: str(p.location), m: num(obj(p.price_monthly).gross) })).filter((p) => p.m !== undefined);
  const cheapest = monthly.sort((a, b) => a.m! - b.m!)[0];
  const detail = [
    `${String(o.cores ?? '?')} vCPU, ${String(o.memory ?? '?')} GB RAM, ${String(o.disk ?? '?')} GB disk`,
    cheapest ? `from €${formatAmount(cheapest.m!)}/month (${monthly.map((p) => p.location).join(', ')})` : undefined,
    o.deprecated === true ? 'deprecated' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return { name: str(o.name) ?? String(o.id ?? '?'), detail };
}

export const VPS_B_READS: ApiReadSpec[] = [
  { ...cliRead('servers', 'server', ['server', 'servers', 'vps', 'vm', 'vms', 'machines', 'cost', 'costs', 'price', 'spend', 'running', 'off'], [VPS_B_VERB, 'GET', '/v1/servers?per_page=50'], (items) => items.map(serverRecord), { byDefault: true }), billed: true },
  cliRead('server_types', 'server type', ['server type', 'server types', 'types', 'sizes', 'plans', 'price list', 'cheapest', 'offer', 'offers'], [VPS_B_VERB, 'GET', '/v1/server_types?per_page=50'], (items) => items.map(serverTypeRecord)),
];
