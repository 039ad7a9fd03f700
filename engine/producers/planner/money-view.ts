/**
 * What the account's resources cost, for the built-in answers: the cost capability's own figures
 * (engine/providers/gpucloud/cost.ts, the ones `cost summary` shows), by resource. A resource's rate is
 * what it bills now; one that does not bill now (provisioning, hibernated) has none, and says why.
 */
import type { CostResource } from '../../core/capabilities.js';
import { billableResources, costSummary, type CostSummary } from '../../providers/gpucloud/cost.js';

/** The catalogue kind of a cost resource ('instance' → 'instances'). */
const KIND_OF: Record<string, string> = { instance: 'instances', volume: 'volumes', cluster: 'clusters' };
export const catalogueKind = (r: Pick<CostResource, 'kind'>): string => KIND_OF[r.kind] ?? `${r.kind}s`;

/** The kinds whose records bill (what a rate, a total or "costs the most" is about). */
export const BILLED_KINDS = ['instances', 'volumes', 'clusters'];

export type Rate =
  | { bills: true; per_hour: number; resource: CostResource }
  | { bills: true; per_hour: null; resource: CostResource; why: string }
  /** Not billing now; `committed`: what it will bill once it runs (provisioning). */
  | { bills: false; status: string; committed?: number };

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
  const summary = costSummary(reads, now);
  const committed = billableResources(reads, now);
  const key = (kind: string, id: string) => `${kind}/${id}`;
  const billing = new Map(summary.resources.map((r) => [key(catalogueKind(r), r.id), r]));
  const soon = new Map(committed.map((r) => [key(catalogueKind(r), r.id), r]));
  return {
    summary,
    currency: summary.currency,
    rate(kind, id, status) {
      const r = billing.get(key(kind, id));
      if (r) return r.hourly_cost === null ? { bills: true, per_hour: null, resource: r, why: `no price is known for its type ${r.type}` } : { bills: true, per_hour: r.hourly_cost, resource: r };
      const later = soon.get(key(kind, id))?.hourly_cost;
      return { bills: false, status: typeof status === 'string' ? status : 'not billing', ...(typeof later === 'number' ? { committed: later } : {}) };
    },
  };
}
