/**
 * What a gpucloud change that is not a plain create costs: the difference it makes to what bills,
 * read from what exists now (through the executor). Instance actions that start an instance that does
 * not bill (restore from hibernation, start or boot of one that is not running or offline) add its
 * price; volume resizes add the GB they grow by, clones a new volume, a restore from the trash the
 * volume again; a deployment's PATCH, its `/scaling` PATCH and `resume` add the difference between
 * its price after (compute price × units × most replicas) and before. What cannot be read is unpriced.
 */
import type { ChangePrice, CostLine } from '../../core/provider.js';
import { BILLABLE_INSTANCE_STATUSES, COMMITTED_INSTANCE_STATUSES } from './cost.js';
import { line } from './price-creates.js';
import { list, record, type PriceReads, type Rec } from './price-reads.js';
import { deploymentPerHour, deploymentSize, instanceTypePerHour, num, volumePerHour, type DeploymentSize } from './prices.js';

const BILLING = new Set<string>([...BILLABLE_INSTANCE_STATUSES, ...COMMITTED_INSTANCE_STATUSES]);

/** Instance actions that stop or end billing, or change nothing that bills. */
const FREE_INSTANCE_ACTIONS = new Set(['shutdown', 'force_shutdown', 'delete', 'discontinue', 'delete_stuck', 'hibernate']);
/** Instance actions that make an instance run (and bill) again. */
const STARTING_INSTANCE_ACTIONS = new Set(['start', 'boot', 'restore']);
const FREE_VOLUME_ACTIONS = new Set(['attach', 'detach', 'rename', 'delete']);

export const free = (why: string): ChangePrice => ({ price: 'free', why });
export const unpriced = (why: string): ChangePrice => ({ price: 'unpriced', why });

/** The IDs an action names (`id` is a string or a list). */
function idsOf(id: unknown): unknown[] {
  return Array.isArray(id) ? id : [id];
}

/** Adds up per-resource answers: one unpriced part makes the step unpriced; nothing priced is free. */
export function combine(parts: ChangePrice[], freeWhy: string): ChangePrice {
  const bad = parts.filter((p): p is Extract<ChangePrice, { price: 'unpriced' }> => p.price === 'unpriced');
  if (bad.length) return unpriced(bad.map((p) => p.why).join('; '));
  const priced = parts.filter((p): p is Extract<ChangePrice, { price: 'priced' }> => p.price === 'priced');
  if (!priced.length) return free(freeWhy);
  return { price: 'priced', per_hour: priced.reduce((s, p) => s + p.per_hour, 0), lines: priced.flatMap((p) => p.lines) };
}

/** `PUT /v1/instances` (and the deprecated `POST /v1/instances/action`): one answer per action and ID. */
export async function priceInstanceAction(step: number, body: Rec, reads: PriceReads): Promise<ChangePrice> {
  const action = typeof body.action === 'string' ? body.action.trim().toLowerCase() : undefined;
  if (action === undefined) return unpriced(`the instance action is ${JSON.stringify(body.action)}`);
  if (FREE_INSTANCE_ACTIONS.has(action)) return free(`instance ${action}: stops or ends what bills`);
  if (!STARTING_INSTANCE_ACTIONS.has(action)) return unpriced(`gpucloud does not know what the instance action "${action}" costs`);
  const parts: ChangePrice[] = [];
  for (const id of idsOf(body.id)) {
    const found = await reads.find('/v1/instances', id, 'instance');
    if (!found.ok) {
      parts.push(unpriced(`${action}: ${found.why}`));
      continue;
    }
    const i = found.record;
    if (BILLING.has(String(i.status))) {
      parts.push(free(`instance ${String(i.hostname ?? id)} is ${String(i.status)} and bills already`));
      continue;
    }
    const spot = i.is_spot === true || i.contract === 'SPOT';
    const perHour = num(i.price_per_hour) ?? instanceTypePerHour(await reads.instanceTypes(), String(i.instance_type), spot);
    if (perHour === undefined) parts.push(unpriced(`${action} of instance ${String(id)}: no price for ${String(i.instance_type)}`));
    else parts.push({ price: 'priced', per_hour: perHour, lines: [line({ step, kind: 'instance', type: String(i.instance_type), ...(spot ? { spot: true } : {}), part: `${action} of instance ${String(i.hostname ?? id)} (${String(i.status)})`, per_hour: perHour })] });
  }
  return combine(parts, `instance ${action}: the instances bill already`);
}

/** `PUT /v1/volumes`: resize and clone from the volume as it is, restore from the trash. */
export async function priceVolumeAction(step: number, body: Rec, reads: PriceReads): Promise<ChangePrice> {
  const action = typeof body.action === 'string' ? body.action.trim().toLowerCase() : undefined;
  if (action === undefined) return unpriced(`the volume action is ${JSON.stringify(body.action)}`);
  if (FREE_VOLUME_ACTIONS.has(action)) return free(`volume ${action}: adds nothing that bills`);
  if (action !== 'resize' && action !== 'clone' && action !== 'restore') return unpriced(`gpucloud does not know what the volume action "${action}" costs`);
  const volumeTypes = await reads.volumeTypes();
  const parts: ChangePrice[] = [];
  for (const id of idsOf(body.id)) {
    const found = await reads.find(action === 'restore' ? '/v1/volumes/trash' : '/v1/volumes', id, action === 'restore' ? 'volume in the trash' : 'volume');
    if (!found.ok) {
      parts.push(unpriced(`${action}: ${found.why}`));
      continue;
    }
    const v = found.record;
    const current = num(v.size);
    const currentType = typeof v.type === 'string' ? v.type : undefined;
    const location = typeof v.location === 'string' ? v.location : undefined;
    if (current === undefined || currentType === undefined) {
      parts.push(unpriced(`${action} of volume ${String(id)}: its size or type is not known`));
      continue;
    }
    if (action === 'resize') {
      const size = body.size;
      if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
        parts.push(unpriced(`resize of volume ${String(id)}: size is ${JSON.stringify(size)}, not a whole number of GB`));
        continue;
      }
      const grows = size - current;
      const perHour = volumePerHour(volumeTypes, currentType, Math.abs(grows));
      if (perHour === undefined) parts.push(unpriced(`resize of volume ${String(id)}: no price for volume type ${currentType}`));
      else parts.push({ price: 'priced', per_hour: Math.sign(grows) * perHour, lines: [line({ step, kind: 'volume', type: currentType, location, size_gb: grows, part: `resize of volume ${String(id)} to ${size} GB (${grows >= 0 ? '+' : ''}${grows} GB)`, per_hour: Math.sign(grows) * perHour })] });
      continue;
    }
    // A clone is a new volume of the source's size, of the type asked for (else the source's); a
    // restore makes a trashed volume bill again.
    const type = action === 'clone' && body.type !== undefined ? body.type : currentType;
    if (typeof type !== 'string') {
      parts.push(unpriced(`clone of volume ${String(id)}: type is ${JSON.stringify(type)}`));
      continue;
    }
    const perHour = volumePerHour(volumeTypes, type, current);
    if (perHour === undefined) parts.push(unpriced(`${action} of volume ${String(id)}: no price for volume type ${type}`));
    else parts.push({ price: 'priced', per_hour: perHour, lines: [line({ step, kind: 'volume', type, location, size_gb: current, part: `${action} of volume ${String(id)}`, per_hour: perHour })] });
  }
  return combine(parts, `volume ${action}`);
}

/** `PUT /v1/clusters`: discontinuing ends what bills; any other action is not known. */
export function priceClusterAction(body: Rec): ChangePrice {
  const actions = Array.isArray(body.actions) ? body.actions.map((a) => record(a)?.action) : [body.action];
  if (!actions.length) return unpriced('the cluster action names no action');
  for (const a of actions) {
    const action = typeof a === 'string' ? a.trim().toLowerCase() : undefined;
    if (action !== 'discontinue' && action !== 'delete') return unpriced(`gpucloud does not know what the cluster action ${JSON.stringify(a)} costs`);
  }
  return free('cluster discontinue: ends what bills');
}

// ------------------------------------------------------------------------------------ deployments

export type DeploymentKind = 'container' | 'job';
const BASE: Record<DeploymentKind, string> = { container: '/v1/container-deployments', job: '/v1/job-deployments' };

/** A deployment's price line at its most replicas (`part` for a change to one that exists). */
export function deploymentLine(step: number, kind: DeploymentKind, d: DeploymentSize, perHour: number | undefined, part?: string): CostLine {
  const note = `${d.size} compute unit(s) per replica, ${d.min ?? 0} to ${d.max} replicas; priced with ${d.max} running`;
  return line({ step, kind, type: d.compute, ...(d.spot ? { spot: true } : {}), count: d.max, ...(part ? { part } : {}), per_hour: perHour, note });
}

/** A deployment create: compute price × units × most replicas (jobs have no spot). */
export async function priceDeploymentCreate(step: number, kind: DeploymentKind, body: Rec, reads: PriceReads): Promise<ChangePrice> {
  const size = deploymentSize(kind === 'job' ? { ...body, is_spot: undefined } : body);
  const name = String(body.name ?? '?');
  if ('why' in size) return unpriced(`${kind} deployment "${name}": ${size.why}`);
  const perHour = deploymentPerHour(await reads.containerTypes(), size);
  if (perHour === undefined) return unpriced(`${kind} deployment "${name}": no ${size.spot ? 'spot ' : ''}price for compute ${size.compute}`);
  return { price: 'priced', per_hour: perHour, lines: [deploymentLine(step, kind, size, perHour)] };
}

/** The deployment as it is now (its record, and whether it runs), or why it cannot be read. */
async function existing(kind: DeploymentKind, name: string, reads: PriceReads): Promise<{ record: Rec; paused: boolean } | { why: string }> {
  const path = `${BASE[kind]}/${encodeURIComponent(name)}`;
  const found = await reads.one(path, `${kind} deployment`, name);
  if (!found.ok) return { why: found.why };
  let scaling = record(found.record.scaling);
  if (!scaling) {
    const s = await reads.one(`${path}/scaling`, `the scaling of ${kind} deployment`, name);
    if (!s.ok) return { why: s.why };
    scaling = s.record;
  }
  const status = await reads.one(`${path}/status`, `the status of ${kind} deployment`, name);
  return { record: { ...found.record, scaling }, paused: status.ok && String(status.record.status) === 'paused' };
}

/**
 * A change to a deployment: the body merged over what it is now (`compute` replaced field by field,
 * `scaling` likewise, `is_spot`), priced after minus before. A paused deployment bills nothing until
 * resumed, so its change adds nothing now (its resume is priced in full).
 */
export async function priceDeploymentChange(step: number, kind: DeploymentKind, name: string, patch: { compute?: unknown; scaling?: unknown; is_spot?: unknown }, reads: PriceReads, what: string): Promise<ChangePrice> {
  const now = await existing(kind, name, reads);
  if ('why' in now) return unpriced(`${what} of ${kind} deployment "${name}": ${now.why}, so what the change adds is not known`);
  const before = deploymentSize(kind === 'job' ? { ...now.record, is_spot: undefined } : now.record);
  if ('why' in before) return unpriced(`${what} of ${kind} deployment "${name}": as it is now, ${before.why}`);
  const merged = {
    compute: patch.compute === undefined ? now.record.compute : { ...record(now.record.compute), ...record(patch.compute) },
    scaling: patch.scaling === undefined ? now.record.scaling : { ...record(now.record.scaling), ...record(patch.scaling) },
    is_spot: kind === 'job' ? undefined : patch.is_spot === undefined ? now.record.is_spot : patch.is_spot,
  };
  if (patch.compute !== undefined && !record(patch.compute)) return unpriced(`${what} of ${kind} deployment "${name}": compute is ${JSON.stringify(patch.compute)}, not an object`);
  if (patch.scaling !== undefined && !record(patch.scaling)) return unpriced(`${what} of ${kind} deployment "${name}": scaling is ${JSON.stringify(patch.scaling)}, not an object`);
  const after = deploymentSize(merged);
  if ('why' in after) return unpriced(`${what} of ${kind} deployment "${name}": after the change, ${after.why}`);
  const types = await reads.containerTypes();
  const was = deploymentPerHour(types, before);
  const will = deploymentPerHour(types, after);
  if (was === undefined || will === undefined) return unpriced(`${what} of ${kind} deployment "${name}": no price for compute ${was === undefined ? before.compute : after.compute}`);
  if (now.paused) return free(`${kind} deployment "${name}" is paused: the change bills from its resume`);
  const diff = will - was;
  const part = `${what} of ${kind} deployment "${name}": ${after.compute} ${after.size} unit(s) × ${after.max} replica(s)${after.spot ? ' (spot)' : ''}, now ${before.compute} ${before.size} × ${before.max}${before.spot ? ' (spot)' : ''}`;
  if (diff === 0) return { price: 'priced', per_hour: 0, lines: [deploymentLine(step, kind, after, 0, part)] };
  return { price: 'priced', per_hour: diff, lines: [deploymentLine(step, kind, after, diff, part)] };
}

/** `resume`: a paused deployment bills again, in full; one that runs changes nothing. */
export async function priceDeploymentResume(step: number, kind: DeploymentKind, name: string, reads: PriceReads): Promise<ChangePrice> {
  const now = await existing(kind, name, reads);
  if ('why' in now) return unpriced(`resume of ${kind} deployment "${name}": ${now.why}`);
  if (!now.paused) return free(`${kind} deployment "${name}" is not paused: resume changes nothing that bills`);
  const size = deploymentSize(kind === 'job' ? { ...now.record, is_spot: undefined } : now.record);
  if ('why' in size) return unpriced(`resume of ${kind} deployment "${name}": ${size.why}`);
  const perHour = deploymentPerHour(await reads.containerTypes(), size);
  if (perHour === undefined) return unpriced(`resume of ${kind} deployment "${name}": no price for compute ${size.compute}`);
  return { price: 'priced', per_hour: perHour, lines: [deploymentLine(step, kind, size, perHour, `resume of ${kind} deployment "${name}"`)] };
}

export { list };
