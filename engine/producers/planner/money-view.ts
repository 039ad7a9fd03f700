/**
 * What the account's resources cost, for the built-in answers: the cost capability's own figures
 * (engine/providers/gpucloud/cost.ts, the ones `cost summary` shows), by resource. A resource's rate is
 * what the burn counts for it: what it bills now, or, for one still ordered or provisioning, what it
 * bills once it runs (the burn and the budget count it already: `committed`). One the burn does not
 * count (hibernated, deleted) has no rate, and says why.
 */
import type { CostResource } from '../../core/capabilities.js';
import { COMMITTED_CLUSTER_STATUSES, COMMITTED_INSTANCE_STATUSES, costSummary, type CostSummary } from '../../providers/gpucloud/cost.js';

/** The catalogue kind of a cost resource ('instance' → 'instances'). */
const KIND_OF: Record<string, string> = { instance: 'instances', volume: 'volumes', cluster: 'clusters' };
export const catalogueKind = (r: Pick<CostResource, 'kind'>): string => KIND_OF[r.kind] ?? `${r.kind}s`;

/** The kinds whose records bill (what a rate, a total or "costs the most" is about). */
export const BILLED_KINDS = ['instances', 'volumes', 'clusters'];

/**
 * `bills`: counted in the burn, as `cost summary` counts it. `committed`: not running yet (ordered,
 * provisioning), counted because it bills once it runs. `bills: false`: not counted (hibernated, …).
 */
export type Rate =
  | { bills: true; per_hour: number; resource: CostResource; committed: boolean }
  | { bills: true; per_hour: null; resource: CostResource; why: string; committed: boolean }
  | { bills: false; status: string };

/** Statuses of a resource counted before it runs (cost.ts): its OS volume, or a cluster's file system, carry them too. */
const COMMITTED: readonly string[] = [...COMMITTED_INSTANCE_STATUSES, ...COMMITTED_CLUSTER_STATUSES];
export const isCommitted = (r: Pick<CostResource, 'status'>): boolean => COMMITTED.includes(r.status);

/** How an answer says a committed resource is counted, beside its rate: "provisioning, counted as it bills once it runs". */
export const committedNote = (status: string): string => `${status}, counted as it bills once it runs`;

export interface MoneyView {
  summary: CostSummary;
  currency: string;
  /** A billed resource's rate (by catalogue kind and ID). */
  rate(kind: string, id: string, status?: unknown): Rate;
}

/** The reads the cost capability prices, by catalogue kind, as the context plan returned them. */
export type ReadsByKind = (kind: string) => unknown;

/**
 * The view, when the reads it needs were made (the cost reads: the volume and cluster types among them),
 * else undefined: then no figure is given that `cost summary` would not give.
 */
export function moneyView(of: ReadsByKind, now: number, read: (kind: string) => boolean): MoneyView | undefined {
  if (!['instances', 'volumes', 'clusters', 'balance', 'instance-types', 'volume-types', 'cluster-types'].every(read)) return undefined;
  const reads = { instances: of('instances'), volumes: of('volumes'), clusters: of('clusters'), balance: of('balance'), instanceTypes: of('instance-types'), volumeTypes: of('volume-types'), clusterTypes: of('cluster-types') };
  // One list: what the burn counts is what `cost summary` lists, provisioning ones included.
  const summary = costSummary(reads, now);
  const key = (kind: string, id: string) => `${kind}/${id}`;
  const counted = new Map(summary.resources.map((r) => [key(catalogueKind(r), r.id), r]));
  return {
    summary,
    currency: summary.currency,
    rate(kind, id, status) {
      const r = counted.get(key(kind, id));
      if (!r) return { bills: false, status: typeof status === 'string' ? status : 'not billing' };
      const committed = isCommitted(r);
      return r.hourly_cost === null ? { bills: true, per_hour: null, resource: r, why: `no price is known for its type ${r.type}`, committed } : { bills: true, per_hour: r.hourly_cost, resource: r, committed };
    },
  };
}
