import { toYaml } from '../yaml.js';
import type { Column, TableSpec } from './columns.js';
/** How results are printed (`-o`): a table for people, JSON or YAML for programs. */
export type OutputFormat = 'table' | 'json' | 'yaml';
import { colorStatus, PLAIN, type Colors } from './color.js';
import { maskSecretLooking } from '../redact.js';
import { formatAmount, formatRate } from './money.js';

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
 * would move the cursor, recolour the terminal or break the table: a cell shows them as `\u001b`-style
 * escapes (quote.ts), so the table says what the name holds; the output sink then has nothing to strip.
 */
import { printable } from './quote.js';

export { printable };

function formatCell(value: unknown, format: Column['format']): string {
  return printable(rawCell(value, format));
}

function rawCell(value: unknown, format: Column['format']): string {
  if (value === null || value === undefined || value === '') return '-';
  if (format === 'price' || format === 'money') {
    // A price from the API may be a number or a numeric string; anything else is shown as it is.
    const n = typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN;
    if (Number.isFinite(n)) return format === 'price' ? formatRate(n) : formatAmount(n);
    return String(value);
  }
  if (format === 'gb') return `${value} GB`;
  if (format === 'bool') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map((x) => rawCell(x, undefined)).join(', ');
  if (typeof value === 'object') return String((value as { description?: unknown }).description ?? JSON.stringify(value));
  return String(value);
}

export interface TableOptions {
  /** Path of the ID column errors tell users to type: never dropped, never shortened. */
  keep?: string;
  /** More columns kept whole however narrow the terminal (the name); `status` columns always are. */
  essential?: string[];
  /** Colour for the header and status values (plain by default). */
  colors?: Colors;
  /** Told the headers of the columns dropped to fit `width` (the output sink says them in one line on stderr). */
  onHidden?: (headers: string[]) => void;
}

/** A shortened cell keeps at least this many characters (and its header). */
const MIN_SHORTENED = 8;

/**
 * Whether cutting a column's values leaves something a reader can use: not identifiers or addresses
 * (half an ID cannot be typed) and not numbers (a cut price is a different price).
 */
function shortenable(c: Column): boolean {
  return c.format === undefined || c.format === 'list' ? !/(^|[._])(id|ip|code|type)$/i.test(c.path) && c.header !== 'ID' : false;
}

const cut = (text: string, width: number) => (text.length > width ? `${text.slice(0, Math.max(1, width - 1))}…` : text);

/**
 * A borderless table like kubectl's. The ID (`keep`), the name (`essential`) and status columns are
 * always shown whole, since errors and later commands need them; when the rest does not fit `width`,
 * the lowest-priority other column is shortened to the room left if that keeps at least a few
 * characters of it, else dropped, and so on. When even the kept columns are wider than the terminal
 * the lines are longer than `width` (the terminal wraps them) rather than losing the ID. A `width` of
 * Infinity (stdout is a pipe or a file, or `-o wide`) keeps every column, as wide as its content.
 */
/**
 * Draws a table for a renderer that does not know where it goes: the output sink's `table` (its width,
 * its colours, the hidden-columns line on stderr), or `tableAt` for a fixed width (an MCP tool's text).
 */
export type DrawTable = (records: unknown[], columns: Column[], opts?: Pick<TableOptions, 'keep' | 'essential'>) => string;

/** A DrawTable at a fixed width, naming no hidden column (for text read by a program, not a person). */
export const tableAt =
  (width: number, colors: Colors = PLAIN): DrawTable =>
  (records, columns, opts) =>
    renderTable(records, columns, width, { ...opts, colors });

export function renderTable(records: unknown[], columns: Column[], width: number, opts: TableOptions = {}): string {
  if (records.length === 0) return 'No resources found.\n';
  const paint = opts.colors ?? PLAIN;
  const kept = (c: Column) => c.path === opts.keep || (opts.essential ?? []).includes(c.path) || c.format === 'status';
  let cols = [...columns];
  const cells = records.map((r) => new Map(columns.map((c) => [c, formatCell(valueAt(r, c.path), c.format)])));
  const natural = new Map(columns.map((c) => [c, Math.max(c.header.length, ...cells.map((row) => row.get(c)!.length))]));
  const widths = new Map(natural);
  const total = () => cols.reduce((sum, c, i) => sum + widths.get(c)! + (i ? 3 : 0), 0);
  while (total() > width) {
    const others = cols.filter((c) => !kept(c));
    if (!others.length) break;
    const lowest = others.reduce((lo, c) => ((c.priority ?? 5) < (lo.priority ?? 5) ? c : lo));
    const room = width - (total() - widths.get(lowest)!);
    if (shortenable(lowest) && room >= Math.max(lowest.header.length, MIN_SHORTENED)) {
      widths.set(lowest, room);
      break;
    }
    if (cols.length === 1) break; // a table keeps at least one column, however wide
    cols = cols.filter((c) => c !== lowest);
  }
  const hidden = columns.filter((c) => !cols.includes(c)).map((c) => c.header);
  if (hidden.length) opts.onHidden?.(hidden);
  const line = (texts: string[], paintCell: (cell: string, i: number) => string) =>
    texts
      .map((text, i) => {
        const w = widths.get(cols[i]!)!;
        const shown = cut(text, w);
        return (i ? '   ' : '') + paintCell(i === texts.length - 1 ? shown : shown.padEnd(w), i);
      })
      .join('')
      .trimEnd();
  // Pad and cut the plain text first, then colour it, so escape codes never count as width.
  const header = line(
    cols.map((c) => c.header),
    (text) => paint.bold(text),
  );
  const body = cells.map((row) => line(cols.map((c) => row.get(c)!), (text, i) => (cols[i]!.format === 'status' ? colorStatus(paint, text) : text)));
  return [header, ...body].join('\n') + '\n';
}

/** The records a table shows: one per element of `rowsPer` when the kind nests a list per record. */
function tableRows(records: unknown[], spec: TableSpec): unknown[] {
  const per = spec.rowsPer;
  if (!per) return records;
  return records.flatMap((r) => {
    const list = (r as Record<string, unknown> | null)?.[per.field];
    if (!Array.isArray(list) || list.length === 0) return [{ ...(r as object), [per.as]: undefined }];
    return list.map((item) => ({ ...(r as object), [per.as]: item }));
  });
}

/** A kind's records as its table: the ID, name and status columns kept whole, nested lists one row each. */
export function renderKindTable(records: unknown[], spec: TableSpec, width: number, colors?: Colors, onHidden?: TableOptions['onHidden']): string {
  return renderTable(tableRows(records, spec), spec.columns, width, { keep: spec.idField, essential: spec.nameField ? [spec.nameField] : [], colors, onHidden });
}

/**
 * Renders what the API returned: JSON exactly as returned (pipes into jq), YAML, or a table of the
 * kind's columns. Asking for -o json|yaml is asking for the raw records; a table is for reading over
 * someone's shoulder, so secret-looking values (API_KEY=… in a startup script, a plain env value
 * named *_TOKEN) are masked in it.
 */
export function renderRecords(data: unknown, spec: TableSpec, format: OutputFormat, width: number, colors?: Colors): string {
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
