/**
 * cloud_a (AWS) cost from Cost Explorer: `aws ce get-cost-and-usage` read steps (provider cloud_a, run
 * through the one executor like every plan), priced by AWS itself (UnblendedCost). AWS bills afterwards,
 * so there is no balance and no runway. Forecasts extend the month's average daily cost so far:
 * `get-cost-forecast` is not used (moto, the test stand-in, does not implement it, and a linear
 * projection is what this command says it is).
 */
import { USAGE_KEY_SEPARATOR, type BilledCost, type BilledDay, type BilledGroup } from '../../core/capabilities.js';
import type { Plan } from '../../../schemas/plan.js';
import { UsageError } from '../../core/errors.js';

export const CE_METRIC = 'UnblendedCost';

export const CLOUD_A_BASIS = `AWS Cost Explorer (get-cost-and-usage, ${CE_METRIC}, daily); AWS bills afterwards, so there is no balance or runway; per hour = the average daily cost / 24`;
export const CLOUD_A_FORECAST_NOTE = "Cost Explorer's get-cost-forecast is not used";

/** Cost Explorer's --group-by for a grouping (two dimensions at most, or one tag key). */
function groupBy(group: BilledGroup | undefined): string[] {
  if (!group) return [];
  if (group.by === 'service') return ['--group-by', 'Type=DIMENSION,Key=SERVICE'];
  if (group.by === 'usage') return ['--group-by', 'Type=DIMENSION,Key=SERVICE', 'Type=DIMENSION,Key=USAGE_TYPE'];
  // The key goes into the CLI's shorthand (`Type=TAG,Key=…`): a comma or `=` would add fields of its own.
  if (!TAG_KEY.test(group.key)) throw new UsageError(`"${group.key}" is not an AWS tag key Cost Explorer can group by (letters, digits and + - . _ : / @, at most 128)`, { hint: 'assistant cost tags --provider cloud_a --key team' });
  return ['--group-by', `Type=TAG,Key=${group.key}`];
}

const TAG_KEY = /^[A-Za-z0-9+\-._:/@]{1,128}$/;

const groupWords = (group: BilledGroup | undefined): string =>
  !group ? '' : group.by === 'service' ? ' by service' : group.by === 'usage' ? ' by service and usage type' : ` by the value of tag ${group.key}`;

/** The read plan: daily cost for [start, endExclusive), grouped when asked. */
export function ceUsagePlan(start: string, endExclusive: string, group?: BilledGroup): Plan {
  const args = ['aws', 'ce', 'get-cost-and-usage', '--time-period', `Start=${start},End=${endExclusive}`, '--granularity', 'DAILY', '--metrics', CE_METRIC, ...groupBy(group)];
  return { version: 1, provider: 'cloud_a', commands: [{ args, reason: `cost: daily ${CE_METRIC} from ${start} to ${endExclusive} (exclusive)${groupWords(group)}` }] };
}

/**
 * A group's key as the contract has it. Cost Explorer names a tag group `key$value` (`key$` for
 * resources without the tag): the value alone, '' for untagged. Two dimensions are joined.
 */
function groupKey(keys: unknown, group: BilledGroup | undefined): string {
  const ks = Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
  if (group?.by === 'tag') {
    const k = ks[0] ?? '';
    const at = k.indexOf('$');
    return at < 0 ? k : k.slice(at + 1);
  }
  return ks.length ? ks.join(USAGE_KEY_SEPARATOR) : '(unknown)';
}

/** A day of Cost Explorer's answer: the contract's BilledDay. */
export type CeDay = BilledDay;

const amount = (m: unknown): { n: number; unit?: string } => {
  const o = m as { Amount?: unknown; Unit?: unknown } | undefined;
  const n = Number(o?.Amount);
  return { n: Number.isFinite(n) ? n : 0, unit: typeof o?.Unit === 'string' ? o.Unit : undefined };
};

/** The days of a get-cost-and-usage answer (a grouped answer's total is the sum of its groups), keyed by `groupKey`. */
export function parseCeUsage(data: unknown, group?: BilledGroup): { days: CeDay[]; currency: string } {
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
        const key = groupKey(g?.Keys, group);
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

/** cloud_a's bill (its `cost` capability's `billed`, engine/providers/cloud_a/cost-capability.ts): Cost Explorer's daily cost. */
export const cloudABilled: BilledCost = {
  basis: CLOUD_A_BASIS,
  forecastNote: CLOUD_A_FORECAST_NOTE,
  groups: ['usage', 'tag'],
  async days(read, period) {
    const [data] = await read(ceUsagePlan(period.start, period.endExclusive, period.group));
    return parseCeUsage(data, period.group);
  },
};
