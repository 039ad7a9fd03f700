/**
 * cloud_c (Azure) cost from Cost Management's query API: `az rest --method post` to
 * `…/providers/Microsoft.CostManagement/query` read steps (provider cloud_c, through the one executor),
 * daily ActualCost grouped as each command needs. `az rest` because it is part of every Azure CLI:
 * `az costmanagement query` is an extension, and a step's az runs with no extensions (its configuration
 * is generated per step, engine/core/kits/cli/isolation.ts). The query is a POST that changes nothing;
 * the allowlist (destroyer.ts) lets exactly this operation through as a read, any other `az rest` needs
 * --destroyer. Azure bills afterwards: no balance, no runway.
 */
import type { BilledCost, BilledDay, BilledGroup } from '../../core/capabilities.js';
import { USAGE_KEY_SEPARATOR } from '../../core/capabilities.js';
import { OperationError, UsageError } from '../../core/errors.js';
import { amountOf, readBill, stillSettling, type BillingDenial } from '../../core/kits/cli/billing.js';
import type { Config } from '../../../schemas/config.js';
import type { Plan } from '../../../schemas/plan.js';

export const COST_QUERY_API_VERSION = '2023-03-01';
/** The public cloud's Resource Manager; `{subscriptionId}` is az rest's own token for the CLI's current subscription. */
const ARM = 'https://management.azure.com';
/** Pages of one query followed at most (Azure answers up to 1000 rows a page). */
export const MAX_PAGES = 20;

export const CLOUD_C_BASIS = 'Azure Cost Management (query API, ActualCost, daily, through az rest); Azure bills afterwards, so there is no balance or runway; per hour = the average daily cost / 24';
export const CLOUD_C_FORECAST_NOTE = "Cost Management's forecast API is not used";

/** Dimension names of the query's grouping (Cost Management's own). */
const GROUPING: Record<Exclude<BilledGroup['by'], 'tag'>, string[]> = { service: ['ServiceName'], usage: ['ServiceName', 'Meter'] };

/** The subscription the query is scoped to: the configured one, else az's current subscription. */
function scope(config: Config): string {
  const id = config.infra?.cloud_c?.subscription_id;
  if (id === undefined) return '/subscriptions/{subscriptionId}';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new UsageError(`infra.cloud_c.subscription_id "${id}" is not a subscription ID (a GUID); Cost Management queries a subscription by its ID`, { hint: 'az account show --query id' });
  }
  return `/subscriptions/${id.toLowerCase()}`;
}

/** The query body: one ActualCost sum per day over [start, endExclusive), grouped as asked. */
export function costQueryBody(period: { start: string; endExclusive: string; group?: BilledGroup }): Record<string, unknown> {
  const last = new Date(Date.parse(`${period.endExclusive}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const g = period.group;
  if (g?.by === 'tag' && (!g.key || g.key.length > 512 || /[\u0000-\u001f<>%&\\?/]/.test(g.key))) {
    throw new UsageError(`"${g.key}" is not an Azure tag name (at most 512 characters, none of < > % & \\ ? /)`, { hint: 'assistant cost tags --provider cloud_c --key team' });
  }
  const grouping = !g ? [] : g.by === 'tag' ? [{ type: 'TagKey', name: g.key }] : GROUPING[g.by].map((name) => ({ type: 'Dimension', name }));
  return {
    type: 'ActualCost',
    timeframe: 'Custom',
    timePeriod: { from: `${period.start}T00:00:00+00:00`, to: `${last}T23:59:59+00:00` },
    dataset: { granularity: 'Daily', aggregation: { totalCost: { name: 'Cost', function: 'Sum' } }, ...(grouping.length ? { grouping } : {}) },
  };
}

const groupWords = (group: BilledGroup | undefined): string =>
  !group ? '' : group.by === 'service' ? ' by service' : group.by === 'usage' ? ' by service and meter' : ` by the value of tag ${group.key}`;

/** The read plan for one page: the first (the query URL) or a `nextLink` Azure gave. */
export function costQueryPlan(url: string, body: Record<string, unknown>, what: string): Plan {
  return {
    version: 1,
    provider: 'cloud_c',
    commands: [{ args: ['az', 'rest', '--method', 'post', '--url', url, '--body', JSON.stringify(body)], reason: `cost: ${what}` }],
  };
}

export function costQueryUrl(config: Config): string {
  return `${ARM}${scope(config)}/providers/Microsoft.CostManagement/query?api-version=${COST_QUERY_API_VERSION}`;
}

interface QueryPage {
  rows: unknown[][];
  columns: string[];
  nextLink?: string;
}

function pageOf(data: unknown): QueryPage {
  const p = (data as { properties?: { columns?: unknown; rows?: unknown; nextLink?: unknown } } | null)?.properties;
  const columns = Array.isArray(p?.columns) ? p.columns.map((c) => String((c as { name?: unknown })?.name ?? '')) : [];
  const rows = Array.isArray(p?.rows) ? p.rows.filter((r): r is unknown[] => Array.isArray(r)) : [];
  return { rows, columns, nextLink: typeof p?.nextLink === 'string' && p.nextLink ? p.nextLink : undefined };
}

/** A row's day: Cost Management writes UsageDate as a number (20261101) or, in some API versions, a date-time string. */
function dayOf(v: unknown): string | undefined {
  const s = String(v ?? '');
  const m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(s);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** The days of the query's pages, keyed by the group (service, `service / meter`, or the tag's value, '' untagged). */
export function parseCostQuery(pages: readonly QueryPage[], group: BilledGroup | undefined, now: number): { days: BilledDay[]; currency: string } {
  const byDay = new Map<string, BilledDay>();
  let currency: string | undefined;
  for (const page of pages) {
    const col = (...names: string[]) => page.columns.findIndex((c) => names.some((n) => c.toLowerCase() === n.toLowerCase()));
    const cost = col('Cost', 'PreTaxCost', 'totalCost', 'CostUSD');
    const date = col('UsageDate');
    const cur = col('Currency');
    const keys = !group ? [] : group.by === 'tag' ? [col('TagValue')] : GROUPING[group.by].map((n) => col(n));
    const tagKey = group?.by === 'tag' ? col('TagKey') : -1;
    for (const r of page.rows) {
      const d = dayOf(r[date]);
      if (!d || cost < 0) continue;
      const n = amountOf(r[cost]);
      if (cur >= 0 && typeof r[cur] === 'string' && r[cur]) currency ??= r[cur] as string;
      const day = byDay.get(d) ?? { date: d, cost: 0, estimated: stillSettling(d, now), services: {} };
      byDay.set(d, day);
      day.cost += n;
      if (group) {
        // A row of another tag key (Azure matches tag names case-insensitively) or none is untagged.
        const untagged = group.by === 'tag' && (tagKey < 0 || String(r[tagKey] ?? '').toLowerCase() !== group.key.toLowerCase());
        const key = untagged ? '' : group.by === 'tag' ? String(r[keys[0]!] ?? '') : keys.map((k) => (k >= 0 && r[k] ? String(r[k]) : '(unknown)')).join(USAGE_KEY_SEPARATOR);
        day.services[key] = (day.services[key] ?? 0) + n;
      }
    }
  }
  return { days: [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date)), currency: (currency ?? 'USD').toLowerCase() };
}

/** Azure's refusal texts (az rest prints the ARM error's JSON after `Forbidden(`). */
const DENIALS: readonly BillingDenial[] = [
  {
    test: /AuthorizationFailed[\s\S]*?Microsoft\.CostManagement\/query\/action'? over scope '([^']+)'/i,
    message: (m) => `the Azure account may not read costs: it lacks Microsoft.CostManagement/query/action on ${m[1]}`,
    hint: 'ask an owner for the Cost Management Reader role (or Reader) on the subscription: az role assignment create --assignee <you> --role "Cost Management Reader" --scope /subscriptions/<id>',
  },
  {
    test: /AuthorizationFailed[\s\S]*?Microsoft\.CostManagement\/query\/action/i,
    message: () => 'the Azure account may not read costs: it lacks Microsoft.CostManagement/query/action on the subscription',
    hint: 'ask an owner for the Cost Management Reader role (or Reader) on the subscription',
  },
  {
    test: /RBACAccessDenied|does not have access to the billing|BillingAccessDenied/i,
    message: () => 'the Azure account may not read costs of this scope (RBACAccessDenied)',
    hint: 'ask an owner for the Cost Management Reader role on the subscription (a subscription under an Enterprise Agreement also needs "AO view charges" enabled by the EA admin)',
  },
];

/** Azure's `nextLink` for the same query only: the same host and path, its own paging token. */
function samePageOf(url: string, next: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(next);
    return a.origin === b.origin && a.pathname.toLowerCase() === b.pathname.toLowerCase();
  } catch {
    return false;
  }
}

/** cloud_c's bill (its `cost` capability's `billed`): Cost Management's daily ActualCost. */
export const cloudCBilled: BilledCost = {
  basis: CLOUD_C_BASIS,
  forecastNote: CLOUD_C_FORECAST_NOTE,
  groups: ['usage', 'tag'],
  async days(read, period, ctx) {
    const body = costQueryBody(period);
    const first = costQueryUrl(ctx.config);
    const what = `daily ActualCost from ${period.start} to ${period.endExclusive} (exclusive)${groupWords(period.group)}`;
    const pages: QueryPage[] = [];
    let url: string | undefined = first;
    while (url) {
      if (pages.length === MAX_PAGES) throw new OperationError('cost_too_many_pages', `Cost Management answered more than ${MAX_PAGES} pages for ${what}`, { hint: 'ask for a shorter period (--start/--end)' });
      const [data] = await readBill(() => read(costQueryPlan(url!, body, pages.length ? `${what}, page ${pages.length + 1}` : what)), DENIALS);
      const page = pageOf(data);
      pages.push(page);
      if (page.nextLink && !samePageOf(first, page.nextLink)) {
        // Followed, it would send the query (and az's token) elsewhere: the bill would be incomplete, so say so.
        throw new OperationError('cost_unexpected_answer', 'Cost Management answered a next page at another address than the query\'s; it was not followed', { hint: 'run the query with az rest yourself to see the answer' });
      }
      url = page.nextLink;
    }
    return parseCostQuery(pages, period.group, Date.now());
  },
};
