/**
 * Refreshing the Compute Engine price table (price-table.ts) from the Cloud Billing Catalog API with the
 * token of the user's own gcloud (`node scripts/refresh-prices.mjs cloud_b --region R`): never during a
 * plan. The catalog prices resources, not machine types: a machine type is its vCPUs × the family's core
 * price + its memory × the family's RAM price (+ its bundled GPUs), each SKU found by its description,
 * on demand, in the region. A type whose parts are not all found is left out (unpriced), never guessed.
 */
export const GCE_REFRESH = {
  exportName: 'GCE_PRICES',
  describe: 'The Compute Engine price table the budget reads (engine/providers/cloud_b/prices.ts).',
  command: 'node scripts/refresh-prices.mjs cloud_b [--region R]…',
  source: 'Cloud Billing Catalog API (services/6F81-5844-456A/skus, on demand)',
  endpoint: 'https://cloudbilling.googleapis.com',
  service: '6F81-5844-456A',
};

type Part = readonly [description: string, quantity: number];

const family = (core: string, ram: string) => (vcpus: number, gb: number, gpu?: Part): Part[] => [[core, vcpus], [ram, gb], ...(gpu ? [gpu] : [])];
const E2 = family('E2 Instance Core', 'E2 Instance Ram');
const N1 = family('N1 Predefined Instance Core', 'N1 Predefined Instance Ram');
const N2 = family('N2 Instance Core', 'N2 Instance Ram');
const N2D = family('N2D AMD Instance Core', 'N2D AMD Instance Ram');
const C2 = family('Compute optimized Core', 'Compute optimized Ram');
const C3 = family('C3 Instance Core', 'C3 Instance Ram');
const G2 = family('G2 Instance Core', 'G2 Instance Ram');
const A2 = family('A2 Instance Core', 'A2 Instance Ram');
const A3 = family('A3 Instance Core', 'A3 Instance Ram');
const L4 = 'Nvidia L4 GPU';
const A100 = 'Nvidia Tesla A100 GPU';
const H100 = 'Nvidia H100 80GB GPU';

/** What each type of the table is made of in the catalog (shared-core E2 types bill a fraction of a core). */
export const GCE_RECIPES: Readonly<Record<string, readonly Part[]>> = {
  'e2-micro': E2(0.25, 1),
  'e2-small': E2(0.5, 2),
  'e2-medium': E2(1, 4),
  'e2-standard-2': E2(2, 8),
  'e2-standard-4': E2(4, 16),
  'e2-standard-8': E2(8, 32),
  'e2-standard-16': E2(16, 64),
  'e2-highmem-2': E2(2, 16),
  'e2-highcpu-2': E2(2, 2),
  'n1-standard-1': N1(1, 3.75),
  'n1-standard-2': N1(2, 7.5),
  'n1-standard-4': N1(4, 15),
  'n1-standard-8': N1(8, 30),
  'n1-standard-16': N1(16, 60),
  'n1-highmem-2': N1(2, 13),
  'n1-highcpu-2': N1(2, 1.8),
  'n2-standard-2': N2(2, 8),
  'n2-standard-4': N2(4, 16),
  'n2-standard-8': N2(8, 32),
  'n2-standard-16': N2(16, 64),
  'n2d-standard-2': N2D(2, 8),
  'n2d-standard-4': N2D(4, 16),
  'c2-standard-4': C2(4, 16),
  'c2-standard-8': C2(8, 32),
  'c3-standard-4': C3(4, 16),
  'c3-standard-8': C3(8, 32),
  'g2-standard-4': G2(4, 16, [L4, 1]),
  'g2-standard-8': G2(8, 32, [L4, 1]),
  'a2-highgpu-1g': A2(12, 85, [A100, 1]),
  'a2-highgpu-2g': A2(24, 170, [A100, 2]),
  'a2-highgpu-4g': A2(48, 340, [A100, 4]),
  'a2-highgpu-8g': A2(96, 680, [A100, 8]),
  'a3-highgpu-8g': A3(208, 1872, [H100, 8]),
  'accelerator/nvidia-tesla-t4': [['Nvidia Tesla T4 GPU', 1]],
  'accelerator/nvidia-tesla-p4': [['Nvidia Tesla P4 GPU', 1]],
  'accelerator/nvidia-tesla-p100': [['Nvidia Tesla P100 GPU', 1]],
  'accelerator/nvidia-tesla-v100': [['Nvidia Tesla V100 GPU', 1]],
};

interface Sku {
  description?: string;
  serviceRegions?: string[];
  category?: { usageType?: string };
  pricingInfo?: { pricingExpression?: { tieredRates?: { unitPrice?: { units?: string; nanos?: number } }[] } }[];
}

/** The on-demand unit price (USD) of each SKU offered in `region`, by description up to " running in". */
export function gceUnitPrices(skus: readonly unknown[], region: string, into: Map<string, number> = new Map()): Map<string, number> {
  for (const raw of skus) {
    const s = raw as Sku;
    if (s.category?.usageType !== 'OnDemand' || !s.serviceRegions?.includes(region) || !s.description) continue;
    const rates = s.pricingInfo?.[0]?.pricingExpression?.tieredRates ?? [];
    const top = rates[rates.length - 1]?.unitPrice;
    if (!top) continue;
    const usd = Number(top.units ?? 0) + Number(top.nanos ?? 0) / 1e9;
    const what = s.description.split(' running in ')[0]!.trim();
    into.set(what, Math.max(into.get(what) ?? 0, usd));
  }
  return into;
}

/** USD per hour per type of GCE_RECIPES whose parts all have a price; the rest are left out. */
export function gcePricesFromUnits(units: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, parts] of Object.entries(GCE_RECIPES)) {
    let total = 0;
    let complete = true;
    for (const [what, quantity] of parts) {
      const unit = units.get(what);
      if (unit === undefined || unit <= 0) complete = false;
      else total += unit * quantity;
    }
    if (complete) out[type] = Math.round(total * 1e6) / 1e6;
  }
  return out;
}
