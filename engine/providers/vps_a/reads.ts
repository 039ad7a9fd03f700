/**
 * vps_a's catalogue of reads (a DigitalOcean-style API v2): droplets with what their size costs,
 * volumes, and the month's balance. Each is one GET, paged by the client (`links.pages.next`).
 */
import type { ApiReadSpec, PricedRecord } from '../../core/kits/http/api-reads.js';
import { arr, cliRead, num, obj, str } from '../../core/kits/cli/reads.js';
import { formatAmount } from '../../core/render/money.js';

export const VPS_A_VERB = 'vps-a-api';

function dropletRecord(d: unknown): PricedRecord {
  const o = obj(d);
  const size = obj(o.size);
  const ip = arr(obj(o.networks).v4).map(obj).find((n) => n.type === 'public')?.ip_address;
  const monthly = num(size.price_monthly);
  const hourly = num(size.price_hourly);
  const detail = [str(o.size_slug) ?? str(size.slug), str(obj(o.region).slug), str(ip), monthly !== undefined ? `$${formatAmount(monthly)}/month` : undefined].filter(Boolean).join(', ');
  return { name: str(o.name) ?? String(o.id ?? '?'), state: str(o.status), detail, monthly, hourly, currency: 'USD' };
}

export const VPS_A_READS: ApiReadSpec[] = [
  { ...cliRead('droplets', 'droplet', ['droplet', 'droplets', 'server', 'servers', 'vps', 'vm', 'vms', 'machines', 'cost', 'costs', 'price', 'prices', 'spend', 'running', 'active', 'off'], [VPS_A_VERB, 'GET', '/v2/droplets?per_page=200'], (items) => items.map(dropletRecord), { byDefault: true }), billed: true },
  cliRead('volumes', 'volume', ['volume', 'volumes', 'block storage', 'disk', 'disks', 'storage'], [VPS_A_VERB, 'GET', '/v2/volumes?per_page=200'], (items) =>
    items.map(obj).map((v) => ({
      name: str(v.name) ?? String(v.id ?? '?'),
      detail: [num(v.size_gigabytes) !== undefined ? `${num(v.size_gigabytes)} GB` : undefined, str(obj(v.region).slug), arr(v.droplet_ids).length ? `attached to ${arr(v.droplet_ids).join(', ')}` : 'not attached'].filter(Boolean).join(', '),
    }))),
  cliRead('balance', 'balance', ['balance', 'bill', 'billing', 'usage', 'invoice', 'month to date', 'owe'], [VPS_A_VERB, 'GET', '/v2/balance'], (items) =>
    items.map(obj).map((b) => ({
      name: `month-to-date usage $${str(b.month_to_date_usage) ?? '?'}`,
      detail: `account balance $${str(b.account_balance) ?? '?'}, month-to-date balance $${str(b.month_to_date_balance) ?? '?'}${str(b.generated_at) ? `, as of ${str(b.generated_at)}` : ''}`,
    })), { label: 'balance' }),
];
