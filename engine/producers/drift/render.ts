/** A drift report as a table and a summary line (`plan diff`, the MCP drift tool's text). */
import type { Column } from '../../providers/gpucloud/catalogue.js';
import type { DrawTable } from '../../core/render/records.js';
import { DRIFT_EXIT_CODE, type DriftReport } from '../../core/drift-types.js';

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
  const columns: Column[] = [
    { header: 'STATE', path: 'state', priority: 10 },
    { header: 'KIND', path: 'kind', priority: 8 },
    { header: 'NAME', path: 'name', priority: 9 },
    { header: 'STEP', path: 'step', priority: 6 },
    { header: 'ID', path: 'id', priority: 5 },
    { header: 'DIFFERENCES', path: 'detail', priority: 7 },
  ];
  const table = rows.length ? draw(rows, columns, { keep: 'state' }) : 'The plan makes or names no resource to compare.\n';
  return `${table}${driftSummary(r)}\n`;
}
