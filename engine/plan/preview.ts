import type { Plan } from '../../schemas/plan.js';
import { executorFor } from '../executors/index.js';
import { substituteBody } from './bindings.js';

/** What a dry run shows: each step, what the plan creates and what it costs, availability and the balance. */
export interface PreviewStep {
  index: number;
  request: string;
  body?: unknown;
  reason: string;
  destructive: string[];
}

export interface CostLine {
  step: number;
  kind: 'instance' | 'cluster' | 'volume';
  type: string;
  location?: string;
  /** Spot instances are priced at the spot price. */
  spot?: boolean;
  /** Volumes: the size priced (GB). */
  size_gb?: number;
  /** What a volume belongs to: `OS volume`, `volume "data"`, `shared volume`. */
  part?: string;
  per_hour?: number;
  per_30_days?: number;
  available?: boolean;
  note?: string;
}

export interface Preview {
  steps: PreviewStep[];
  costs: CostLine[];
  total_per_hour: number;
  total_per_30_days: number;
  balance?: { amount: number; currency: string; hours_covered?: number };
  warnings: string[];
}

const HOURS_PER_30_DAYS = 720;

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
  kind: CostLine['kind'];
  type: string;
  location?: string;
  spot?: boolean;
  sizeGb?: number;
  part?: string;
  /** An OS volume without an explicit size: its default depends on this instance type's GPUs. */
  osVolumeOf?: string;
  /** An OS volume of an instance whose image is a UUID: an image ID makes a new OS volume, an existing volume's ID does not. */
  bootRef?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const sizeOf = (v: unknown): number | undefined => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? Number(v) : undefined);

/** Finds what each POST creates, from the parsed body (placeholders already substituted where known). */
function creations(plan: Plan, predefined: Record<string, string>): Creation[] {
  const out: Creation[] = [];
  plan.commands.forEach((c, step) => {
    const [verb, method, path, body] = c.args;
    if (verb !== 'gpucloud-api' || method?.toUpperCase() !== 'POST' || !body) return;
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(substituteBody(body, predefined));
    } catch {
      return;
    }
    const p = (path ?? '').replace(/\/+$/, '');
    const location = typeof b.location_code === 'string' ? b.location_code : undefined;
    if (p === '/v1/instances' && typeof b.instance_type === 'string') {
      const spot = b.is_spot === true || b.contract === 'SPOT';
      out.push({ step, kind: 'instance', type: b.instance_type, location, spot });
      const size = sizeOf(record(b.os_volume)?.size);
      const bootRef = typeof b.image === 'string' && UUID.test(b.image) ? b.image : undefined;
      out.push({ step, kind: 'volume', type: OS_VOLUME_TYPE, location, sizeGb: size, part: 'OS volume', osVolumeOf: size === undefined ? b.instance_type : undefined, bootRef });
      for (const v of Array.isArray(b.volumes) ? b.volumes : []) {
        const vol = record(v);
        if (vol && typeof vol.type === 'string') out.push({ step, kind: 'volume', type: vol.type, location, sizeGb: sizeOf(vol.size), part: `volume "${String(vol.name ?? '')}"` });
      }
    }
    if (p === '/v1/clusters' && typeof b.cluster_type === 'string') {
      out.push({ step, kind: 'cluster', type: b.cluster_type, location });
      const shared = record(b.shared_volume);
      out.push({ step, kind: 'volume', type: CLUSTER_SHARED_VOLUME.type, location, sizeGb: sizeOf(shared?.size) ?? CLUSTER_SHARED_VOLUME.sizeGb, part: 'shared volume' });
    }
    if (p === '/v1/volumes' && typeof b.type === 'string') out.push({ step, kind: 'volume', type: b.type, location, sizeGb: sizeOf(b.size) });
  });
  return out;
}

/** The read-only plan a dry run needs (prices, availability, balance); run through the normal executor. */
export function previewReadPlan(plan: Plan, predefined: Record<string, string>): { readPlan: Plan; keys: string[] } {
  const made = creations(plan, predefined);
  const reads: { key: string; path: string }[] = [{ key: 'balance', path: '/v1/balance' }];
  if (made.some((m) => m.kind === 'instance')) reads.push({ key: 'instance-types', path: '/v1/instance-types' });
  if (made.some((m) => m.kind === 'cluster')) reads.push({ key: 'cluster-types', path: '/v1/cluster-types' });
  if (made.some((m) => m.kind === 'volume')) reads.push({ key: 'volume-types', path: '/v1/volume-types' });
  if (made.some((m) => m.bootRef)) reads.push({ key: 'images', path: '/v1/images' });
  for (const m of made) {
    if (m.kind === 'volume' || !m.location || m.location.includes('<')) continue;
    const base = m.kind === 'instance' ? '/v1/instance-availability/' : '/v1/cluster-availability/';
    const spot = m.spot ? '&is_spot=true' : '';
    reads.push({ key: `avail:${m.step}`, path: `${base}${encodeURIComponent(m.type)}?location_code=${encodeURIComponent(m.location)}${spot}` });
  }
  return {
    readPlan: { version: 1, provider: 'gpucloud', commands: reads.map((r) => ({ args: ['gpucloud-api', 'GET', r.path], reason: `dry run: ${r.key}` })) },
    keys: reads.map((r) => r.key),
  };
}

export function buildPreview(plan: Plan, destructive: string[][], predefined: Record<string, string>, readResults: Record<string, unknown>): Preview {
  const steps: PreviewStep[] = plan.commands.map((c, index) => {
    const executor = executorFor(c.args[0]!)!;
    const args = executor.substitute(c.args, predefined);
    let body: unknown;
    if (c.args[0] === 'gpucloud-api' && args[3] !== undefined) {
      try {
        body = JSON.parse(args[3]);
      } catch {
        body = args[3];
      }
    }
    return { index, request: executor.describe(args), body, reason: c.reason, destructive: destructive[index] ?? [] };
  });

  const find = (list: unknown, field: string, type: string): Record<string, any> | undefined =>
    Array.isArray(list) ? (list as Record<string, unknown>[]).find((r) => r[field] === type) : undefined;
  const num = (v: unknown): number | undefined => {
    const n = Number(v);
    return v !== undefined && v !== null && v !== '' && Number.isFinite(n) ? n : undefined;
  };
  const warnings: string[] = [];
  // Booting from an existing OS volume (its ID in `image`, not an image's) creates no new OS volume.
  const isImageId = (ref: string) => find(readResults.images, 'id', ref) !== undefined;
  const made = creations(plan, predefined).filter((m) => !m.bootRef || isImageId(m.bootRef));
  const costs: CostLine[] = made.map((m) => {
    let perHour: number | undefined;
    let note: string | undefined;
    let sizeGb = m.sizeGb;
    if (m.kind === 'instance') {
      const it = find(readResults['instance-types'], 'instance_type', m.type);
      perHour = num(m.spot ? it?.spot_price : it?.price_per_hour);
    }
    if (m.kind === 'cluster') perHour = num(find(readResults['cluster-types'], 'cluster_type', m.type)?.price_per_hour);
    if (m.kind === 'volume') {
      if (m.osVolumeOf !== undefined) {
        const gpus = num(find(readResults['instance-types'], 'instance_type', m.osVolumeOf)?.gpu?.number_of_gpus) ?? 0;
        sizeGb = gpus > 0 ? OS_VOLUME_GB.gpu : OS_VOLUME_GB.cpu;
      }
      const perGbMonth = num(find(readResults['volume-types'], 'type', m.type)?.price?.price_per_month_per_gb);
      if (perGbMonth !== undefined && sizeGb !== undefined && Number.isFinite(sizeGb)) perHour = (perGbMonth * sizeGb) / HOURS_PER_30_DAYS;
    }
    if (perHour === undefined) {
      note = `no price known for ${m.part ?? m.kind} type ${m.type}`;
      warnings.push(`step ${m.step}: ${note}`);
    }
    const avail = readResults[`avail:${m.step}`];
    const available = m.kind === 'volume' ? undefined : typeof avail === 'boolean' ? avail : avail === 'true' ? true : avail === 'false' ? false : undefined;
    if (available === false) warnings.push(`step ${m.step}: ${m.type}${m.spot ? ' (spot)' : ''} is not available in ${m.location} right now; the create would fail with service_unavailable (try another location)`);
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
    };
  });
  const totalPerHour = costs.reduce((s, c) => s + (c.per_hour ?? 0), 0);
  const bal = readResults.balance as { amount?: unknown; currency?: string } | undefined;
  const amount = Number(bal?.amount);
  let balance: Preview['balance'];
  if (Number.isFinite(amount)) {
    const hours = totalPerHour > 0 ? amount / totalPerHour : undefined;
    balance = { amount, currency: String(bal?.currency ?? 'usd'), hours_covered: hours };
    if (hours !== undefined && hours < 24) {
      warnings.push(`the balance (${amount.toFixed(2)} ${balance.currency.toUpperCase()}) covers only ${hours.toFixed(1)} hours of the new resources; add credit or they may be stopped`);
    }
  }
  return { steps, costs, total_per_hour: totalPerHour, total_per_30_days: totalPerHour * HOURS_PER_30_DAYS, balance, warnings };
}

/** A human rendering of the preview (stdout in table mode). */
export function renderPreview(p: Preview): string {
  const money = (n: number | undefined) => (n === undefined ? '?' : n.toFixed(2));
  const lines: string[] = ['Plan (dry run: only GET requests were sent)'];
  for (const s of p.steps) {
    lines.push(`  ${s.index}. ${s.request}${s.destructive.length ? '   [DESTRUCTIVE: ' + s.destructive.join('; ') + ']' : ''}`);
    lines.push(`     ${s.reason}`);
    if (s.body !== undefined) lines.push(...JSON.stringify(s.body, null, 2).split('\n').map((l) => `       ${l}`));
  }
  if (p.costs.length) {
    lines.push('', 'Creates:');
    for (const c of p.costs) {
      const avail = c.available === undefined ? '' : c.available ? '   available now' : '   NOT AVAILABLE now';
      const what = c.kind === 'volume' ? `${c.part ?? 'volume'} ${c.type} ${c.size_gb ?? '?'} GB` : `${c.kind} ${c.type}${c.spot ? ' (spot)' : ''}`;
      lines.push(`  step ${c.step}: ${what}${c.location ? ` in ${c.location}` : ''}   ${money(c.per_hour)}/hour   ${money(c.per_30_days)}/30 days${avail}`);
    }
    lines.push(`  total: ${money(p.total_per_hour)}/hour, ${money(p.total_per_30_days)}/30 days`);
  }
  if (p.balance) {
    const covered = p.balance.hours_covered === undefined ? '' : ` (covers ${p.balance.hours_covered.toFixed(1)} hours of the new resources)`;
    lines.push(`Balance: ${p.balance.amount.toFixed(2)} ${p.balance.currency.toUpperCase()}${covered}`);
  }
  return lines.join('\n') + '\n';
}
