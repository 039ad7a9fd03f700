/**
 * `ask --discovery`: an inventory of the active cloud_a services, counts and names per service and
 * region, from the one catalogue of reads (engine/providers/cloud_a/reads.ts), plus the infrastructure-as-code
 * context (terraform state by type, and drift) when a workspace is selected or configured.
 */
import { AWS_READS } from '../../providers/cloud_a/reads.js';
import type { DriftItem } from '../iac/drift.js';
import { readEach, shortReason, type PlanReader } from '../../providers/cloud_a/read.js';

export interface DiscoveryRow {
  service: string;
  what: string;
  region: string;
  count: number | null;
  names: string[];
  /** Why the service could not be read (not enabled, no permission…). */
  error?: string;
}

export interface IacContext {
  workspace: string;
  path: string;
  resources: number;
  by_type: Record<string, number>;
  drift: DriftItem[];
  drift_checked: string[];
  /** Why the configured default workspace could not be read (the inventory stands without it). */
  error?: string;
}

export interface DiscoveryReport {
  report: 'discovery';
  region: string;
  /** Services with at least one resource. */
  active: string[];
  services: DiscoveryRow[];
  iac?: IacContext;
}

export async function discoveryReport(read: PlanReader, opts: { region: string; iac?: IacContext }): Promise<DiscoveryReport> {
  const outcomes = await readEach(read, AWS_READS.map((s) => s.args), 'discovery (read only)');
  const services = AWS_READS.map((spec, i): DiscoveryRow => {
    const o = outcomes[i]!;
    const region = spec.global ? 'global' : opts.region;
    if (!o.ok) return { service: spec.service, what: spec.label, region, count: null, names: [], error: shortReason(o) };
    const names = spec.records(o.data).map((r) => r.name);
    return { service: spec.service, what: spec.label, region, count: names.length, names };
  });
  return { report: 'discovery', region: opts.region, active: services.filter((s) => (s.count ?? 0) > 0).map((s) => s.service), services, ...(opts.iac ? { iac: opts.iac } : {}) };
}
