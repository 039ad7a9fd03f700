/**
 * `cost trend`: what each day (UTC) cost, from the recorded snapshots where they cover the day and
 * reconstructed from the resources' creation times and today's prices where they do not.
 *
 * Measured: a snapshot's burn is taken to hold until the next snapshot (the last one, recorded by the
 * trend command itself, is now), so a covered stretch of a day costs Σ burn × hours. Reconstructed:
 * before the first snapshot, every resource that exists now is counted from its creation at today's
 * price; resources deleted since are not known, so a reconstructed day can only be too low.
 */
import type { CostResource } from '../../core/capabilities.js';
import type { TimedSnapshot } from './snapshots.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A trend longer than this is almost certainly a typo in a date. */
export const MAX_TREND_DAYS = 366;

/** gpucloud: measured | reconstructed | mixed; cloud_a (Cost Explorer): billed | estimated. */
export type DayBasis = 'measured' | 'reconstructed' | 'mixed' | 'billed' | 'estimated';

export interface TrendDay {
  date: string;
  cost: number;
  /** Hours of the day counted (24, or up to now for today). */
  hours: number;
  /** cost / hours: comparable between a whole day and today's part. */
  average_hourly: number | null;
  basis: DayBasis;
  /** Hours of the day covered by snapshots (the rest reconstructed). */
  measured_hours: number;
  /** Snapshots recorded during the day. */
  snapshots: number;
  /** The balance of the day's last snapshot, when there was one. */
  balance_end: number | null;
}

export interface CostTrend {
  provider: string;
  currency: string;
  start: string;
  end: string;
  as_of: string;
  based_on: string;
  total: number;
  days: TrendDay[];
  notes: string[];
}

export const TREND_BASIS =
  'measured: recorded snapshots, each snapshot\'s burn held until the next one; reconstructed: the resources that exist now, from their creation time at today\'s prices (deleted resources are not known, so reconstructed days can be too low); mixed: both within one day';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a YYYY-MM-DD date, or undefined when it is not a real calendar date. */
export function parseDay(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === text ? ms : undefined;
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/** Cost of [from, to) reconstructed from the resources that exist now (hours since creation × hourly price). */
function reconstructed(resources: readonly CostResource[], from: number, to: number, now: number): number {
  let cost = 0;
  for (const r of resources) {
    const created = r.created_at ? Date.parse(r.created_at) : NaN;
    if (!Number.isFinite(created) || r.hourly_cost === null) continue;
    cost += (r.hourly_cost * overlap(created, now, from, to)) / HOUR;
  }
  return cost;
}

export interface TrendInput {
  provider: string;
  currency: string;
  snapshots: readonly TimedSnapshot[];
  resources: readonly CostResource[];
  /** Midnight UTC of the first and last day. */
  start: number;
  end: number;
  now: number;
}

export function costTrend(input: TrendInput): CostTrend {
  const { resources, now } = input;
  const notes: string[] = [];
  // A snapshot dated after now (a clock that was wrong, an edit by hand) describes nothing that happened.
  const snapshots = input.snapshots.filter((s) => s.atMs <= now);
  if (snapshots.length < input.snapshots.length) notes.push(`${input.snapshots.length - snapshots.length} snapshot(s) dated in the future are ignored`);
  const lastDay = Math.min(input.end, Math.floor(now / DAY) * DAY);
  if (lastDay < input.end) notes.push(`days after today (${dayOf(now)}) are left out: they have not happened yet`);
  const first = snapshots[0]?.atMs;
  const days: TrendDay[] = [];
  for (let d0 = input.start; d0 <= lastDay; d0 += DAY) {
    const d1 = Math.min(d0 + DAY, now);
    let measured = 0;
    let measuredMs = 0;
    snapshots.forEach((s, i) => {
      const until = snapshots[i + 1]?.atMs ?? now;
      const ms = overlap(s.atMs, until, d0, d1);
      measured += (s.hourly_cost * ms) / HOUR;
      measuredMs += ms;
    });
    // Snapshots are contiguous from the first to now: what is not covered lies before the first one.
    const gapEnd = first === undefined ? d1 : Math.min(d1, first);
    const rebuilt = gapEnd > d0 ? reconstructed(resources, d0, gapEnd, now) : 0;
    const rebuiltMs = Math.max(0, gapEnd - d0);
    const inDay = snapshots.filter((s) => s.atMs >= d0 && s.atMs < d0 + DAY);
    const hours = (d1 - d0) / HOUR;
    const cost = measured + rebuilt;
    days.push({
      date: dayOf(d0),
      cost,
      hours,
      average_hourly: hours > 0 ? cost / hours : null,
      basis: rebuiltMs === 0 ? 'measured' : measuredMs === 0 ? 'reconstructed' : 'mixed',
      measured_hours: measuredMs / HOUR,
      snapshots: inDay.length,
      balance_end: inDay.length ? inDay[inDay.length - 1]!.balance : null,
    });
  }
  if (days.some((d) => d.basis !== 'measured')) notes.push('reconstructed figures count only the resources that exist now, at today\'s prices');
  return {
    provider: input.provider,
    currency: input.currency,
    start: dayOf(input.start),
    end: dayOf(input.end),
    as_of: new Date(now).toISOString(),
    based_on: TREND_BASIS,
    total: days.reduce((s, d) => s + d.cost, 0),
    days,
    notes,
  };
}
