/**
 * cloud_a (AWS) cost from Cost Explorer: `aws ce get-cost-and-usage` read steps (provider cloud_a, run
 * through the one executor like every plan), priced by AWS itself (UnblendedCost). AWS bills afterwards,
 * so there is no balance and no runway. Forecasts extend the month's average daily cost so far:
 * `get-cost-forecast` is not used (moto, the test stand-in, does not implement it, and a linear
 * projection is what this command says it is).
 */
import type { Plan } from '../../../schemas/plan.js';
import { dayOf, type TrendDay } from './trend.js';

export const CE_METRIC = 'UnblendedCost';
const DAY = 86_400_000;

export const CLOUD_A_BASIS = `AWS Cost Explorer (get-cost-and-usage, ${CE_METRIC}, daily); AWS bills afterwards, so there is no balance or runway; per hour = the average daily cost / 24`;
export const CLOUD_A_FORECAST_METHOD = "linear: the month's average daily cost so far × the days left (Cost Explorer's get-cost-forecast is not used)";

/** The read plan: daily cost for [start, endExclusive), by service when asked. */
export function ceUsagePlan(start: string, endExclusive: string, byService: boolean): Plan {
  const args = ['aws', 'ce', 'get-cost-and-usage', '--time-period', `Start=${start},End=${endExclusive}`, '--granularity', 'DAILY', '--metrics', CE_METRIC];
  if (byService) args.push('--group-by', 'Type=DIMENSION,Key=SERVICE');
  return { version: 1, provider: 'cloud_a', commands: [{ args, reason: `cost: daily ${CE_METRIC} from ${start} to ${endExclusive} (exclusive)${byService ? ' by service' : ''}` }] };
}

export interface CeDay {
  date: string;
  cost: number;
  estimated: boolean;
  services: Record<string, number>;
}

const amount = (m: unknown): { n: number; unit?: string } => {
  const o = m as { Amount?: unknown; Unit?: unknown } | undefined;
  const n = Number(o?.Amount);
  return { n: Number.isFinite(n) ? n : 0, unit: typeof o?.Unit === 'string' ? o.Unit : undefined };
};

/** The days of a get-cost-and-usage answer (a grouped answer's total is the sum of its groups). */
export function parseCeUsage(data: unknown): { days: CeDay[]; currency: string } {
  const rows = Array.isArray((data as { ResultsByTime?: unknown })?.ResultsByTime) ? ((data as { ResultsByTime: Record<string, any>[] }).ResultsByTime) : [];
  let currency: string | undefined;
  const days: CeDay[] = [];
  for (const r of rows) {
    const date = typeof r?.TimePeriod?.Start === 'string' ? r.TimePeriod.Start : undefined;
    if (!date) continue;
    const services: Record<string, number> = {};
    let cost = 0;
    const groups = Array.isArray(r.Groups) ? r.Groups : [];
    if (groups.length) {
      for (const g of groups) {
        const a = amount(g?.Metrics?.[CE_METRIC]);
        const key = Array.isArray(g?.Keys) && typeof g.Keys[0] === 'string' ? g.Keys[0] : '(unknown)';
        services[key] = (services[key] ?? 0) + a.n;
        cost += a.n;
        currency ??= a.unit;
      }
    } else {
      const a = amount(r.Total?.[CE_METRIC]);
      cost = a.n;
      currency ??= a.unit;
    }
    days.push({ date, cost, estimated: r.Estimated === true, services });
  }
  return { days: days.sort((a, b) => a.date.localeCompare(b.date)), currency: (currency ?? 'USD').toLowerCase() };
}

/** The first of this month and tomorrow (CE's end is exclusive): the month to date. */
export function monthToDate(now: number): { start: string; endExclusive: string; monthEnd: number } {
  const d = new Date(now);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return { start: dayOf(start), endExclusive: dayOf(Math.floor(now / DAY) * DAY + DAY), monthEnd: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

export function cloudASummary(days: readonly CeDay[], currency: string, now: number) {
  const mtd = days.reduce((s, d) => s + d.cost, 0);
  const daily = days.length ? mtd / days.length : 0;
  const byService = new Map<string, number>();
  for (const d of days) for (const [k, v] of Object.entries(d.services)) byService.set(k, (byService.get(k) ?? 0) + v);
  const resources = [...byService.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([service, cost]) => ({ kind: 'service', id: service, name: service, hourly_cost: days.length ? cost / days.length / 24 : 0, cost_so_far: cost }));
  const { start } = monthToDate(now);
  return {
    provider: 'cloud_a' as const,
    currency,
    as_of: new Date(now).toISOString(),
    based_on: CLOUD_A_BASIS,
    period: { start, end: days.length ? days[days.length - 1]!.date : start, days: days.length },
    month_to_date: mtd,
    hourly_cost: daily / 24,
    daily_cost: daily,
    monthly_forecast: (daily / 24) * 720,
    balance: null,
    runway_hours: null,
    runway_until: null,
    resources,
    unpriced: [] as string[],
  };
}

export function cloudAForecast(days: readonly CeDay[], currency: string, now: number) {
  const s = cloudASummary(days, currency, now);
  const { monthEnd } = monthToDate(now);
  const last = days.length ? Date.parse(`${days[days.length - 1]!.date}T00:00:00Z`) : Date.parse(`${s.period.start}T00:00:00Z`) - DAY;
  const remaining = Math.max(0, Math.round((monthEnd - (last + DAY)) / DAY));
  const toMonthEnd = s.daily_cost * remaining;
  return {
    provider: 'cloud_a' as const,
    currency,
    as_of: s.as_of,
    based_on: CLOUD_A_BASIS,
    method: CLOUD_A_FORECAST_METHOD,
    month_to_date: s.month_to_date,
    days_counted: days.length,
    daily_average: s.daily_cost,
    hourly_cost: s.hourly_cost,
    days_remaining: remaining,
    month_end: new Date(monthEnd).toISOString(),
    cost_to_month_end: toMonthEnd,
    month_end_total: s.month_to_date + toMonthEnd,
    balance: null,
    runway_hours: null,
    runway_until: null,
  };
}

/** CE's days as trend days: billed by AWS (or estimated, for days AWS has not closed yet). */
export function cloudATrendDays(days: readonly CeDay[]): TrendDay[] {
  return days.map((d) => ({
    date: d.date,
    cost: d.cost,
    hours: 24,
    average_hourly: d.cost / 24,
    basis: d.estimated ? 'estimated' : 'billed',
    measured_hours: 24,
    snapshots: 0,
    balance_end: null,
  }));
}
