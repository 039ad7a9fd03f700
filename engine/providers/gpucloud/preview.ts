/**
 * Dry-run pricing for gpucloud: what each create really costs, read from the live catalogue.
 */
import { substituteBody } from '../../core/plan/bindings.js';
import type { PlanAlternative } from '../../../schemas/plan.js';
import type { CostLine, PricePreview, PreviewRead, StepClass } from '../../core/provider.js';
import { choiceBody, choiceName } from './failover.js';
import { clusterTypePerHour, findRow as find, HOURS_PER_30_DAYS, instanceTypePerHour, num, volumePerHour } from './prices.js';

/**
 * A resize or clone priced from the volume it acts on: a resize adds the GB it grows by (a shrink or an
 * unknown volume adds nothing priced), a clone a new volume of the same size (of the type asked for).
 */
function fromExisting(m: Creation, volumes: unknown): Creation {
  const { id, action, newSizeGb, newType } = m.fromVolume!;
  const v = find(volumes, 'id', id);
  const current = num(v?.size);
  const type = action === 'clone' ? (newType ?? (typeof v?.type === 'string' ? v.type : '?')) : typeof v?.type === 'string' ? v.type : '?';
  const location = typeof v?.location === 'string' ? v.location : m.location;
  if (action === 'clone') return { ...m, type, location, sizeGb: current };
  const grows = current === undefined || newSizeGb === undefined ? undefined : Math.max(0, newSizeGb - current);
  return { ...m, type, location, sizeGb: grows, part: `${m.part} to ${newSizeGb ?? '?'} GB (+${grows ?? '?'} GB)` };
}

type PreviewedStep = { index: number; args: string[]; class: StepClass; alternatives?: readonly PlanAlternative[] };

/**
 * What the API creates besides the resource itself, as the emulator and the wire reference describe it:
 * every new instance gets an NVMe OS volume (100 GB with GPUs, 50 GB without, unless `os_volume.size`
 * says otherwise), and every Instant Cluster a shared file system (NVMe_Shared, 30000 GB by default).
 */
const OS_VOLUME_TYPE = 'NVMe';
const OS_VOLUME_GB = { gpu: 100, cpu: 50 };
const CLUSTER_SHARED_VOLUME = { type: 'NVMe_Shared', sizeGb: 30000 };

interface Creation {
  step: number;
  kind: 'instance' | 'cluster' | 'volume' | 'container';
  type: string;
  location?: string;
  spot?: boolean;
  sizeGb?: number;
  part?: string;
  /** An OS volume without an explicit size: its default depends on this instance type's GPUs. */
  osVolumeOf?: string;
  /** An OS volume of an instance whose image is a UUID: an image ID makes a new OS volume, an existing volume's ID does not. */
  bootRef?: string;
  /** A create with alternatives: which choice this belongs to (0: as written). */
  choice?: number;
  /** A resize or clone of an existing volume: priced from its current size and type (read at preview time). */
  fromVolume?: { id: string; action: 'resize' | 'clone'; newSizeGb?: number; newType?: string };
  /** A container deployment: compute units per replica, and its replica bounds. */
  container?: { size: number; min: number; max: number };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const sizeOf = (v: unknown): number | undefined => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? Number(v) : undefined);

/** Finds what each POST creates, from the parsed body (placeholders already substituted where known). */
function creations(steps: readonly PreviewedStep[], predefined: Record<string, string>): Creation[] {
  const out: Creation[] = [];
  steps.forEach(({ index: step, args, alternatives }) => {
    const [verb, method, path, body] = args;
    if (verb !== 'gpucloud-api' || method?.toUpperCase() !== 'POST' || !body) return;
    let written: Record<string, unknown>;
    try {
      written = JSON.parse(substituteBody(body, predefined));
    } catch {
      return;
    }
    // Every choice of a create with alternatives is priced; the most expensive one is counted (below).
    const choices = alternatives?.length ? [undefined, ...alternatives] : [undefined];
    choices.forEach((alt, choice) => {
      const b = choiceBody(written, alt);
      const mark = alternatives?.length ? { choice } : {};
      const push = (c: Creation) => out.push({ ...c, ...mark });
      const p = (path ?? '').replace(/\/+$/, '');
      const location = typeof b.location_code === 'string' ? b.location_code : undefined;
      if (p === '/v1/instances' && typeof b.instance_type === 'string') {
        const spot = b.is_spot === true || b.contract === 'SPOT';
        push({ step, kind: 'instance', type: b.instance_type, location, spot });
        const size = sizeOf(record(b.os_volume)?.size);
        const bootRef = typeof b.image === 'string' && UUID.test(b.image) ? b.image : undefined;
        push({ step, kind: 'volume', type: OS_VOLUME_TYPE, location, sizeGb: size, part: 'OS volume', osVolumeOf: size === undefined ? b.instance_type : undefined, bootRef });
        for (const v of Array.isArray(b.volumes) ? b.volumes : []) {
          const vol = record(v);
          if (vol && typeof vol.type === 'string') push({ step, kind: 'volume', type: vol.type, location, sizeGb: sizeOf(vol.size), part: `volume "${String(vol.name ?? '')}"` });
        }
      }
      if (p === '/v1/clusters' && typeof b.cluster_type === 'string') {
        push({ step, kind: 'cluster', type: b.cluster_type, location });
        const shared = record(b.shared_volume);
        push({ step, kind: 'volume', type: CLUSTER_SHARED_VOLUME.type, location, sizeGb: sizeOf(shared?.size) ?? CLUSTER_SHARED_VOLUME.sizeGb, part: 'shared volume' });
      }
      if (p === '/v1/volumes' && typeof b.type === 'string' && method?.toUpperCase() === 'POST') push({ step, kind: 'volume', type: b.type, location, sizeGb: sizeOf(b.size) });
      const compute = record(b.compute);
      if (p === '/v1/container-deployments' && typeof compute?.name === 'string') {
        const scaling = record(b.scaling);
        const container = { size: sizeOf(compute.size) ?? 1, min: sizeOf(scaling?.min_replica_count) ?? 0, max: sizeOf(scaling?.max_replica_count) ?? 1 };
        push({ step, kind: 'container', type: compute.name, spot: b.is_spot === true, container });
      }
    });
  });
  // Volume resizes and clones (PUT /v1/volumes) bill at their new size: a resize adds the difference, a clone a whole new volume.
  steps.forEach(({ index: step, args }) => {
    const [verb, method, path, body] = args;
    if (verb !== 'gpucloud-api' || method?.toUpperCase() !== 'PUT' || (path ?? '').replace(/\/+$/, '') !== '/v1/volumes' || !body) return;
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(substituteBody(body, predefined));
    } catch {
      return;
    }
    const action = String(b.action ?? '').toLowerCase();
    if (action !== 'resize' && action !== 'clone') return;
    for (const id of [b.id].flat()) {
      if (typeof id !== 'string') continue;
      out.push({ step, kind: 'volume', type: '?', part: action === 'resize' ? `resize of volume ${id}` : `clone of volume ${id}`, fromVolume: { id, action, newSizeGb: sizeOf(b.size), newType: typeof b.type === 'string' ? b.type : undefined } });
    }
  });
  return out;
}

const availKey = (m: Creation) => `avail:${m.step}${m.choice === undefined ? '' : `:${m.choice}`}`;

/** Whether serverless compute `name` with `size` units is offered now (`/v1/serverless-compute-resources`); undefined when unknown. */
function computeAvailable(resources: unknown, name: string, size: number): boolean | undefined {
  if (!Array.isArray(resources)) return undefined;
  const row = (resources as Record<string, unknown>[]).find((r) => r?.name === name && Number(r?.size) === size);
  return row ? row.is_available === true : false;
}

/** Why a choice of a create with alternatives cannot be made: its type or location is not in the catalogue. */
function notInCatalogue(m: Creation, reads: Record<string, unknown>): string | undefined {
  if (m.choice === undefined || m.kind !== 'instance') return undefined;
  const codes = (list: unknown, field: string) => (Array.isArray(list) ? list.map((r) => (r as Record<string, unknown>)?.[field]).filter((c): c is string => typeof c === 'string') : []);
  const types = codes(reads['instance-types'], 'instance_type');
  const locations = codes(reads.locations, 'code');
  if (types.length && !types.includes(m.type)) return `instance type "${m.type}" is not in the gpucloud catalogue`;
  if (m.location && !m.location.includes('<') && locations.length && !locations.includes(m.location)) return `location "${m.location}" is not in the gpucloud catalogue (valid: ${locations.join(', ')})`;
  return undefined;
}

/** The reads a dry run needs for these creations (prices, availability, balance). */
function readsFor(made: readonly Creation[]): { key: string; path: string }[] {
  const reads: { key: string; path: string }[] = [{ key: 'balance', path: '/v1/balance' }];
  // Alternatives are checked against the catalogue's locations and types before their availability is read.
  if (made.some((m) => m.choice !== undefined)) reads.push({ key: 'locations', path: '/v1/locations' });
  if (made.some((m) => m.kind === 'instance')) reads.push({ key: 'instance-types', path: '/v1/instance-types' });
  if (made.some((m) => m.kind === 'cluster')) reads.push({ key: 'cluster-types', path: '/v1/cluster-types' });
  if (made.some((m) => m.kind === 'volume')) reads.push({ key: 'volume-types', path: '/v1/volume-types' });
  if (made.some((m) => m.fromVolume)) reads.push({ key: 'volumes', path: '/v1/volumes' });
  if (made.some((m) => m.kind === 'container')) reads.push({ key: 'container-types', path: '/v1/container-types' }, { key: 'serverless-compute', path: '/v1/serverless-compute-resources' });
  if (made.some((m) => m.bootRef)) reads.push({ key: 'images', path: '/v1/images' });
  for (const m of made) {
    if (m.kind === 'volume' || m.kind === 'container' || !m.location || m.location.includes('<')) continue;
    const base = m.kind === 'instance' ? '/v1/instance-availability/' : '/v1/cluster-availability/';
    const spot = m.spot ? '&is_spot=true' : '';
    reads.push({ key: availKey(m), path: `${base}${encodeURIComponent(m.type)}?location_code=${encodeURIComponent(m.location)}${spot}` });
  }
  return reads;
}

/**
 * gpucloud's share of a dry run: what the plan's creates cost (instances at their on-demand or spot
 * price, their OS and data volumes, clusters with their shared volume), availability, and the balance.
 */
export async function previewGpuCloud(steps: readonly PreviewedStep[], read: PreviewRead, predefined: Record<string, string>): Promise<PricePreview> {
  const all = creations(steps, predefined);
  const readResults: Record<string, unknown> = {};
  const warnings: string[] = [];
  const invalid = new Map<Creation, string>();
  for (const r of readsFor(all)) {
    if (r.key.startsWith('avail:')) {
      const m = all.find((c) => c.kind !== 'volume' && availKey(c) === r.key)!;
      const why = notInCatalogue(m, readResults);
      if (why) {
        invalid.set(m, why);
        warnings.push(`step ${m.step}: ${choiceName(m.choice!)}: ${why}; that choice can never be made`);
        continue;
      }
    }
    readResults[r.key] = await read(['gpucloud-api', 'GET', r.path]);
  }
  // Booting from an existing OS volume (its ID in `image`, not an image's) creates no new OS volume.
  const isImageId = (ref: string) => find(readResults.images, 'id', ref) !== undefined;
  const made = all.filter((m) => !m.bootRef || isImageId(m.bootRef));
  const lines: (CostLine & { choice?: number })[] = made.map((original) => {
    const m = original.fromVolume ? fromExisting(original, readResults.volumes) : original;
    let perHour: number | undefined;
    let note: string | undefined;
    let sizeGb = m.sizeGb;
    if (m.kind === 'instance') perHour = instanceTypePerHour(readResults['instance-types'], m.type, m.spot === true);
    if (m.kind === 'cluster') perHour = clusterTypePerHour(readResults['cluster-types'], m.type);
    if (m.kind === 'volume') {
      if (m.osVolumeOf !== undefined) {
        const gpus = num(find(readResults['instance-types'], 'instance_type', m.osVolumeOf)?.gpu?.number_of_gpus) ?? 0;
        sizeGb = gpus > 0 ? OS_VOLUME_GB.gpu : OS_VOLUME_GB.cpu;
      }
      perHour = volumePerHour(readResults['volume-types'], m.type, sizeGb);
    }
    if (m.container) {
      // Serverless containers bill per running replica: priced at the most replicas the scaling allows.
      const row = find(readResults['container-types'], 'name', m.type);
      const unit = num(m.spot ? row?.serverless_spot_price : row?.serverless_price);
      perHour = unit === undefined ? undefined : unit * m.container.size * m.container.max;
      if (perHour !== undefined && m.container.min === 0) {
        warnings.push(`step ${m.step}: the container deployment scales to zero: ${perHour.toFixed(4)}/hour is with ${m.container.max} replica(s) running; nothing is billed while none runs`);
      }
    }
    if (perHour === undefined) {
      note = `no price known for ${m.part ?? m.kind} type ${m.type}`;
      warnings.push(`step ${m.step}: ${note}`);
    }
    if (m.container && perHour !== undefined) note = `${m.container.size} compute unit(s) per replica, ${m.container.min} to ${m.container.max} replicas; priced with ${m.container.max} running`;
    const avail = m.container ? computeAvailable(readResults['serverless-compute'], m.type, m.container.size) : readResults[availKey(m)];
    const available = m.kind === 'volume' ? undefined : invalid.has(m) ? false : typeof avail === 'boolean' ? avail : avail === 'true' ? true : avail === 'false' ? false : undefined;
    if (invalid.has(m)) note = invalid.get(m);
    if (available === false && m.choice === undefined) {
      warnings.push(
        m.container
          ? `step ${m.step}: serverless compute ${m.type} x${m.container.size} is not available right now; the create would fail with service_unavailable (pick another compute)`
          : `step ${m.step}: ${m.type}${m.spot ? ' (spot)' : ''} is not available in ${m.location} right now; the create would fail with service_unavailable (try another location)`,
      );
    }
    return {
      step: m.step,
      kind: m.kind,
      type: m.type,
      location: m.location,
      ...(m.spot ? { spot: true } : {}),
      ...(m.kind === 'volume' ? { size_gb: sizeGb } : {}),
      ...(m.part ? { part: m.part } : {}),
      per_hour: perHour,
      per_30_days: perHour === undefined ? undefined : perHour * HOURS_PER_30_DAYS,
      available,
      note,
      ...(m.choice === undefined ? {} : { choice: m.choice }),
    };
  });
  const costs = countMostExpensiveChoice(lines, warnings);
  const totalPerHour = costs.reduce((s, c) => s + (c.per_hour ?? 0), 0);
  const bal = readResults.balance as { amount?: unknown; currency?: string } | undefined;
  const amount = Number(bal?.amount);
  let balance: PricePreview['balance'];
  if (Number.isFinite(amount)) {
    const hours = totalPerHour > 0 ? amount / totalPerHour : undefined;
    balance = { amount, currency: String(bal?.currency ?? 'usd'), hours_covered: hours };
    if (hours !== undefined && hours < 24) {
      warnings.push(`the balance (${amount.toFixed(2)} ${balance.currency.toUpperCase()}) covers only ${hours.toFixed(1)} hours of the new resources; add credit or they may be stopped`);
    }
  }
  return { costs, balance, warnings };
}

/**
 * A create with alternatives makes one of its choices: the lines of the most expensive choice are
 * counted (totals, balance, budget guard), and its instance line lists every choice with its price
 * and availability. A choice that cannot be priced makes the counted figure unknown (the guard refuses).
 */
function countMostExpensiveChoice(lines: (CostLine & { choice?: number })[], warnings: string[]): CostLine[] {
  const out: CostLine[] = [];
  const byStep = new Map<number, (CostLine & { choice: number })[]>();
  for (const l of lines) {
    if (l.choice === undefined) out.push(l);
    else byStep.set(l.step, [...(byStep.get(l.step) ?? []), l as CostLine & { choice: number }]);
  }
  for (const [step, stepLines] of byStep) {
    const choices = [...new Set(stepLines.map((l) => l.choice))];
    const total = (c: number) => stepLines.filter((l) => l.choice === c).reduce((s, l) => s + (l.per_hour ?? Number.POSITIVE_INFINITY), 0);
    const worst = choices.reduce((a, b) => (total(b) > total(a) ? b : a), choices[0]!);
    const instances = stepLines.filter((l) => l.kind === 'instance');
    if (!instances.some((l) => l.available !== false)) warnings.push(`step ${step}: none of its ${choices.length} choices is available right now; the create would fail with no_capacity`);
    for (const { choice, ...line } of stepLines.filter((l) => l.choice === worst)) {
      if (line.kind !== 'instance') {
        out.push(line);
        continue;
      }
      out.push({
        ...line,
        note: [`the most expensive of ${choices.length} choices (${choiceName(worst)}); the create makes the first one with capacity`, line.note].filter(Boolean).join('; '),
        choices: instances.map(({ step: _s, choice: c, ...rest }) => ({ choice: c, ...rest })),
      });
    }
  }
  return out.sort((a, b) => a.step - b.step);
}
