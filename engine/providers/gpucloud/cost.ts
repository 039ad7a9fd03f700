/**
 * What the gpucloud account costs now: every billable resource with its hourly price, the burn, the
 * balance and the runway. `accountCost` is the one function behind `cost summary` (the `cost`
 * capability) and the budget guard's current burn (the provider's `burn` hook): the same reads through
 * the executor, the same pricing, one number (issue 35 §3).
 *
 * Billing rules (wire reference): an instance bills while `running` and while `offline` ("shutdown keeps
 * billing; only delete stops it"); one still ordered or provisioning is counted too, since it bills as
 * soon as it runs (with the OS volume it will get). A cluster bills while `running` (and is counted while
still provisioning, with its shared file system). A volume bills by
 * size and type whether attached or not, until it is deleted. An Instant Cluster's shared file system is
 * a volume priced as `NVMe_Shared` (unless it is also in /v1/volumes). A serverless container or job
 * deployment that is not paused is counted at the most replicas it may run (compute price × units ×
 * `max_replica_count`): that is what it can bill, and what the budget must allow for.
 */
import type { CapabilityRead, CostResource as GenericCostResource, CostSummary as GenericCostSummary } from '../../core/capabilities.js';
import type { Burn, PreviewRead } from '../../core/provider.js';
import type { HibernationPeriod, HibernationSaving, HibernationSavings } from '../../core/kits/autostop/hibernation-periods.js';
import { findKind } from './catalogue.js';
import { COST_READ_KINDS, costReadPlan } from './static-plans.js';
import { ownTags, type Tags, type TagSource } from './tags.js';
import { clusterTypePerHour, deploymentPerHour, deploymentSize, findRow, HOURS_PER_30_DAYS, instanceTypePerHour, num, volumePerHour } from './prices.js';

export const BILLABLE_INSTANCE_STATUSES = ['running', 'offline'] as const;
/** Instances on their way to running: not billed yet, but counted (they will be within minutes). */
export const COMMITTED_INSTANCE_STATUSES = ['ordered', 'new', 'validating', 'provisioning'] as const;
export const BILLABLE_CLUSTER_STATUSES = ['running'] as const;
/** Clusters on their way to running: counted like provisioning instances (they bill as soon as they run). */
export const COMMITTED_CLUSTER_STATUSES = ['ordered', 'new', 'validating', 'provisioning'] as const;
const CLUSTER_SHARED_TYPE = 'NVMe_Shared';

export const COST_BASIS =
  'live prices from the gpucloud catalogue (instances at their contract price, spot instances at the current spot price, volumes at the per-GB monthly price / 720 h, clusters at their hourly price, serverless deployments at their compute price × units × most replicas unless paused); offline (shut-down) instances still bill, provisioning ones are counted; cost so far assumes the current price since creation';

/** A gpucloud resource priced: the contract's CostResource (engine/core/capabilities.ts) with gpucloud's kinds. */
export type CostResource = GenericCostResource & { kind: 'instance' | 'volume' | 'cluster' | 'container' | 'job'; tags?: Tags; tag_from?: TagSource };

/** A serverless deployment as the burn sees it: its record (with its scaling) and its status, where read. */
export interface DeploymentState {
  kind: 'container' | 'job';
  record: Record<string, any>;
  status?: string;
}

export interface CostReads {
  instances: unknown;
  volumes: unknown;
  clusters: unknown;
  balance: unknown;
  instanceTypes: unknown;
  volumeTypes: unknown;
  clusterTypes: unknown;
  containerTypes?: unknown;
  /** Container and job deployments, with what was read of each (absent: not read, e.g. a question's context). */
  deployments?: DeploymentState[];
}

/** What the account costs now (engine/core/capabilities.ts CostSummary) with gpucloud's resources. */
export type CostSummary = GenericCostSummary & { resources: CostResource[] };

const list = (v: unknown): Record<string, any>[] => (Array.isArray(v) ? (v as Record<string, any>[]) : []);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : v === undefined || v === null ? fallback : String(v));

function withAge(r: CostResource, now: number): CostResource {
  const created = r.created_at ? Date.parse(r.created_at) : NaN;
  if (!Number.isFinite(created)) return r;
  const hours = Math.max(0, (now - created) / 3_600_000);
  return { ...r, hours_running: hours, cost_so_far: r.hourly_cost === null ? null : r.hourly_cost * hours };
}

const tagged = (t: { tags: Tags; source?: TagSource }) => (t.source ? { tags: t.tags, tag_from: t.source } : {});

/** Every billable resource of the account, priced (instances still provisioning included: they bill as soon as they run). */
export function billableResources(reads: CostReads, now: number): CostResource[] {
  const committedOsVolumes: CostResource[] = [];
  const statuses: readonly string[] = [...BILLABLE_INSTANCE_STATUSES, ...COMMITTED_INSTANCE_STATUSES];
  const out: CostResource[] = [];
  // Volumes without tags of their own inherit their instance's (engine/producers/cost/tags.ts).
  const instanceTags = new Map(list(reads.instances).map((i) => [str(i.id), ownTags(i)] as const));
  for (const i of list(reads.instances)) {
    const status = str(i.status);
    if (!statuses.includes(status)) continue;
    const spot = i.is_spot === true || i.contract === 'SPOT';
    const type = str(i.instance_type);
    // Spot prices move: the current one. Otherwise the price the instance was contracted at, else the list price.
    const hourly = spot ? (instanceTypePerHour(reads.instanceTypes, type, true) ?? num(i.price_per_hour)) : (num(i.price_per_hour) ?? instanceTypePerHour(reads.instanceTypes, type, false));
    const gpus = num(i.gpu?.number_of_gpus) ?? num(findRow(reads.instanceTypes, 'instance_type', type)?.gpu?.number_of_gpus);
    out.push({ kind: 'instance', id: str(i.id), name: str(i.hostname, str(i.id)), type, status, ...(spot ? { spot: true } : {}), ...(gpus !== undefined ? { gpus } : {}), hourly_cost: hourly ?? null, created_at: str(i.created_at) || undefined, ...tagged(instanceTags.get(str(i.id))!) });
  }
  const volumeIds = new Set<string>();
  const listedVolumes = new Set(list(reads.volumes).map((v) => str(v.id)));
  // An instance still provisioning has no OS volume listed yet (os_volume_id is null until then): it
  // will, at the API's default size (100 GB with GPUs, 50 GB without).
  for (const r of out) {
    const rec = list(reads.instances).find((i) => str(i.id) === r.id);
    if (!rec || !(COMMITTED_INSTANCE_STATUSES as readonly string[]).includes(r.status) || (rec.os_volume_id && listedVolumes.has(str(rec.os_volume_id)))) continue;
    const size = (r.gpus ?? 0) > 0 ? 100 : 50;
    committedOsVolumes.push({ kind: 'volume', id: `${r.id}/os`, name: `OS volume of ${r.name} (provisioning)`, type: 'NVMe', status: r.status, size_gb: size, hourly_cost: volumePerHour(reads.volumeTypes, 'NVMe', size) ?? null });
  }
  for (const v of list(reads.volumes)) {
    if (v.deleted_at || v.status === 'deleted') continue;
    volumeIds.add(str(v.id));
    const size = num(v.size);
    const own = ownTags(v);
    const inherited = !own.source && v.instance_id ? instanceTags.get(str(v.instance_id)) : undefined;
    const tags = inherited?.source ? { tags: inherited.tags, source: 'instance' as const } : own;
    out.push({ kind: 'volume', id: str(v.id), name: str(v.name, str(v.id)), type: str(v.type), status: str(v.status), size_gb: size, hourly_cost: volumePerHour(reads.volumeTypes, str(v.type), size) ?? null, created_at: str(v.created_at) || undefined, ...tagged(tags) });
  }
  for (const c of list(reads.clusters)) {
    const status = str(c.status);
    if (![...BILLABLE_CLUSTER_STATUSES, ...COMMITTED_CLUSTER_STATUSES].includes(status as never)) continue;
    const type = str(c.cluster_type);
    const name = str(c.hostname, str(c.id));
    const own = ownTags(c);
    out.push({ kind: 'cluster', id: str(c.id), name, type, status, hourly_cost: num(c.price_per_hour) ?? clusterTypePerHour(reads.clusterTypes, type) ?? null, created_at: str(c.created_at) || undefined, ...tagged(own) });
    for (const s of list(c.shared_volumes)) {
      if (volumeIds.has(str(s.id))) continue;
      const size = num(s.size_in_gigabytes);
      out.push({ kind: 'volume', id: str(s.id), name: `${str(s.name, 'shared')} (of cluster ${name})`, type: CLUSTER_SHARED_TYPE, status, size_gb: size, hourly_cost: volumePerHour(reads.volumeTypes, CLUSTER_SHARED_TYPE, size) ?? null, created_at: str(c.created_at) || undefined, ...tagged(own.source ? { tags: own.tags, source: 'cluster' } : own) });
    }
  }
  return [...out, ...committedOsVolumes, ...deploymentResources(reads)].map((r) => withAge(r, now));
}

/** Serverless deployments that are not paused, at the most replicas they may run. */
function deploymentResources(reads: CostReads): CostResource[] {
  const out: CostResource[] = [];
  for (const d of reads.deployments ?? []) {
    if (d.status === 'paused') continue;
    const name = str(d.record.name);
    const size = deploymentSize(d.kind === 'job' ? { ...d.record, is_spot: undefined } : d.record);
    const base = { kind: d.kind, id: name, name, status: d.status ?? 'unknown', created_at: str(d.record.created_at) || undefined };
    if ('why' in size) {
      out.push({ ...base, type: str(d.record.compute?.name, '?'), hourly_cost: null });
      continue;
    }
    out.push({ ...base, type: `${size.compute} x${size.size}`, ...(size.spot ? { spot: true } : {}), replicas: size.max, hourly_cost: deploymentPerHour(reads.containerTypes, size) ?? null });
  }
  return out;
}

/** The totals: burn, 30-day forecast, balance and runway. */
export function costSummary(reads: CostReads, now: number): CostSummary {
  const resources = billableResources(reads, now);
  const hourly = resources.reduce((s, r) => s + (r.hourly_cost ?? 0), 0);
  const bal = reads.balance as { amount?: unknown; currency?: unknown } | undefined;
  const balance = num(bal?.amount) ?? null;
  const runway = balance !== null && hourly > 0 ? Math.max(0, balance) / hourly : null;
  return {
    provider: 'gpucloud',
    currency: str(bal?.currency, 'usd').toLowerCase(),
    as_of: new Date(now).toISOString(),
    based_on: COST_BASIS,
    hourly_cost: hourly,
    daily_cost: hourly * 24,
    monthly_forecast: hourly * HOURS_PER_30_DAYS,
    balance,
    runway_hours: runway,
    runway_until: runway === null ? null : new Date(now + runway * 3_600_000).toISOString(),
    resources,
    unpriced: resources.filter((r) => r.hourly_cost === null).map((r) => `${r.kind} ${r.name}: no price for type ${r.type}`),
  };
}

/** The cost read plan's responses (COST_READ_KINDS order) as costSummary takes them. */
function costReads(results: readonly unknown[]): CostReads {
  const [instances, volumes, clusters, balance, instanceTypes, volumeTypes, clusterTypes] = results;
  return { instances, volumes, clusters, balance, instanceTypes, volumeTypes, clusterTypes };
}

const costReadCommands = () => costReadPlan(COST_READ_KINDS.map((k) => findKind(k)!));
const DEPLOYMENT_LISTS = [
  { kind: 'container' as const, path: '/v1/container-deployments' },
  { kind: 'job' as const, path: '/v1/job-deployments' },
];

/** Reads paths through the executor: all at once (one read plan), and one at a time (a failure is that path's). */
export interface CostReader {
  all(paths: string[]): Promise<unknown[]>;
  one(path: string): Promise<unknown>;
}

/**
 * What the account costs now, read through `reader` and priced at `now`: the one function behind
 * `cost summary` and the budget's burn. Besides the lists, each deployment's status is read (a paused
 * one bills nothing), and each job deployment's record (the list has no scaling).
 */
export async function accountCost(reader: CostReader, now: number): Promise<CostSummary> {
  const reads = costReads(await reader.all(costReadCommands().commands.map((c) => c.args[2]!)));
  const lists = await reader.all(DEPLOYMENT_LISTS.map((d) => d.path));
  const deployments: DeploymentState[] = [];
  for (const [i, { kind, path }] of DEPLOYMENT_LISTS.entries()) {
    for (const listed of list(lists[i])) {
      const name = str(listed?.name);
      if (!name) continue;
      const at = `${path}/${encodeURIComponent(name)}`;
      // A deployment deleted between the list and these reads is gone; any other failure leaves it counted.
      const gone = (err: unknown) => (err as { status?: number })?.status === 404;
      let record: Record<string, any> | undefined = listed;
      if (kind === 'job' || !listed.scaling) record = await reader.one(at).then((r) => r as Record<string, any>, (err) => (gone(err) ? undefined : listed));
      if (!record) continue;
      const status = await reader.one(`${at}/status`).then((r) => str((r as { status?: unknown })?.status) || undefined, (err) => (gone(err) ? 'gone' : undefined));
      if (status === 'gone') continue;
      deployments.push({ kind, record: { ...listed, ...record }, status });
    }
  }
  // The serverless prices only when something serverless may bill.
  const containerTypes = deployments.length ? (await reader.all(['/v1/container-types']))[0] : undefined;
  return costSummary({ ...reads, containerTypes, deployments }, now);
}

/** gpucloud's live cost (its `cost` capability, engine/providers/gpucloud/cost-capability.ts), read through the executor (`read`). */
export async function priceGpuCloud(read: CapabilityRead, now: number): Promise<CostSummary> {
  const plan = (paths: string[]) => ({ version: 1 as const, provider: 'gpucloud', commands: paths.map((p) => ({ args: ['gpucloud-api', 'GET', p], reason: `cost: read ${p}` })) });
  return accountCost({ all: (paths) => read(plan(paths)), one: async (path) => (await read(plan([path])))[0] }, now);
}

/**
 * The provider hook `burn` (engine/core/provider.ts): `accountCost`, read through the preview's read
 * function (the executor), so the budget starts from the figure `cost summary` shows.
 */
export async function burnGpuCloud(read: PreviewRead): Promise<Burn> {
  const one = (path: string) => read(['gpucloud-api', 'GET', path]);
  const s = await accountCost({ all: async (paths) => { const out: unknown[] = []; for (const p of paths) out.push(await one(p)); return out; }, one }, Date.now());
  return { per_hour: s.hourly_cost, currency: s.currency, unpriced: s.unpriced };
}

/**
 * What auto-stop's hibernations saved: each period's hours at the machine's price (a hibernated machine
 * does not bill; its volumes still do and are in the burn), and what the ones still hibernated save per
 * hour now. `instances` and `volumes` are the account's lists, read now. An instance is still hibernated
 * while it is listed so, or, where the API deleted it to hibernate it, while it is not listed and its OS
 * volume is, detached.
 */
export function hibernationSavings(periods: readonly HibernationPeriod[], instances: unknown, volumes: unknown, now: number): HibernationSavings {
  const statusOf = new Map(list(instances).map((i) => [str(i.id), str(i.status)] as const));
  const detached = new Set(list(volumes).filter((v) => str(v.status) === 'detached' && !v.deleted_at).map((v) => str(v.id)));
  const hibernated = new Set(['starting_hibernation', 'hibernating']);
  const out = periods.map((p): HibernationSaving => {
    const status = statusOf.get(p.id);
    const still = p.restored_at === undefined && (status === undefined ? p.os_volume_id !== undefined && detached.has(p.os_volume_id) : hibernated.has(status));
    const end = p.restored_at ?? (still ? now : p.seen_until);
    const hours = Math.max(0, end - p.from) / 3_600_000;
    return {
      id: p.id,
      name: p.name,
      type: p.type,
      hibernated_at: new Date(p.from).toISOString(),
      until: new Date(end).toISOString(),
      still_hibernated: still,
      hours,
      price_per_hour: p.price_per_hour,
      saved: p.price_per_hour === null ? null : p.price_per_hour * hours,
    };
  });
  return {
    periods: out,
    total: out.reduce((s, p) => s + (p.saved ?? 0), 0),
    per_hour_now: out.filter((p) => p.still_hibernated).reduce((s, p) => s + (p.price_per_hour ?? 0), 0),
  };
}
