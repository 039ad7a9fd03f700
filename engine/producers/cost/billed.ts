/**
 * The `cost` commands' figures for a provider that bills afterwards (its `cost` capability's `billed`,
 * engine/core/capabilities.ts): the month to date by service, a linear month-end forecast, the trend as billed.
 * No balance, so no runway.
 */
import { USAGE_KEY_SEPARATOR, type BilledDay } from '../../core/capabilities.js';
import { ANOMALY_DAYS, BURN_JUMP_FACTOR, type Anomaly } from './anomalies.js';
import { dayOf, type TrendDay } from './trend.js';

const DAY = 86_400_000;

/** How the forecast projects (the provider may add a note, e.g. which of its own forecasts is not used). */
export const BILLED_FORECAST_METHOD = "linear: the month's average daily cost so far × the days left";

/** The first of this month and tomorrow (the end is exclusive): the month to date. */
export function monthToDate(now: number): { start: string; endExclusive: string; monthEnd: number } {
  const d = new Date(now);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return { start: dayOf(start), endExclusive: dayOf(Math.floor(now / DAY) * DAY + DAY), monthEnd: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The month to date, by service: what `cost summary` shows for a billed provider. */
export function billedSummary(provider: string, basis: string, days: readonly BilledDay[], currency: string, now: number) {
  const mtd = days.reduce((s, d) => s + d.cost, 0);
  const daily = days.length ? mtd / days.length : 0;
  const byService = new Map<string, number>();
  for (const d of days) for (const [k, v] of Object.entries(d.services)) byService.set(k, (byService.get(k) ?? 0) + v);
  const resources = [...byService.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([service, cost]) => ({ kind: 'service', id: service, name: service, hourly_cost: days.length ? cost / days.length / 24 : 0, cost_so_far: cost }));
  const { start } = monthToDate(now);
  return {
    provider,
    currency,
    as_of: new Date(now).toISOString(),
    based_on: basis,
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

/** The month end at the month's average daily cost so far. */
export function billedForecast(provider: string, basis: string, days: readonly BilledDay[], currency: string, now: number, note?: string) {
  const s = billedSummary(provider, basis, days, currency, now);
  const { monthEnd } = monthToDate(now);
  const last = days.length ? Date.parse(`${days[days.length - 1]!.date}T00:00:00Z`) : Date.parse(`${s.period.start}T00:00:00Z`) - DAY;
  const remaining = Math.max(0, Math.round((monthEnd - (last + DAY)) / DAY));
  const toMonthEnd = s.daily_cost * remaining;
  return {
    provider,
    currency,
    as_of: s.as_of,
    based_on: basis,
    method: note ? `${BILLED_FORECAST_METHOD} (${note})` : BILLED_FORECAST_METHOD,
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

/** Billed days as trend days: billed (or estimated, for days the provider has not closed yet). */
export function billedTrendDays(days: readonly BilledDay[]): TrendDay[] {
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

/** What a group cost over the days read: the sum, and per hour on average (days × 24 h). */
function groupTotals(days: readonly BilledDay[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const d of days) for (const [k, v] of Object.entries(d.services)) by.set(k, (by.get(k) ?? 0) + v);
  return by;
}

export interface BilledDetailRow {
  service: string;
  usage_type: string;
  cost_so_far: number;
  /** The month's average per hour (cost so far / days read / 24). */
  hourly_cost: number;
}

/** The month to date by service and usage type (`cost detail|export` for a billed provider), sorted by cost or name. */
export function billedDetail(provider: string, basis: string, days: readonly BilledDay[], currency: string, now: number, sortBy: 'cost' | 'name') {
  const s = billedSummary(provider, basis, [], currency, now);
  const rows: BilledDetailRow[] = [...groupTotals(days).entries()].map(([key, cost]) => {
    const at = key.lastIndexOf(USAGE_KEY_SEPARATOR);
    return { service: at < 0 ? key : key.slice(0, at), usage_type: at < 0 ? '' : key.slice(at + USAGE_KEY_SEPARATOR.length), cost_so_far: cost, hourly_cost: days.length ? cost / days.length / 24 : 0 };
  });
  rows.sort(sortBy === 'name' ? (a, b) => a.service.localeCompare(b.service) || a.usage_type.localeCompare(b.usage_type) : (a, b) => b.cost_so_far - a.cost_so_far || a.service.localeCompare(b.service) || a.usage_type.localeCompare(b.usage_type));
  const mtd = days.reduce((t, d) => t + d.cost, 0);
  return {
    provider,
    currency,
    as_of: s.as_of,
    based_on: basis,
    sort_by: sortBy,
    period: { start: s.period.start, end: days.length ? days[days.length - 1]!.date : s.period.start, days: days.length },
    month_to_date: mtd,
    hourly_cost: days.length ? mtd / days.length / 24 : 0,
    rows,
  };
}

/** The month to date by the value of one tag ('' from the provider: untagged, shown last as null). */
export function billedTags(provider: string, basis: string, key: string, days: readonly BilledDay[], currency: string, now: number) {
  const perHour = (cost: number) => (days.length ? cost / days.length / 24 : 0);
  const groups = [...groupTotals(days).entries()]
    .map(([value, cost]) => ({ value: value === '' ? null : value, month_to_date: cost, hourly_cost: perHour(cost), monthly_forecast: perHour(cost) * 720 }))
    .sort((a, b) => (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) || b.month_to_date - a.month_to_date || String(a.value).localeCompare(String(b.value)));
  const mtd = days.reduce((t, d) => t + d.cost, 0);
  const { start } = monthToDate(now);
  return {
    provider,
    currency,
    key,
    as_of: new Date(now).toISOString(),
    based_on: `${basis}; grouped by the tag's value as the provider records it (untagged: cost without the tag); monthly = the average per hour × 720`,
    period: { start, end: days.length ? days[days.length - 1]!.date : start, days: days.length },
    month_to_date: mtd,
    hourly_cost: perHour(mtd),
    groups,
  };
}

/** A billed jump smaller than this (in the bill's currency) is noise, not an anomaly. */
export const BILLED_MIN_JUMP = 1;

/**
 * `cost anomalies` from a bill by service per day: a day whose total, or a service whose cost, is more
 * than BURN_JUMP_FACTOR × the day before and higher by at least BILLED_MIN_JUMP. A day the provider
 * has not closed yet is said to be estimated.
 */
export function billedAnomalies(days: readonly BilledDay[], currency: string): Anomaly[] {
  const cur = currency.toUpperCase();
  const out: Anomaly[] = [];
  const recent = days.slice(-ANOMALY_DAYS);
  const jump = (kind: 'burn_jump' | 'service_jump', subject: string, what: string, prev: BilledDay, d: BilledDay, before: number, now: number) => {
    if (before <= 0 || now <= BURN_JUMP_FACTOR * before || now - before < BILLED_MIN_JUMP) return;
    const factor = now / before;
    out.push({
      kind,
      subject,
      reason: `${what} rose ${factor.toFixed(1)}× from ${before.toFixed(2)} ${cur} on ${prev.date} to ${now.toFixed(2)} ${cur} on ${d.date}${d.estimated ? ' (estimated: the day is not closed yet)' : ''} (more than ${BURN_JUMP_FACTOR}× and at least ${BILLED_MIN_JUMP} ${cur} more)`,
      figures: { date: d.date, previous_date: prev.date, previous_cost: before, cost: now, factor, threshold_factor: BURN_JUMP_FACTOR, estimated: d.estimated ? 'yes' : 'no' },
    });
  };
  for (let i = 1; i < recent.length; i++) {
    const prev = recent[i - 1]!;
    const d = recent[i]!;
    jump('burn_jump', `day ${d.date}`, "the day's bill", prev, d, prev.cost, d.cost);
    for (const [service, cost] of Object.entries(d.services).sort((a, b) => a[0].localeCompare(b[0]))) jump('service_jump', `service ${service}`, `${service}'s daily cost`, prev, d, prev.services[service] ?? 0, cost);
  }
  return out;
}
