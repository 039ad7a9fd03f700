/** The check's table (one row per instance with auto-stop) and its one-line summary. */
import type { Column } from '../../providers/gpucloud/catalogue.js';
import type { DrawTable } from '../../core/render/records.js';
import type { AutostopRow } from './decide.js';

const COLUMNS: Column[] = [
  { header: 'ID', path: 'id', priority: 10 },
  { header: 'HOSTNAME', path: 'hostname', priority: 9 },
  { header: 'IDLE MIN', path: 'idle', priority: 8 },
  { header: 'LAST ACTIVITY', path: 'last', priority: 6 },
  { header: 'DECISION', path: 'decision', priority: 9 },
  { header: 'DETAIL', path: 'detail', priority: 2 },
];

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
