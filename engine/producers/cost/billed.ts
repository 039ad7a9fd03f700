/**
 * The `cost` commands' figures for a provider that bills afterwards (its `cost` capability's `billed`,
 * engine/core/capabilities.ts): the month to date by service, a linear month-end forecast, the trend as billed.
 * No balance, so no runway.
 */
import type { BilledDay } from '../../core/capabilities.js';
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
