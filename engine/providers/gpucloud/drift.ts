/**
 * gpucloud's drift (issue 31 §3): what a plan's gpucloud steps leave behind, compared with what the
 * live project holds now, read with read-only list steps through the executor.
 *
 * The plan is walked in order. A create of a named kind adds a resource the plan owns (type, location,
 * size, image from its body; the status it settles in), and its `produces` bindings point at it; later
 * steps change what is expected of the resource they name (by binding or literal ID): instance actions
 * (start → running, shutdown → offline, delete → gone), volume attach/detach/resize/rename/delete,
 * cluster discontinue, `gpucloud-wait` (its target status), HTTP DELETE. Live records are matched by
 * name (creates) or ID, then compared field by field. A resource still settling (ordered, provisioning)
 * counts as in sync with a note; an instance that ended in no_capacity never ran and is left out.
 */
import { substituteValue } from '../../core/plan/bindings.js';
import type { DriftDifference, DriftEntry } from '../../core/drift-types.js';
import type { CanonicalRequest, PlannedStep, PreviewRead } from '../../core/provider.js';
import { findKind, kindAtPath, listPathOf, type KindSpec } from './catalogue.js';
import { choiceBody } from './failover.js';

type Step = PlannedStep & { produces?: Record<string, string> };
type Rec = Record<string, unknown>;

/** What the plan expects of one resource when it has run. */
interface Desired {
  spec: KindSpec;
  name?: string;
  id?: string;
  step: number;
  /** Field → the values the plan allows (a create with alternatives allows each choice). */
  fields: Map<string, Set<string>>;
  status?: string;
  gone?: boolean;
  /** A volume attached to another desired resource (or to a literal instance ID). */
  attachedTo?: Desired | string | null;
}

/** Kinds whose resources cost money or hold data: what `--all` lists as unowned. */
const ALL_KINDS = ['instances', 'volumes', 'clusters', 'containers', 'jobs'];
/** Statuses on the way to the one expected: in sync, with a note. */
const SETTLING = new Set(['new', 'ordered', 'provisioning', 'validating', 'pending', 'creating', 'attaching', 'detaching', 'cloning', 'restoring', 'starting_hibernation', 'deleting', 'initializing', 'image_pulling', 'version_updating']);
const ACTION_STATUS: Record<string, string | null> = {
  start: 'running',
  boot: 'running',
  restore: 'running',
  shutdown: 'offline',
  force_shutdown: 'offline',
  hibernate: 'hibernating',
  delete: null,
  discontinue: null,
  delete_stuck: null,
};

const PLACEHOLDER = /^<([A-Z][A-Z0-9_]*)>$/;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical body with the predefined values filled in, when it is an object. */
function bodyOf(request: CanonicalRequest | undefined, predefined: Record<string, string>): Rec | undefined {
  const v = substituteValue(request?.body, predefined);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
}

/** The fields compared per kind: plan body field → live record field. */
const FIELDS: Record<string, [string, string, string][]> = {
  instances: [
    ['type', 'instance_type', 'instance_type'],
    ['location', 'location_code', 'location'],
    ['image', 'image', 'image'],
  ],
  clusters: [
    ['type', 'cluster_type', 'cluster_type'],
    ['location', 'location_code', 'location'],
    ['image', 'image', 'image'],
  ],
  volumes: [
    ['type', 'type', 'type'],
    ['location', 'location_code', 'location'],
    ['size', 'size', 'size'],
  ],
};

const SETTLED_STATUS: Record<string, string> = { instances: 'running', clusters: 'running', volumes: 'detached' };

function createdResource(spec: KindSpec, step: Step, body: Rec, predefined: Record<string, string>, byBinding: Map<string, Desired>): Desired {
  const choices = [body, ...(step.alternatives ?? []).map((a) => choiceBody(body, a))];
  const fields = new Map<string, Set<string>>();
  for (const [field, bodyField] of FIELDS[spec.kind] ?? []) {
    const values = new Set(choices.map((c) => str(c[bodyField])).filter((v): v is string => v !== undefined && !v.includes('<') && !(field === 'image' && UUID.test(v))));
    if (values.size) fields.set(field, values);
  }
  const d: Desired = { spec, name: str(body[spec.nameField!]), step: step.index, fields, status: SETTLED_STATUS[spec.kind] };
  if (spec.kind === 'volumes' && body.instance_id !== undefined) {
    d.attachedTo = target(str(body.instance_id), byBinding, predefined) ?? null;
    d.status = 'attached';
  }
  return d;
}

/** The resource a value names: a binding a create produced, or a literal ID. */
function target(value: string | undefined, byBinding: Map<string, Desired>, predefined: Record<string, string>): Desired | string | undefined {
  if (!value) return undefined;
  const m = PLACEHOLDER.exec(value);
  if (!m) return value;
  const bound = byBinding.get(m[1]!) ?? predefined[m[1]!];
  // A predefined value still a placeholder is one not known here (the backend's console has no user config): it names nothing.
  return typeof bound === 'string' && PLACEHOLDER.test(bound) ? undefined : bound;
}

/** The desired resources of a plan's gpucloud steps, in the order the plan first names them. */
export function desiredResources(steps: readonly Step[], predefined: Record<string, string>): Desired[] {
  const out: Desired[] = [];
  const byBinding = new Map<string, Desired>();
  const byId = new Map<string, Desired>();
  const resolve = (spec: KindSpec, value: string | undefined, step: number): Desired | undefined => {
    const t = target(value, byBinding, predefined);
    if (t === undefined) return undefined;
    if (typeof t !== 'string') return t;
    const key = `${spec.kind}:${t}`;
    let d = byId.get(key);
    if (!d) {
      d = { spec, id: t, step, fields: new Map() };
      byId.set(key, d);
      out.push(d);
    }
    return d;
  };
  for (const step of steps) {
    const [verb] = step.args;
    if (verb === 'gpucloud-wait') {
      const spec = findKind(step.args[1] ?? '');
      const d = spec && resolve(spec, step.args[2], step.index);
      if (d && step.args[3]) Object.assign(d, { status: step.args[3], step: step.index });
      continue;
    }
    const request = step.request;
    if (verb !== 'gpucloud-api' || !request) continue;
    const { method, path: clean } = request;
    const spec = kindAtPath(clean);
    if (!spec) continue;
    const body = bodyOf(request, predefined);
    if (step.class.effect === 'create' && spec.nameField && body) {
      // A name bound only at run time (<NAME>) cannot be looked up before the plan runs: not compared.
      if (typeof body[spec.nameField] !== 'string' || (body[spec.nameField] as string).includes('<')) continue;
      const d = createdResource(spec, step, body, predefined, byBinding);
      out.push(d);
      for (const name of Object.keys(step.produces ?? {})) byBinding.set(name, d);
      continue;
    }
    if (method === 'DELETE' && clean.startsWith(`${spec.path}/`)) {
      const d = resolve(spec, clean.slice(spec.path.length + 1).split('/')[0]!, step.index);
      if (d) Object.assign(d, { gone: true, step: step.index });
      continue;
    }
    if (method !== 'PUT' || clean !== spec.path || !body) continue;
    const actions = Array.isArray(body.actions) ? (body.actions as Rec[]) : [body];
    for (const a of actions) {
      const action = str(a.action)?.trim().toLowerCase();
      const ids = Array.isArray(a.id) ? a.id.map(str) : [str(a.id)];
      for (const id of ids) {
        const d = resolve(spec, id, step.index);
        if (!d || !action) continue;
        d.step = step.index;
        if (spec.kind === 'instances' && action in ACTION_STATUS) {
          const status = ACTION_STATUS[action];
          if (status === null) d.gone = true;
          else d.status = status;
        } else if (spec.kind === 'clusters' && (action === 'discontinue' || action === 'delete')) d.gone = true;
        else if (spec.kind === 'volumes') {
          if (action === 'delete') d.gone = true;
          if (action === 'attach') Object.assign(d, { attachedTo: target(str(a.instance_id), byBinding, predefined) ?? null, status: 'attached' });
          if (action === 'detach') Object.assign(d, { attachedTo: null, status: 'detached' });
          if (action === 'resize' && str(a.size)) d.fields.set('size', new Set([str(a.size)!]));
          if (action === 'rename' && str(a.name)) d.name = str(a.name);
        }
      }
    }
  }
  return out;
}

/** Compares the plan's resources with the live lists (read through the executor) and, with `all`, lists the unowned. */
export async function driftGpuCloud(steps: readonly Step[], read: PreviewRead, predefined: Record<string, string>, opts: { all: boolean }): Promise<DriftEntry[]> {
  const desired = desiredResources(steps, predefined);
  const kinds = [...new Set([...desired.map((d) => d.spec.kind), ...(opts.all ? ALL_KINDS : [])])];
  const live = new Map<string, Rec[]>();
  for (const kind of kinds) {
    const spec = findKind(kind)!;
    const data = await read(['gpucloud-api', 'GET', listPathOf(spec)]);
    // An instance that ended in no_capacity never ran and never bills: it is not a resource anyone has.
    live.set(kind, (Array.isArray(data) ? (data as Rec[]) : []).filter((r) => r && typeof r === 'object' && r.status !== 'no_capacity'));
  }
  const matched = new Map<Desired, Rec[]>();
  for (const d of desired) {
    const records = live.get(d.spec.kind) ?? [];
    matched.set(d, d.id !== undefined ? records.filter((r) => str(r[d.spec.idField]) === d.id) : records.filter((r) => d.name !== undefined && r[d.spec.nameField!] === d.name));
  }
  // What a volume should be attached to: a literal ID, the live ID of the plan's instance, or that it is missing.
  const liveIdOf = (t: Desired | string | null | undefined): string | null | undefined =>
    t === null || t === undefined || typeof t === 'string' ? t : (str(matched.get(t)?.[0]?.[t.spec.idField]) ?? `${t.name ?? t.id} (missing)`);
  const entries: DriftEntry[] = desired.map((d) => compare(d, matched.get(d)!, liveIdOf));
  if (opts.all) entries.push(...unowned(matched, live));
  return entries;
}

function compare(d: Desired, records: Rec[], liveIdOf: (t: Desired | string | null | undefined) => string | null | undefined): DriftEntry {
  const base = { provider: 'gpucloud', kind: d.spec.singular, name: d.name ?? (records[0] ? str(records[0][d.spec.nameField ?? 'name']) : undefined), step: d.step };
  const r = records[0];
  if (d.gone) {
    if (!r) return { ...base, id: d.id, state: 'in_sync', differences: [], note: 'deleted by the plan, and gone' };
    return { ...base, id: str(r[d.spec.idField]), state: 'different', differences: [{ field: 'status', plan: 'deleted', live: str(r.status) ?? 'exists' }] };
  }
  if (!r) return { ...base, id: d.id, state: 'missing', differences: [] };
  const differences: DriftDifference[] = [];
  for (const [field, , liveField] of FIELDS[d.spec.kind] ?? []) {
    const want = d.fields.get(field);
    const have = str(r[liveField]);
    if (want && have !== undefined && !want.has(have)) differences.push({ field, plan: [...want].join(' or '), live: have });
  }
  let note: string | undefined;
  const status = str(r.status);
  if (d.status && status && status !== d.status) {
    if (SETTLING.has(status)) note = `still ${status} (the plan leaves it ${d.status})`;
    else differences.push({ field: 'status', plan: d.status, live: status });
  }
  if (d.attachedTo !== undefined && d.spec.kind === 'volumes') {
    const want = liveIdOf(d.attachedTo) ?? null;
    const have = str(r.instance_id) ?? null;
    if (want !== have && !(note && want)) differences.push({ field: 'attached_to', plan: want ?? 'nothing', live: have ?? 'nothing' });
  }
  if (records.length > 1) note = [note, `${records.length} resources carry this name (${records.map((x) => str(x[d.spec.idField])).join(', ')}); compared the first`].filter(Boolean).join('; ');
  return { ...base, id: str(r[d.spec.idField]), state: differences.length ? 'different' : 'in_sync', differences, ...(note ? { note } : {}) };
}

/** Live resources of the billable kinds that no step makes or acts on (the OS and shared volumes of owned ones are theirs). */
function unowned(matched: Map<Desired, Rec[]>, live: Map<string, Rec[]>): DriftEntry[] {
  const owned = new Set<Rec>();
  for (const records of matched.values()) for (const r of records) owned.add(r);
  const sharedOfOwned = new Set([...owned].flatMap((r) => (Array.isArray(r.shared_volumes) ? (r.shared_volumes as Rec[]).map((v) => str(v.id)) : [])));
  const out: DriftEntry[] = [];
  const instanceIds = new Set((live.get('instances') ?? []).map((r) => str(r.id)));
  // An instance's OS volume goes with it: listed with an unowned instance, never on its own.
  const osVolumes = new Map<string, string[]>();
  for (const v of live.get('volumes') ?? []) if (v.is_os_volume === true && instanceIds.has(str(v.instance_id))) osVolumes.set(str(v.instance_id)!, [...(osVolumes.get(str(v.instance_id)!) ?? []), str(v.name) ?? str(v.id)!]);
  for (const kind of ALL_KINDS) {
    const spec = findKind(kind)!;
    for (const r of live.get(kind) ?? []) {
      if (owned.has(r)) continue;
      if (kind === 'volumes' && ((r.is_os_volume === true && instanceIds.has(str(r.instance_id))) || sharedOfOwned.has(str(r.id)))) continue;
      const os = kind === 'instances' ? osVolumes.get(str(r.id)!) : undefined;
      const note = [str(r.status) ? `status ${str(r.status)}` : '', os?.length ? `with its OS volume ${os.join(', ')}` : ''].filter(Boolean).join(', ');
      out.push({ provider: 'gpucloud', kind: spec.singular, name: str(r[spec.nameField ?? 'name']), id: str(r[spec.idField]), state: 'unowned', differences: [], ...(note ? { note } : {}) });
    }
  }
  return out;
}
