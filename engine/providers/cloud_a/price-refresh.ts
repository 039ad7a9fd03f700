/**
 * Refreshing the EC2 price table (price-table.ts) from the AWS Price List API with the user's own aws
 * CLI and credentials (`node scripts/refresh-prices.mjs cloud_a --region R`): never during a plan. One
 * `aws pricing get-products` per region (the CLI pages), on-demand Linux with shared tenancy and no
 * pre-installed software, the hourly USD price of each instance type.
 */
export const EC2_REFRESH = {
  exportName: 'EC2_PRICES',
  describe: 'The EC2 price table the budget reads (engine/providers/cloud_a/prices.ts).',
  command: 'node scripts/refresh-prices.mjs cloud_a [--region R]…',
  source: 'AWS Price List API (aws pricing get-products, AmazonEC2)',
};

/** The aws args (after `aws`) that list a region's on-demand Linux shared-tenancy EC2 prices. */
export function ec2ProductsArgs(region: string): string[] {
  const term = (field: string, value: string) => `Type=TERM_MATCH,Field=${field},Value=${value}`;
  return [
    'pricing', 'get-products', '--region', 'us-east-1', '--service-code', 'AmazonEC2', '--output', 'json', '--filters',
    term('regionCode', region), term('operatingSystem', 'Linux'), term('tenancy', 'Shared'), term('preInstalledSw', 'NA'), term('capacitystatus', 'Used'), term('licenseModel', 'No License required'),
  ];
}

interface Product {
  product?: { attributes?: { instanceType?: string } };
  terms?: { OnDemand?: Record<string, { priceDimensions?: Record<string, { unit?: string; pricePerUnit?: { USD?: string } }> }> };
}

/** USD per hour per instance type from `get-products`' PriceList (each entry a JSON string); two prices for one type: the higher. */
export function ec2PricesFromProducts(priceList: readonly unknown[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of priceList) {
    const p = (typeof entry === 'string' ? JSON.parse(entry) : entry) as Product;
    const type = p.product?.attributes?.instanceType;
    if (!type) continue;
    for (const term of Object.values(p.terms?.OnDemand ?? {})) {
      for (const dim of Object.values(term.priceDimensions ?? {})) {
        const usd = Number(dim.pricePerUnit?.USD);
        if (dim.unit === 'Hrs' && Number.isFinite(usd) && usd > 0) out[type] = Math.max(out[type] ?? 0, usd);
      }
    }
  }
  return out;
}
