/**
 * Refreshing the Azure VM price table (price-table.ts) from the Azure Retail Prices API, which needs no
 * sign-in (`node scripts/refresh-prices.mjs cloud_c --region R`): never during a plan. Pay-as-you-go
 * (`Consumption`) Linux prices per hour, neither Spot nor Low Priority, page by page.
 */
export const AZURE_REFRESH = {
  exportName: 'AZURE_VM_PRICES',
  describe: 'The Azure VM price table the budget reads (engine/providers/cloud_c/prices.ts).',
  command: 'node scripts/refresh-prices.mjs cloud_c [--region R]…',
  source: 'Azure Retail Prices API (prices.azure.com, Virtual Machines, Consumption)',
  endpoint: 'https://prices.azure.com',
};

/** The first page's URL for a region's VM prices. */
export function azurePricesUrl(endpoint: string, region: string): string {
  const filter = `serviceName eq 'Virtual Machines' and armRegionName eq '${region}' and priceType eq 'Consumption'`;
  return `${endpoint.replace(/\/$/, '')}/api/retail/prices?$filter=${encodeURIComponent(filter)}`;
}

interface Item {
  armSkuName?: string;
  retailPrice?: number;
  productName?: string;
  skuName?: string;
  type?: string;
  unitOfMeasure?: string;
}

/** USD per hour per VM size from a page's Items (Linux, pay-as-you-go, not Spot or Low Priority); two prices: the higher. */
export function azurePricesFromItems(items: readonly unknown[], into: Record<string, number> = {}): Record<string, number> {
  for (const raw of items) {
    const i = raw as Item;
    if (!i.armSkuName || i.type !== 'Consumption' || i.unitOfMeasure !== '1 Hour') continue;
    if (/windows/i.test(i.productName ?? '') || /spot|low priority/i.test(i.skuName ?? '')) continue;
    const usd = Number(i.retailPrice);
    if (Number.isFinite(usd) && usd > 0) into[i.armSkuName] = Math.max(into[i.armSkuName] ?? 0, usd);
  }
  return into;
}
