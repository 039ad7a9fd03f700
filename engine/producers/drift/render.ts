/** A drift report as a table and a summary line (`plan diff`, the MCP drift tool's text). */
import type { DrawTable } from '../../core/render/records.js';
import { DRIFT_EXIT_CODE, type DriftReport } from '../../core/drift-types.js';
import { columnsOf } from '../../core/render/columns.js';

export function driftSummary(r: DriftReport): string {
  if (!r.drift) return `in sync: ${r.counts.in_sync} resource(s) as the plan leaves them`;
  const parts = (['different', 'missing', 'unowned'] as const).filter((s) => r.counts[s]).map((s) => `${r.counts[s]} ${s}`);
  return `drift: ${parts.join(', ')}; ${r.counts.in_sync} in sync (exit ${DRIFT_EXIT_CODE})`;
}

export function renderDrift(r: DriftReport, draw: DrawTable): string {
  const rows = r.resources.map((e) => ({
    state: e.state,
    kind: e.kind,
    name: e.name ?? '-',
    id: e.id ?? '-',
    step: e.step === undefined ? '-' : String(e.step),
    detail: [...e.differences.map((d) => `${d.field}: plan ${d.plan}, live ${d.live}`), ...(e.note ? [e.note] : [])].join('; '),
  }));
  const columns = columnsOf([['STATE', 'state', 10], ['KIND', 'kind', 8], ['NAME', 'name', 9], ['STEP', 'step', 6], ['ID', 'id', 5], ['DIFFERENCES', 'detail', 7]]);
  const table = rows.length ? draw(rows, columns, { keep: 'state' }) : 'The plan makes or names no resource to compare.\n';
  return `${table}${driftSummary(r)}\n`;
}
