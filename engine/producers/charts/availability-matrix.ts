/**
 * `gpucloud list availability --matrix` (issue 31 §4): instance types × locations with prices, from a
 * read-only plan of on-demand and spot availability, the instance types (prices) and the locations.
 * Instant Cluster availability the same way (cluster types; no spot). A cell is the hourly price where
 * the type can be had now: `2.19` on demand, `s 1.10` spot only, `2.19 s 1.10` both, `-` neither.
 */
import type { Plan } from '../../../schemas/plan.js';
import type { Column } from '../../providers/gpucloud/catalogue.js';
import { num } from '../../providers/gpucloud/prices.js';
import type { DrawTable } from '../../core/render/records.js';
import { formatShortRate } from '../../core/render/money.js';

export type MatrixKind = 'availability' | 'cluster-availability';

export interface MatrixCell {
  on_demand: boolean;
  spot: boolean;
}

export interface MatrixRow {
  type: string;
  /** The catalogue's GPU description (`1x H100 SXM5 80GB`). */
  gpu: string;
  price_per_hour: number | null;
  spot_price: number | null;
  cells: Record<string, MatrixCell>;
}

export interface AvailabilityMatrix {
  kind: MatrixKind;
  currency: string;
  locations: string[];
  rows: MatrixRow[];
}

const get = (path: string, reason: string) => ({ args: ['gpucloud-api', 'GET', path], reason });

/** The reads, in order: availability, spot availability (instances only), types, locations. */
export function matrixPlan(kind: MatrixKind): Plan {
  const commands =
    kind === 'availability'
      ? [get('/v1/instance-availability', 'on-demand availability'), get('/v1/instance-availability?is_spot=true', 'spot availability'), get('/v1/instance-types', 'prices'), get('/v1/locations', 'locations')]
      : [get('/v1/cluster-availability', 'cluster availability'), get('/v1/cluster-types', 'prices'), get('/v1/locations', 'locations')];
  return { version: 1, provider: 'gpucloud', commands };
}

type Rec = Record<string, unknown>;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? (v.filter((r) => r && typeof r === 'object') as Rec[]) : []);

function availableAt(entries: Rec[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of entries) {
    const loc = typeof e.location_code === 'string' ? e.location_code : undefined;
    if (loc && Array.isArray(e.availabilities)) out.set(loc, new Set(e.availabilities.map(String)));
  }
  return out;
}

/** The matrix from the plan's results (matrixPlan's order). */
export function buildMatrix(kind: MatrixKind, results: unknown[]): AvailabilityMatrix {
  const spotOk = kind === 'availability';
  const [onDemandRaw, spotRaw, typesRaw, locationsRaw] = spotOk ? results : [results[0], [], results[1], results[2]];
  const onDemand = availableAt(list(onDemandRaw));
  const spot = availableAt(list(spotRaw));
  // Every location the catalogue has, then any that only the availability lists name.
  const locations = [...new Set([...list(locationsRaw).map((l) => String(l.code ?? '')).filter(Boolean), ...onDemand.keys(), ...spot.keys()])];
  const typeField = spotOk ? 'instance_type' : 'cluster_type';
  const types = list(typesRaw);
  const rows: MatrixRow[] = types.map((t) => {
    const type = String(t[typeField] ?? '');
    const cells: Record<string, MatrixCell> = {};
    for (const loc of locations) cells[loc] = { on_demand: onDemand.get(loc)?.has(type) ?? false, spot: spot.get(loc)?.has(type) ?? false };
    const gpu = (t.gpu as { description?: unknown } | undefined)?.description;
    return { type, gpu: typeof gpu === 'string' ? gpu : '', price_per_hour: num(t.price_per_hour) ?? null, spot_price: spotOk ? (num(t.spot_price) ?? null) : null, cells };
  });
  // Types the availability lists name but the price list lacks still get a row (without prices).
  const known = new Set(rows.map((r) => r.type));
  for (const type of new Set([...onDemand.values(), ...spot.values()].flatMap((s) => [...s]))) {
    if (known.has(type)) continue;
    const cells: Record<string, MatrixCell> = {};
    for (const loc of locations) cells[loc] = { on_demand: onDemand.get(loc)?.has(type) ?? false, spot: spot.get(loc)?.has(type) ?? false };
    rows.push({ type, gpu: '', price_per_hour: null, spot_price: null, cells });
  }
  const currency = String(types.find((t) => typeof t.currency === 'string')?.currency ?? 'usd');
  return { kind, currency, locations, rows };
}

const price = (v: number | null) => (v === null ? '?' : formatShortRate(v));

export function cellText(row: MatrixRow, cell: MatrixCell | undefined): string {
  if (!cell || (!cell.on_demand && !cell.spot)) return '-';
  return [cell.on_demand ? price(row.price_per_hour) : '', cell.spot ? `s ${price(row.spot_price)}` : ''].filter(Boolean).join(' ');
}

/** The matrix as a table: a row per type, a column per location; the location columns are never dropped. */
export function renderMatrix(m: AvailabilityMatrix, draw: DrawTable): string {
  const records = m.rows.map((r) => ({
    type: r.type,
    gpu: r.gpu,
    ...Object.fromEntries(m.locations.map((l) => [`at_${l}`, cellText(r, r.cells[l])])),
  }));
  const columns: Column[] = [
    { header: m.kind === 'availability' ? 'INSTANCE TYPE' : 'CLUSTER TYPE', path: 'type', priority: 10 },
    { header: 'GPU', path: 'gpu', priority: 1 },
    ...m.locations.map((l) => ({ header: l, path: `at_${l}`, priority: 9 })),
  ];
  const cur = m.currency.toUpperCase();
  const legend = `Prices in ${cur}/hour where the type can be had now${m.kind === 'availability' ? ': on demand, "s" spot' : ''}; "-" not available.`;
  return `${draw(records, columns, { keep: 'type' })}${legend}\n`;
}
