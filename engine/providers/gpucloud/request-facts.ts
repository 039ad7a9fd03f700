/**
 * What a gpucloud change step asks for, read from its canonical request (never from the plan's words):
 * the lines a person is shown before consenting (kind, type, size, count or replicas), the type names
 * and sizes it asks for, and the catalogue's type names of the same kinds, so the core can flag a plan
 * `reason` that names another type or size than the body (engine/core/plan/consent.ts).
 */
import { substituteValue } from '../../core/plan/bindings.js';
import type { PlannedStep, RequestFacts } from '../../core/provider.js';
import { list, record, type PriceReads, type Rec } from './price-reads.js';
import { choiceBody } from './failover.js';
import { CLUSTER_SHARED_VOLUME, OS_VOLUME_GB, OS_VOLUME_TYPE } from './price-creates.js';
import { segmentsOf } from './request.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const gb = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const names = (rows: unknown, field: string) => list(rows).map((r) => r?.[field]).filter((v): v is string => typeof v === 'string');

/** The IDs an action names. */
const ids = (v: unknown) => (Array.isArray(v) ? v : [v]).map((x) => String(x)).join(', ');

export async function requestFacts(step: PlannedStep, predefined: Record<string, string>, reads: PriceReads): Promise<RequestFacts> {
  const req = step.request!;
  const body = (record(substituteValue(req.body, predefined)) ?? {}) as Rec;
  const facts: RequestFacts = { lines: [], types: [], known_types: [], sizes_gb: [], counts: [] };
  const segments = segmentsOf(req);
  const route = `${req.method} ${req.route}`;
  const where = str(body.location_code) ? ` in ${str(body.location_code)}` : '';
  switch (route) {
    case 'POST /v1/instances': {
      const choices: Rec[] = [body, ...(step.alternatives ?? []).map((a) => choiceBody(body, a))];
      for (const c of choices) {
        const spot = c.is_spot === true || c.contract === 'SPOT';
        facts.lines.push(`instance ${str(c.instance_type) ?? '(no type)'}${str(c.location_code) ? ` in ${str(c.location_code)}` : ''}${spot ? ' (spot)' : ''}${c === body ? '' : ' (alternative)'}`);
        if (str(c.instance_type)) facts.types.push(str(c.instance_type)!);
      }
      if (str(body.hostname)) facts.lines.push(`hostname ${str(body.hostname)}`);
      const os = record(body.os_volume);
      const types = await reads.instanceTypes();
      const gpus = Number(list(types).find((t) => t?.instance_type === body.instance_type)?.gpu?.number_of_gpus ?? 0);
      const osGb = gb(os?.size) ?? (gpus > 0 ? OS_VOLUME_GB.gpu : OS_VOLUME_GB.cpu);
      facts.lines.push(`OS volume ${osGb} GB${gb(os?.size) === undefined ? ' (the default)' : ''}`);
      facts.types.push(OS_VOLUME_TYPE);
      facts.sizes_gb.push(osGb);
      for (const v of list(body.volumes)) {
        facts.lines.push(`volume "${str(v?.name) ?? ''}" ${str(v?.type) ?? '(no type)'} ${gb(v?.size) ?? '?'} GB`);
        if (gb(v?.size) !== undefined) facts.sizes_gb.push(gb(v?.size)!);
        if (str(v?.type)) facts.types.push(str(v?.type)!);
      }
      facts.counts.push(1);
      facts.known_types.push(...names(await reads.instanceTypes(), 'instance_type'), ...names(await reads.volumeTypes(), 'type'));
      break;
    }
    case 'POST /v1/clusters': {
      facts.lines.push(`cluster ${str(body.cluster_type) ?? '(no type)'}${where}`);
      if (str(body.cluster_type)) facts.types.push(str(body.cluster_type)!);
      if (str(body.hostname)) facts.lines.push(`hostname ${str(body.hostname)}`);
      const shared = gb(record(body.shared_volume)?.size);
      facts.lines.push(`shared volume ${shared ?? CLUSTER_SHARED_VOLUME.sizeGb} GB${shared === undefined ? ' (the default)' : ''}`);
      facts.sizes_gb.push(shared ?? CLUSTER_SHARED_VOLUME.sizeGb);
      facts.known_types.push(...names(await reads.clusterTypes(), 'cluster_type'));
      break;
    }
    case 'POST /v1/volumes': {
      facts.lines.push(`volume "${str(body.name) ?? ''}" ${str(body.type) ?? '(no type)'} ${gb(body.size) ?? '?'} GB${where}`);
      if (str(body.type)) facts.types.push(str(body.type)!);
      if (gb(body.size) !== undefined) facts.sizes_gb.push(gb(body.size)!);
      facts.known_types.push(...names(await reads.volumeTypes(), 'type'));
      break;
    }
    case 'POST /v1/container-deployments':
    case 'POST /v1/job-deployments':
    case 'PATCH /v1/container-deployments/{name}':
    case 'PATCH /v1/job-deployments/{name}':
    case 'PATCH /v1/container-deployments/{name}/scaling':
    case 'PATCH /v1/job-deployments/{name}/scaling': {
      const kind = segments[1] === 'job-deployments' ? 'job' : 'container';
      const name = req.method === 'POST' ? str(body.name) : segments[2];
      const scaling = req.route.endsWith('/scaling') ? body : record(body.scaling);
      const compute = record(body.compute);
      const parts = [
        compute ? `compute ${str(compute.name) ?? '?'} × ${str(compute.size) ?? '?'} unit(s) per replica` : '',
        scaling && scaling.max_replica_count !== undefined ? `${scaling.min_replica_count === undefined ? 'up' : str(scaling.min_replica_count)} to ${str(scaling.max_replica_count)} replicas` : '',
        scaling && scaling.max_replica_count === undefined && scaling.min_replica_count !== undefined ? `at least ${str(scaling.min_replica_count)} replicas` : '',
        body.is_spot === true ? 'spot' : body.is_spot === false ? 'not spot' : '',
      ].filter(Boolean);
      facts.lines.push(`${req.method === 'POST' ? '' : `${req.route.endsWith('/scaling') ? 'scaling of ' : 'change to '}`}${kind} deployment "${name ?? '?'}": ${parts.join(', ') || 'nothing that bills'}`);
      if (str(compute?.name)) facts.types.push(str(compute!.name)!);
      for (const n of [scaling?.min_replica_count, scaling?.max_replica_count]) if (typeof n === 'number') facts.counts.push(n);
      facts.known_types.push(...names(await reads.containerTypes(), 'name'));
      break;
    }
    case 'PUT /v1/instances':
    case 'POST /v1/instances/action':
    case 'PUT /v1/volumes':
      facts.lines.push(`${str(body.action) ?? '(no action)'} ${segments[1] === 'volumes' ? 'volume' : 'instance'} ${ids(body.id)}${gb(body.size) !== undefined ? ` to ${gb(body.size)} GB` : ''}`);
      if (gb(body.size) !== undefined) facts.sizes_gb.push(gb(body.size)!);
      break;
    case 'PUT /v1/clusters':
      for (const a of Array.isArray(body.actions) ? body.actions : [body]) facts.lines.push(`${str(record(a)?.action) ?? '(no action)'} cluster ${ids(record(a)?.id)}`);
      break;
    default:
      facts.lines.push(req.method === 'DELETE' ? `delete ${req.path}` : `${req.method} ${req.route}`);
  }
  facts.known_types = [...new Set(facts.known_types)];
  return facts;
}
