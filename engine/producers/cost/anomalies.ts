/**
 * `cost anomalies`: resources and days whose cost departs from the usual, each with its reason and the
 * figures behind it. Three rules, with thresholds fixed here (and in the README) so a finding can be
 * checked by hand:
 * - a GPU instance that has been running for more than LONG_RUNNING_HOURS since it was created (the
 *   API records no use, only that it runs: the forgotten machine is the common surprise);
 * - an offline instance: shutdown keeps billing (only delete stops it);
 * - a day whose average burn is more than BURN_JUMP_FACTOR × the previous day's, both days measured
 *   from snapshots (reconstructed days miss deleted resources, so a jump from one would be an artefact);
 * - a resource whose hourly cost is more than OUTLIER_FACTOR × the median of the others of its kind
 *   (only when there are at least OUTLIER_MIN_OTHERS others to compare with).
 */
import type { CostResource } from '../../core/capabilities.js';
import type { TrendDay } from './trend.js';
import { formatAmount, formatRate } from '../../core/render/money.js';

export const LONG_RUNNING_HOURS = 24;
export const BURN_JUMP_FACTOR = 2;
export const OUTLIER_FACTOR = 5;
export const OUTLIER_MIN_OTHERS = 2;
/** Days of history the burn-jump rule looks at (today included). */
export const ANOMALY_DAYS = 14;

/** service_jump: a billed provider's service (engine/producers/cost/billed.ts billedAnomalies). */
export type AnomalyKind = 'long_running_gpu' | 'offline_billing' | 'burn_jump' | 'cost_outlier' | 'service_jump';

export interface Anomaly {
  kind: AnomalyKind;
  /** `instance demo-a100`, `day 2026-11-20`. */
  subject: string;
  reason: string;
  figures: Record<string, number | string | null>;
}

const money = (n: number) => formatAmount(n);
const rate = (n: number) => formatRate(n);
const days = (h: number) => (h / 24).toFixed(1);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function findAnomalies(resources: readonly CostResource[], trendDays: readonly TrendDay[], currency: string): Anomaly[] {
  const cur = currency.toUpperCase();
  const out: Anomaly[] = [];
  for (const r of resources) {
    if (r.kind !== 'instance' || r.hourly_cost === null) continue;
    const hours = r.hours_running ?? 0;
    if (r.status === 'running' && (r.gpus ?? 0) > 0 && hours > LONG_RUNNING_HOURS) {
      out.push({
        kind: 'long_running_gpu',
        subject: `instance ${r.name}`,
        reason: `GPU instance running for ${days(hours)} days since it was created (over ${LONG_RUNNING_HOURS} h), ${rate(r.hourly_cost)} ${cur}/hour, about ${money(r.cost_so_far ?? 0)} ${cur} so far; the API does not show whether it is in use: delete it if it is idle`,
        figures: { id: r.id, type: r.type, hours_running: hours, hourly_cost: r.hourly_cost, cost_so_far: r.cost_so_far ?? null, threshold_hours: LONG_RUNNING_HOURS },
      });
    }
    if (r.status === 'offline') {
      out.push({
        kind: 'offline_billing',
        subject: `instance ${r.name}`,
        reason: `shut down but still billed at ${rate(r.hourly_cost)} ${cur}/hour (${money(r.hourly_cost * 24)} ${cur}/day): shutdown keeps billing, only delete stops it`,
        figures: { id: r.id, type: r.type, hourly_cost: r.hourly_cost, daily_cost: r.hourly_cost * 24 },
      });
    }
  }
  const recent = trendDays.slice(-ANOMALY_DAYS);
  for (let i = 1; i < recent.length; i++) {
    const prev = recent[i - 1]!;
    const d = recent[i]!;
    if (prev.basis !== 'measured' || d.basis !== 'measured' || prev.average_hourly === null || d.average_hourly === null || prev.average_hourly <= 0) continue;
    const factor = d.average_hourly / prev.average_hourly;
    if (factor <= BURN_JUMP_FACTOR) continue;
    out.push({
      kind: 'burn_jump',
      subject: `day ${d.date}`,
      reason: `the average burn rose ${factor.toFixed(1)}× from ${rate(prev.average_hourly)} ${cur}/hour on ${prev.date} to ${rate(d.average_hourly)} ${cur}/hour (more than ${BURN_JUMP_FACTOR}×)`,
      figures: { date: d.date, previous_date: prev.date, previous_hourly: prev.average_hourly, hourly: d.average_hourly, factor, threshold_factor: BURN_JUMP_FACTOR },
    });
  }
  const kinds = [...new Set(resources.map((r) => r.kind))];
  for (const kind of kinds) {
    const priced = resources.filter((r): r is CostResource & { hourly_cost: number } => r.kind === kind && r.hourly_cost !== null);
    if (priced.length < OUTLIER_MIN_OTHERS + 1) continue;
    for (const r of priced) {
      const others = median(priced.filter((o) => o !== r).map((o) => o.hourly_cost));
      if (others <= 0 || r.hourly_cost <= OUTLIER_FACTOR * others) continue;
      const factor = r.hourly_cost / others;
      out.push({
        kind: 'cost_outlier',
        subject: `${kind} ${r.name}`,
        reason: `costs ${rate(r.hourly_cost)} ${cur}/hour, ${factor.toFixed(1)}× the median of the other ${priced.length - 1} ${kind}s (${rate(others)} ${cur}/hour; more than ${OUTLIER_FACTOR}×)`,
        figures: { id: r.id, type: r.type, hourly_cost: r.hourly_cost, median_of_others: others, factor, threshold_factor: OUTLIER_FACTOR },
      });
    }
  }
  return out;
}
