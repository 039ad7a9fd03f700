import { stringify as toYaml } from 'yaml';
import type { Column, KindSpec } from '../gpucloud/catalogue.js';
import type { OutputFormat } from '../../commands/context.js';
import { maskSecretLooking } from '../redact.js';

/** Reads a dotted path (`gpu.number_of_gpus`, `worker_nodes.length`) from a record. */
function valueAt(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const key of path.split('.')) {
    if (v === null || v === undefined) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function formatCell(value: unknown, format: Column['format']): string {
  if (value === null || value === undefined || value === '') return '-';
  if (format === 'price') {
    const n = Number(value);
    return Number.isFinite(n) ? n.toFixed(2) : String(value);
  }
  if (format === 'gb') return `${value} GB`;
  if (format === 'bool') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map((x) => formatCell(x, undefined)).join(', ');
  if (typeof value === 'object') return String((value as { description?: unknown }).description ?? JSON.stringify(value));
  return String(value);
}

/**
 * A borderless table like kubectl's. When it would not fit `width`, the lowest-priority columns are
 * dropped first; the last column is truncated as a final resort.
 */
export function renderTable(records: unknown[], columns: Column[], width: number): string {
  if (records.length === 0) return 'No resources found.\n';
  let cols = [...columns];
  const rowsFor = (cs: Column[]) => records.map((r) => cs.map((c) => formatCell(valueAt(r, c.path), c.format)));
  const widthOf = (cs: Column[], rows: string[][]) =>
    cs.reduce((sum, c, i) => sum + Math.max(c.header.length, ...rows.map((r) => r[i]!.length)) + (i ? 3 : 0), 0);
  let rows = rowsFor(cols);
  while (cols.length > 1 && widthOf(cols, rows) > width) {
    const lowest = cols.reduce((lo, c) => ((c.priority ?? 5) < (lo.priority ?? 5) ? c : lo));
    cols = cols.filter((c) => c !== lowest);
    rows = rowsFor(cols);
  }
  const widths = cols.map((c, i) => Math.max(c.header.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('   ')
      .slice(0, Math.max(width, 20))
      .trimEnd();
  return [line(cols.map((c) => c.header)), ...rows.map(line)].join('\n') + '\n';
}

/**
 * Renders what the API returned: JSON exactly as returned (pipes into jq), YAML, or a table of the
 * kind's columns. Asking for -o json|yaml is asking for the raw records; a table is for reading over
 * someone's shoulder, so secret-looking values (API_KEY=… in a startup script, a plain env value
 * named *_TOKEN) are masked in it.
 */
export function renderRecords(data: unknown, spec: KindSpec, format: OutputFormat, width: number): string {
  if (format === 'json') return JSON.stringify(data, null, 2) + '\n';
  if (format === 'yaml') return toYaml(data);
  const records = Array.isArray(data) ? data : [data];
  return renderTable(maskSecretLooking(records), spec.columns, width);
}

/** A single record shown as `key: value` lines (YAML) in table mode, since one row hides most fields; masked like tables. */
export function renderRecord(record: unknown, format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(record, null, 2) + '\n';
  if (format === 'yaml') return toYaml(record);
  return toYaml(maskSecretLooking(record));
}
