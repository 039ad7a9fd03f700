/**
 * `cost trend` on a terminal (issue 31 §4): the daily spend and the runway as line charts, then the
 * totals. The runway of a day is the balance at its end over that day's burn (balance ÷ (cost per hour
 * × 24)), so it is known for days with a snapshot; today's comes from the command's own reading.
 */
import type { Colors } from '../../core/render/color.js';
import type { CostTrend } from '../cost/trend.js';
import { lineChart } from './line.js';
import { formatAmount } from '../../core/render/money.js';

export interface RunwayNow {
  balance: number | null;
  runway_hours: number | null;
  runway_until: string | null;
}

/** Days of runway at the end of each day, or null where the day has no balance or burns nothing. */
export function runwayDays(t: CostTrend): (number | null)[] {
  return t.days.map((d) => (d.balance_end !== null && d.average_hourly ? d.balance_end / (d.average_hourly * 24) : null));
}

/** `color`: the palette of the output the chart goes to (its own codes survive the sink), or false for none. */
export function renderTrendChart(t: CostTrend, opts: { columns: number; color: Colors | false; now?: RunwayNow }): string {
  const cur = t.currency.toUpperCase();
  const width = Math.max(20, Math.min(opts.columns - 14, 100));
  const day = (date: string) => date.slice(5); // MM-DD
  const spend = lineChart(
    t.days.map((d) => ({ label: day(d.date), value: d.cost })),
    { title: `Daily spend (${cur}), ${t.start} to ${t.end}`, width, color: opts.color ? opts.color.green : undefined },
  );
  const runway = lineChart(
    runwayDays(t).map((v, i) => ({ label: day(t.days[i]!.date), value: v })),
    { title: 'Runway (days): the balance at the end of each day over that day\'s burn', width, digits: 1, color: opts.color ? opts.color.yellow : undefined },
  );
  const lines = [spend, runway, `Total:    ${formatAmount(t.total)} ${cur} (${t.start} to ${t.end})`];
  const now = opts.now;
  if (now && now.runway_hours !== null) lines.push(`Runway:   ${(now.runway_hours / 24).toFixed(1)} d now, until ${now.runway_until?.slice(0, 16).replace('T', ' ')} UTC (balance ${now.balance === null || now.balance === undefined ? '-' : formatAmount(now.balance)} ${cur})`);
  lines.push('Table:    -o table; figures: -o json');
  return lines.join('\n') + '\n';
}
