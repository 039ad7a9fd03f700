/**
 * Refreshing a CLI provider's price table from its cloud's price API (scripts/refresh-prices.mjs): an
 * explicit maintenance step, never part of a plan. Each provider turns the API's answers into prices
 * per region (engine/providers/<cloud>/price-refresh.ts); this module merges them into the shipped table
 * and writes it back as the provider's `price-table.ts`, dated, with the API it came from.
 *
 * A type the API did not answer for is left out of that region (and reported), never kept at an old
 * price under a new date: a type without a price is unpriced, which the budget refuses (never lower).
 */
import type { PriceTable } from './pricing.js';

export interface RefreshResult {
  table: PriceTable;
  /** `region: type` the API gave no price for (left out). */
  missing: string[];
}

/** The table with `fresh` prices for the regions refreshed (other regions kept as they were), dated today. */
export function refreshedTable(old: PriceTable, fresh: Readonly<Record<string, Readonly<Record<string, number>>>>, wanted: readonly string[], meta: { date: string; source: string }): RefreshResult {
  const missing: string[] = [];
  const regions: Record<string, Record<string, number>> = {};
  for (const [region, prices] of Object.entries(old.regions)) if (!Object.hasOwn(fresh, region)) regions[region] = { ...prices };
  for (const [region, prices] of Object.entries(fresh)) {
    regions[region] = {};
    for (const type of wanted) {
      const p = prices[type];
      if (p === undefined || !Number.isFinite(p) || p <= 0) missing.push(`${region}: ${type}`);
      else regions[region]![type] = p;
    }
  }
  const sorted = Object.fromEntries(Object.entries(regions).sort(([a], [b]) => a.localeCompare(b)));
  return { table: { ...old, date: meta.date, source: meta.source, regions: sorted }, missing };
}

/** Every type any region of the table prices: what a refresh asks the API for. */
export function tableTypes(table: PriceTable): string[] {
  return [...new Set(Object.values(table.regions).flatMap((r) => Object.keys(r)))];
}

/** The `price-table.ts` source for a table (the file the provider imports). */
export function priceTableSource(opts: { exportName: string; table: PriceTable; describe: string; command: string }): string {
  const { table } = opts;
  const lines = [
    `// ${opts.describe}`,
    `// Rewritten as a whole by \`${opts.command}\`; edit by hand only to add a type,`,
    '// and keep the date and source honest.',
    "import type { PriceTable } from '../../core/kits/cli/pricing.js';",
    '',
    `export const ${opts.exportName}: PriceTable = {`,
    `  basis: ${JSON.stringify(table.basis)},`,
    `  currency: 'usd',`,
    `  date: ${JSON.stringify(table.date)},`,
    `  source: ${JSON.stringify(table.source)},`,
    '  regions: {',
  ];
  for (const [region, prices] of Object.entries(table.regions)) {
    lines.push(`    ${key(region)}: {`);
    for (const [type, price] of Object.entries(prices)) lines.push(`      ${key(type)}: ${price},`);
    lines.push('    },');
  }
  lines.push('  },', '};', '');
  return lines.join('\n');
}

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k).replace(/^"|"$/g, "'"));
