/**
 * What every provider's live figures (engine/core/capabilities.ts CostSummary) give beside the summary:
 * the resources in the order `cost detail` sorts them, and the month-end forecast with the runway.
 */
import type { CostResource, CostSummary } from '../../core/capabilities.js';

export type CostSort = 'cost' | 'age' | 'name';

/** Resources ordered for `cost detail`: most expensive, oldest, or by name first. */
export function sortResources<R extends CostResource>(resources: readonly R[], by: CostSort): R[] {
  const rs = [...resources];
  if (by === 'cost') return rs.sort((a, b) => (b.hourly_cost ?? -1) - (a.hourly_cost ?? -1) || a.name.localeCompare(b.name));
  if (by === 'age') return rs.sort((a, b) => (b.hours_running ?? -1) - (a.hours_running ?? -1) || a.name.localeCompare(b.name));
  return rs.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export interface CostForecast {
  provider: string;
  currency: string;
  as_of: string;
  based_on: string;
  hourly_cost: number;
  /** Hours from now to the end of the month (UTC). */
  hours_to_month_end: number;
  month_end: string;
  /** What the current burn costs between now and the end of the month. */
  cost_to_month_end: number;
  /** The balance left at month end at the current burn (negative: it runs out before). */
  balance_at_month_end: number | null;
  balance: number | null;
  runway_hours: number | null;
  runway_until: string | null;
  runs_out_before_month_end: boolean;
}

export function costForecast(summary: CostSummary, now: number): CostForecast {
  const d = new Date(now);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const hours = (monthEnd - now) / 3_600_000;
  const toMonthEnd = summary.hourly_cost * hours;
  return {
    provider: summary.provider,
    currency: summary.currency,
    as_of: summary.as_of,
    based_on: summary.based_on,
    hourly_cost: summary.hourly_cost,
    hours_to_month_end: hours,
    month_end: new Date(monthEnd).toISOString(),
    cost_to_month_end: toMonthEnd,
    balance_at_month_end: summary.balance === null ? null : summary.balance - toMonthEnd,
    balance: summary.balance,
    runway_hours: summary.runway_hours,
    runway_until: summary.runway_until,
    runs_out_before_month_end: summary.runway_hours !== null && summary.runway_hours < hours,
  };
}

