/** The check's table (one row per instance with auto-stop) and its one-line summary. */
import type { DrawTable } from '../../core/render/records.js';
import type { AutostopRow } from './decide.js';
import { columnsOf } from '../../core/render/columns.js';

const COLUMNS = columnsOf([['ID', 'id', 10], ['HOSTNAME', 'hostname', 9], ['IDLE MIN', 'idle', 8], ['LAST ACTIVITY', 'last', 6], ['DECISION', 'decision', 9], ['DETAIL', 'detail', 2]]);

export function renderCheckTable(rows: readonly AutostopRow[], draw: DrawTable): string {
  if (rows.length === 0) return 'No instances with auto-stop (their startup scripts record none).\n';
  const shown = rows.map((r) => ({
    ...r,
    idle: `${r.idle_minutes ?? '-'} / ${r.policy?.idle_minutes ?? '-'}`,
    last: r.last_activity ? `${r.last_activity.slice(0, 16).replace('T', ' ')}Z` : undefined,
  }));
  return draw(shown, COLUMNS, { keep: 'id' });
}

export function summaryLine(rows: readonly AutostopRow[], dryRun: boolean): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.decision, (counts.get(r.decision) ?? 0) + 1);
  const parts = [...counts.entries()].map(([d, n]) => `${n} ${d}`);
  return `auto-stop${dryRun ? ' (dry run)' : ''}: ${rows.length} instance${rows.length === 1 ? '' : 's'} checked${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
