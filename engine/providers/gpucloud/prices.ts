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

/** What a serverless deployment runs, read from a request body or a live record. */
export interface DeploymentSize {
  compute: string;
  /** Compute units per replica. */
  size: number;
  spot: boolean;
  /** The most replicas it may run (what the budget counts), and the fewest it keeps. */
  max: number;
  min?: number;
}

/** The price of one compute unit of a serverless compute type (`/v1/container-types`), on-demand or spot. */
export function computeUnitPerHour(containerTypes: unknown, compute: string, spot: boolean): number | undefined {
  const row = findRow(containerTypes, 'name', compute);
  return num(spot ? row?.serverless_spot_price : row?.serverless_price);
}

/** A deployment at the most replicas it may run: compute unit price × units per replica × max replicas. */
export function deploymentPerHour(containerTypes: unknown, d: DeploymentSize): number | undefined {
  const unit = computeUnitPerHour(containerTypes, d.compute, d.spot);
  return unit === undefined ? undefined : unit * d.size * d.max;
}

/**
 * A deployment's size from a body or record: `compute: {name, size}`, `is_spot` and
 * `scaling.{min,max}_replica_count`, each of the type the API takes, or why not.
 */
export function deploymentSize(v: { compute?: unknown; is_spot?: unknown; scaling?: unknown }): DeploymentSize | { why: string } {
  const compute = v.compute && typeof v.compute === 'object' ? (v.compute as Record<string, unknown>) : undefined;
  const scaling = v.scaling && typeof v.scaling === 'object' ? (v.scaling as Record<string, unknown>) : undefined;
  const count = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : undefined);
  if (typeof compute?.name !== 'string') return { why: 'no compute.name' };
  const size = count(compute.size);
  if (size === undefined || size < 1) return { why: `compute.size is ${JSON.stringify(compute.size)}, not a whole number of units` };
  const max = count(scaling?.max_replica_count);
  if (max === undefined) return { why: `scaling.max_replica_count is ${JSON.stringify(scaling?.max_replica_count)}, not a whole number (the API's default is not known)` };
  if (v.is_spot !== undefined && v.is_spot !== null && typeof v.is_spot !== 'boolean') return { why: `is_spot is ${JSON.stringify(v.is_spot)}, not true or false` };
  const min = count(scaling?.min_replica_count);
  return { compute: compute.name, size, spot: v.is_spot === true, max, ...(min === undefined ? {} : { min }) };
}
