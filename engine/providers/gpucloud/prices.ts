/**
 * Prices from the live gpucloud catalogue, shared by the dry-run preview (what a plan would cost) and
 * `cost` (what the account costs now). The API sends prices as numeric strings; volumes are priced per
 * GB and month, turned into an hourly figure over a 30-day month as the API bills them.
 */
export const HOURS_PER_30_DAYS = 720;

/** A finite number from a numeric string or number, else undefined. */
export function num(v: unknown): number | undefined {
  const n = Number(v);
  return v !== undefined && v !== null && v !== '' && Number.isFinite(n) ? n : undefined;
}

/** The catalogue row whose `field` equals `value`. */
export function findRow(list: unknown, field: string, value: unknown): Record<string, any> | undefined {
  return Array.isArray(list) ? (list as Record<string, unknown>[]).find((r) => r?.[field] === value) : undefined;
}

/** An instance type's hourly price (the spot price for spot instances), from `/v1/instance-types`. */
export function instanceTypePerHour(instanceTypes: unknown, type: string, spot: boolean): number | undefined {
  const it = findRow(instanceTypes, 'instance_type', type);
  return num(spot ? it?.spot_price : it?.price_per_hour);
}

/** A cluster type's hourly price, from `/v1/cluster-types`. */
export function clusterTypePerHour(clusterTypes: unknown, type: string): number | undefined {
  return num(findRow(clusterTypes, 'cluster_type', type)?.price_per_hour);
}

/** A volume's hourly price by type and size, from `/v1/volume-types` (price per GB and month / 720 h). */
export function volumePerHour(volumeTypes: unknown, type: string, sizeGb: number | undefined): number | undefined {
  const perGbMonth = num(findRow(volumeTypes, 'type', type)?.price?.price_per_month_per_gb);
  if (perGbMonth === undefined || sizeGb === undefined || !Number.isFinite(sizeGb)) return undefined;
  return (perGbMonth * sizeGb) / HOURS_PER_30_DAYS;
}
