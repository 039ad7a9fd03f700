import { toYaml } from '../yaml.js';
import type { Column, KindSpec } from '../gpucloud/catalogue.js';
/** How results are printed (`-o`): a table for people, JSON or YAML for programs. */
export type OutputFormat = 'table' | 'json' | 'yaml';
import { colorStatus, PLAIN, type Colors } from './color.js';
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

/**
 * Control characters from API data (an escape sequence in a volume name, a newline in a description)
 * would move the cursor, recolour the terminal or break the table: show them as `\u001b`-style escapes.
 */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function formatCell(value: unknown, format: Column['format']): string {
  return printable(rawCell(value, format));
}

function rawCell(value: unknown, format: Column['format']): string {
  if (value === null || value === undefined || value === '') return '-';
  if (format === 'price') {
    const n = Number(value);
    return Number.isFinite(n) ? n.toFixed(2) : String(value);
  }
  if (format === 'gb') return `${value} GB`;
  if (format === 'bool') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map((x) => rawCell(x, undefined)).join(', ');
  if (typeof value === 'object') return String((value as { description?: unknown }).description ?? JSON.stringify(value));
  return String(value);
}

export interface TableOptions {
  /** Path of the column that is never dropped: the ID errors tell users to type. */
  keep?: string;
  /** Colour for the header and status values (plain by default). */
  colors?: Colors;
}

/**
 * A borderless table like kubectl's. When it would not fit `width`, the lowest-priority columns are
 * dropped first (never the `keep` column); the last column is truncated as a final resort.
 */
export function renderTable(records: unknown[], columns: Column[], width: number, opts: TableOptions = {}): string {
  if (records.length === 0) return 'No resources found.\n';
  const paint = opts.colors ?? PLAIN;
  let cols = [...columns];
  const rowsFor = (cs: Column[]) => records.map((r) => cs.map((c) => formatCell(valueAt(r, c.path), c.format)));
  const widthOf = (cs: Column[], rows: string[][]) =>
    cs.reduce((sum, c, i) => sum + Math.max(c.header.length, ...rows.map((r) => r[i]!.length)) + (i ? 3 : 0), 0);
  let rows = rowsFor(cols);
  const droppable = (cs: Column[]) => cs.filter((c) => c.path !== opts.keep);
  while (droppable(cols).length > 0 && cols.length > 1 && widthOf(cols, rows) > width) {
    const lowest = droppable(cols).reduce((lo, c) => ((c.priority ?? 5) < (lo.priority ?? 5) ? c : lo));
    cols = cols.filter((c) => c !== lowest);
    rows = rowsFor(cols);
  }
  const widths = cols.map((c, i) => Math.max(c.header.length, ...rows.map((r) => r[i]!.length)));
  const limit = Math.max(width, 20);
  // Pad and truncate the plain text first, then colour it, so escape codes never count as width.
  const line = (cells: string[], paint: (cell: string, i: number) => string) => {
    let used = 0;
    const out: string[] = [];
    cells.forEach((cell, i) => {
      const sep = i ? '   ' : '';
      const padded = i === cells.length - 1 ? cell : cell.padEnd(widths[i]!);
      const room = limit - used - sep.length;
      if (room <= 0) return;
      const text = padded.slice(0, room);
      used += sep.length + text.length;
      out.push(sep + paint(text, i));
    });
    return out.join('').trimEnd();
  };
  const header = line(
    cols.map((c) => c.header),
    (text) => paint.bold(text),
  );
  const body = rows.map((r) => line(r, (text, i) => (cols[i]!.format === 'status' ? colorStatus(paint, text) : text)));
  return [header, ...body].join('\n') + '\n';
}

/** The records a table shows: one per element of `rowsPer` when the kind nests a list per record. */
function tableRows(records: unknown[], spec: KindSpec): unknown[] {
  const per = spec.rowsPer;
  if (!per) return records;
  return records.flatMap((r) => {
    const list = (r as Record<string, unknown> | null)?.[per.field];
    if (!Array.isArray(list) || list.length === 0) return [{ ...(r as object), [per.as]: undefined }];
    return list.map((item) => ({ ...(r as object), [per.as]: item }));
  });
}

/** A kind's records as its table: ID column kept, nested lists one row each. */
export function renderKindTable(records: unknown[], spec: KindSpec, width: number, colors?: Colors): string {
  return renderTable(tableRows(records, spec), spec.columns, width, { keep: spec.idField, colors });
}

/**
 * Renders what the API returned: JSON exactly as returned (pipes into jq), YAML, or a table of the
 * kind's columns. Asking for -o json|yaml is asking for the raw records; a table is for reading over
 * someone's shoulder, so secret-looking values (API_KEY=… in a startup script, a plain env value
 * named *_TOKEN) are masked in it.
 */
export function renderRecords(data: unknown, spec: KindSpec, format: OutputFormat, width: number, colors?: Colors): string {
  if (format === 'json') return JSON.stringify(data, null, 2) + '\n';
  if (format === 'yaml') return toYaml(data);
  const records = Array.isArray(data) ? data : [data];
  return renderKindTable(maskSecretLooking(records), spec, width, colors);
}

/** A single record as JSON, YAML, or (table) a two-column FIELD / VALUE view, since one row hides most fields; masked like tables. */
export function renderRecord(record: unknown, format: OutputFormat, colors?: Colors): string {
  if (format === 'json') return JSON.stringify(record, null, 2) + '\n';
  if (format === 'yaml') return toYaml(record);
  return renderKeyValues(maskSecretLooking(record), colors ?? PLAIN);
}

/** Nested objects become dotted field names; lists of plain values are joined, other lists shown as JSON. */
function flatten(value: unknown, prefix: string, out: [string, string][]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.push([prefix, '-']);
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  if (Array.isArray(value)) {
    const plain = value.every((v) => v === null || typeof v !== 'object');
    out.push([prefix, value.length === 0 ? '-' : plain ? value.join(', ') : JSON.stringify(value)]);
    return;
  }
  out.push([prefix || 'value', value === null || value === undefined || value === '' ? '-' : String(value)]);
}

function renderKeyValues(record: unknown, c: Colors): string {
  const pairs: [string, string][] = [];
  flatten(record, '', pairs);
  const width = Math.max(5, ...pairs.map(([k]) => k.length));
  const lines = [`${c.bold('FIELD'.padEnd(width))}   ${c.bold('VALUE')}`];
  for (const [k, raw] of pairs) {
    const v = printable(raw);
    lines.push(`${printable(k).padEnd(width)}   ${k === 'status' ? colorStatus(c, v) : v}`);
  }
  return lines.join('\n') + '\n';
}
