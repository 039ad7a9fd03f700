/**
 * What a gpucloud create costs, from its canonical body: an instance (at its on-demand, spot or highest
 * dynamic price) with the OS volume and data volumes the API makes with it, a cluster with its shared
 * file system, a volume. A value the price depends on that is missing, of the wrong type or only known
 * at run time makes the create unpriced, with why — never priced as if it were cheaper.
 *
 * What the API creates besides the resource itself, as the emulator and the wire reference describe it:
 * every new instance gets an NVMe OS volume (100 GB with GPUs, 50 GB without, unless `os_volume.size`
 * says otherwise), and every Instant Cluster a shared file system (NVMe_Shared, 30000 GB by default).
 */
import type { CostLine } from '../../core/provider.js';
import { findRow, HOURS_PER_30_DAYS, instanceTypePerHour, num, volumePerHour, clusterTypePerHour } from './prices.js';
import { list, record, type PriceReads, type Rec } from './price-reads.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';

export const OS_VOLUME_TYPE = 'NVMe';
export const OS_VOLUME_GB = { gpu: 100, cpu: 50 };
export const CLUSTER_SHARED_VOLUME = { type: 'NVMe_Shared', sizeGb: 30000 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The lines of one create (or one choice of it), and why any part of it cannot be priced. */
export interface CreateLines {
  lines: CostLine[];
  unpriced: string[];
}

export const line = (l: Omit<CostLine, 'per_30_days'>): CostLine => ({ ...l, per_30_days: l.per_hour === undefined ? undefined : l.per_hour * HOURS_PER_30_DAYS });

/** A string the price depends on, known now (not a placeholder). */
function known(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && !hasPlaceholder(v);
}

/**
 * The field of each create's body that names the catalogue type it is priced by, and how a reason names it.
 * A type missing, of the wrong kind or only known at run time (a placeholder) makes the create
 * unpriced: the catalogue cannot say what it costs before the run.
 */
const PRICED_BY = {
  instance: { field: 'instance_type', called: 'instance_type', missing: 'is missing' },
  cluster: { field: 'cluster_type', called: 'cluster_type', missing: 'is missing' },
  volume: { field: 'type', called: 'volume type', missing: "is missing (the API's default is not known)" },
} as const;

/** What a create of `kind` is priced from: the catalogue type it names and where it is made; or why it cannot be priced. */
function createOf(kind: keyof typeof PRICED_BY, b: Rec): { type: string; location?: string } | { why: string } {
  const { field, called, missing } = PRICED_BY[kind];
  const v = b[field];
  if (!known(v)) return { why: `${called} ${v === undefined ? missing : `is ${JSON.stringify(v)}, not a type known before the run`}` };
  return { type: v, location: known(b.location_code) ? b.location_code : undefined };
}

/** A create of `kind`: unpriced with why when its type is not known before the run, else the lines `add` finds. */
async function createLines(kind: keyof typeof PRICED_BY, b: Rec, add: (out: CreateLines, type: string, location: string | undefined) => Promise<void>): Promise<CreateLines> {
  const made = createOf(kind, b);
  if ('why' in made) return { lines: [], unpriced: [made.why] };
  const out: CreateLines = { lines: [], unpriced: [] };
  await add(out, made.type, made.location);
  return out;
}

/** One line of a create; a part whose price is not known makes the whole create unpriced, with `why`. */
function addLine(out: CreateLines, l: Omit<CostLine, 'per_30_days'>, why: string): void {
  if (l.per_hour === undefined) out.unpriced.push(why);
  out.lines.push(line(l));
}

/** A size in GB the price depends on: absent (the API's default), a whole number, or why not. */
function sizeGb(v: unknown, what: string): { gb?: number } | { why: string } {
  if (v === undefined || v === null) return {};
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return { gb: v };
  return { why: `${what} is ${JSON.stringify(v)}, not a whole number of GB` };
}

/** An instance type's hourly price as the request asks for it: spot, highest dynamic, or on-demand. */
function instanceHourly(types: unknown, type: string, b: Rec): { perHour?: number; spot: boolean; note?: string; why?: string } {
  if (b.is_spot !== undefined && b.is_spot !== null && typeof b.is_spot !== 'boolean') return { spot: false, why: `is_spot is ${JSON.stringify(b.is_spot)}, not true or false` };
  const contract = typeof b.contract === 'string' ? b.contract.toUpperCase() : undefined;
  if (b.contract !== undefined && b.contract !== null && contract === undefined) return { spot: false, why: `contract is ${JSON.stringify(b.contract)}, not a contract name` };
  const spot = b.is_spot === true || contract === 'SPOT';
  // A request that says spot one way and on-demand the other may be read either way: the dearer counts.
  const disagree = (b.is_spot === true && contract !== undefined && contract !== 'SPOT') || (b.is_spot === false && contract === 'SPOT');
  const pricing = typeof b.pricing === 'string' ? b.pricing.toUpperCase() : undefined;
  const row = findRow(types, 'instance_type', type);
  if (!row) return { spot, why: `instance type ${type} is not in the gpucloud catalogue` };
  if (pricing === 'DYNAMIC_PRICE') {
    const most = num(row.max_dynamic_price);
    return most === undefined ? { spot, why: `no highest dynamic price is known for ${type}` } : { perHour: most, spot, note: 'dynamic pricing: counted at its highest price' };
  }
  const onDemand = instanceTypePerHour(types, type, false);
  const spotPrice = instanceTypePerHour(types, type, true);
  if (disagree) {
    if (onDemand === undefined || spotPrice === undefined) return { spot, why: `is_spot and contract disagree and ${type} has no spot and on-demand price` };
    return { perHour: Math.max(onDemand, spotPrice), spot, note: 'is_spot and contract disagree: counted at the dearer price' };
  }
  const perHour = spot ? spotPrice : onDemand;
  if (perHour === undefined) return { spot, why: `no ${spot ? 'spot ' : ''}price for instance type ${type}` };
  return { perHour, spot, ...(contract === 'LONG_TERM' ? { note: 'a long-term contract: counted at the list price (its discount is not)' } : {}) };
}

/** An instance create (one choice of it): the instance, its OS volume and its new data volumes. */
export const instanceCreateLines = (step: number, b: Rec, reads: PriceReads): Promise<CreateLines> =>
  createLines('instance', b, async (out, type, location) => {
    const types = await reads.instanceTypes();
    const hourly = instanceHourly(types, type, b);
    addLine(out, { step, kind: 'instance', type, location, ...(hourly.spot ? { spot: true } : {}), per_hour: hourly.perHour, ...(hourly.note ? { note: hourly.note } : {}) }, `instance ${type}: ${hourly.why}`);
    const volumeTypes = await reads.volumeTypes();
    // Booting from an existing OS volume (its ID in `image`, not an image's) makes no new OS volume.
    const image = b.image;
    const bootsExisting = known(image) && UUID.test(image) && !list(await reads.images()).some((i) => i?.id === image);
    if (!bootsExisting) {
      const os = record(b.os_volume);
      if (b.os_volume !== undefined && b.os_volume !== null && !os) out.unpriced.push(`os_volume is ${JSON.stringify(b.os_volume)}, not an object`);
      const size = sizeGb(os?.size, 'os_volume.size');
      if ('why' in size) out.unpriced.push(size.why);
      else {
        const gpus = num(findRow(types, 'instance_type', type)?.gpu?.number_of_gpus) ?? 0;
        const gb = size.gb ?? (gpus > 0 ? OS_VOLUME_GB.gpu : OS_VOLUME_GB.cpu);
        addLine(out, { step, kind: 'volume', type: OS_VOLUME_TYPE, location, size_gb: gb, part: 'OS volume', per_hour: volumePerHour(volumeTypes, OS_VOLUME_TYPE, gb) }, `no price for volume type ${OS_VOLUME_TYPE}`);
      }
    }
    if (b.volumes !== undefined && b.volumes !== null && !Array.isArray(b.volumes)) out.unpriced.push(`volumes is ${JSON.stringify(b.volumes)}, not a list`);
    for (const [i, v] of list(b.volumes).entries()) {
      const vol = record(v);
      const name = String(vol?.name ?? i);
      if (!vol) {
        out.unpriced.push(`volumes[${i}] is not an object`);
        continue;
      }
      const size = sizeGb(vol.size, `volumes[${i}].size`);
      if (!known(vol.type)) out.unpriced.push(`volume "${name}" has ${vol.type === undefined ? 'no type (the API\'s default type is not known)' : `type ${JSON.stringify(vol.type)}`}`);
      else if ('why' in size || size.gb === undefined) out.unpriced.push('why' in size ? size.why : `volume "${name}" has no size`);
      else addLine(out, { step, kind: 'volume', type: vol.type, location, size_gb: size.gb, part: `volume "${name}"`, per_hour: volumePerHour(volumeTypes, vol.type, size.gb) }, `volume ${vol.type}: no price for this volume type`);
    }
  });

/** A cluster create: the cluster and its shared file system (existing volumes bill already). */
export const clusterCreateLines = (step: number, b: Rec, reads: PriceReads): Promise<CreateLines> =>
  createLines('cluster', b, async (out, type, location) => {
    addLine(out, { step, kind: 'cluster', type, location, per_hour: clusterTypePerHour(await reads.clusterTypes(), type) }, `cluster ${type}: no price for this cluster type`);
    const shared = record(b.shared_volume);
    const size = sizeGb(shared?.size, 'shared_volume.size');
    if ('why' in size) out.unpriced.push(size.why);
    else {
      const gb = size.gb ?? CLUSTER_SHARED_VOLUME.sizeGb;
      const perHour = volumePerHour(await reads.volumeTypes(), CLUSTER_SHARED_VOLUME.type, gb);
      addLine(out, { step, kind: 'volume', type: CLUSTER_SHARED_VOLUME.type, location, size_gb: gb, part: 'shared volume', per_hour: perHour }, `no price for volume type ${CLUSTER_SHARED_VOLUME.type}`);
    }
  });

/** A volume create. */
export const volumeCreateLines = (step: number, b: Rec, reads: PriceReads): Promise<CreateLines> =>
  createLines('volume', b, async (out, type, location) => {
    const size = sizeGb(b.size, 'size');
    if ('why' in size || size.gb === undefined) {
      out.unpriced.push('why' in size ? size.why : `volume ${type} has no size`);
      return;
    }
    addLine(out, { step, kind: 'volume', type, location, size_gb: size.gb, per_hour: volumePerHour(await reads.volumeTypes(), type, size.gb) }, `volume ${type}: no price for this volume type`);
  });
