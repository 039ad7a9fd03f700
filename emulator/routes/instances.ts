/** /v1/instances: list, get, deploy (202 + bare-text id) and PUT actions (202 / 207). */
import { randomUUID } from 'node:crypto';
import {
  badRequest,
  bulkReply,
  empty,
  forbidden,
  insufficientFunds,
  json,
  notFound,
  text,
  unavailable,
} from '../http.js';
import { renderInstance } from '../render.js';
import type { Ctx, RouteDef } from '../router.js';
import { LOCATION_CODES, findImage, findInstanceType, findVolumeType, isAvailable, supportedImages } from '../seed.js';
import { iso, randomHex, type InstanceRec, type Store, type VolumeRec } from '../state.js';
import { asObject, isObj, missing, oneOf, optBool, optInt, optString, reqInt, reqString, stringList } from '../validate.js';
import { detachVolume, nextTarget, purgeVolume, trashVolume } from './volumes.js';

export const INSTANCE_ACTIONS = [
  'boot',
  'start',
  'shutdown',
  'force_shutdown',
  'delete',
  'discontinue',
  'hibernate',
  'restore',
  'configure_spot',
  'delete_stuck',
] as const;
type InstanceAction = (typeof INSTANCE_ACTIONS)[number];
/** In the GO enum but not emulated. */
const UNSUPPORTED_ACTIONS = ['deploy', 'transfer'];

const SPOT_POLICIES = ['keep_detached', 'move_to_trash', 'delete_permanently'] as const;
const HOSTNAME_RE = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

export function requireSshKeys(store: Store, ids: string[]): void {
  for (const k of ids) {
    if (!store.data.sshKeys.some((s) => s.id === k)) throw badRequest(`Invalid ssh key id: ${k}`);
  }
}

export function requireScript(store: Store, id: string | undefined): void {
  if (id !== undefined && !store.data.scripts.some((s) => s.id === id)) throw badRequest(`Invalid startup script id: ${id}`);
}

export function validHostname(hostname: string): void {
  if (hostname.length > 63 || !HOSTNAME_RE.test(hostname))
    throw badRequest('hostname may contain only letters, digits, dots and hyphens (at most 63 characters)');
}

function list(ctx: Ctx) {
  const status = ctx.query.get('status');
  return json(200, ctx.store.data.instances.filter((i) => !status || i.status === status).map(renderInstance));
}

function get(ctx: Ctx) {
  const inst = ctx.store.instance(ctx.params.id);
  if (!inst) throw notFound('Invalid instance id');
  return json(200, renderInstance(inst));
}

interface NewVolume {
  name: string;
  size: number;
  type: string;
  on_spot_discontinue: string;
}

function parseNewVolumes(v: unknown): NewVolume[] {
  if (missing(v)) return [];
  if (!Array.isArray(v)) throw badRequest('volumes must be an array');
  return v.map((raw, i) => {
    if (!isObj(raw)) throw badRequest(`volumes.${i} must be an object`);
    const name = reqString(raw, 'name', { max: 60, label: `volumes.${i}.name` });
    const size = reqInt(raw, 'size', { min: 40, label: `volumes.${i}.size` });
    const type = reqString(raw, 'type', { label: `volumes.${i}.type` });
    if (!findVolumeType(type)) throw badRequest(`Invalid volume type: ${type}`);
    const spot = missing(raw.on_spot_discontinue) ? 'keep_detached' : oneOf(raw.on_spot_discontinue, SPOT_POLICIES, `volumes.${i}.on_spot_discontinue`);
    return { name, size, type, on_spot_discontinue: spot };
  });
}

/** Create-time tags, as the wire reference gives them: at most 10, key ≤ 63 and value ≤ 127 characters; no value makes a key-only tag. */
function instanceTags(v: unknown): { key: string; value: string }[] {
  if (missing(v)) return [];
  if (!Array.isArray(v)) throw badRequest('tags must be an array');
  if (v.length > 10) throw badRequest('at most 10 tags are allowed');
  return v.map((t) => {
    const o = asObject(t);
    const key = reqString(o, 'key', { max: 63, label: 'tags.key' });
    const value = missing(o.value) ? '' : reqString(o, 'value', { allowEmpty: true, max: 127, label: 'tags.value' });
    return { key, value };
  });
}

function create(ctx: Ctx) {
  const { store, now } = ctx;
  const b = asObject(ctx.body);
  const typeName = reqString(b, 'instance_type');
  const image = reqString(b, 'image');
  const hostname = reqString(b, 'hostname');
  const description = reqString(b, 'description', { allowEmpty: true });
  const location = reqString(b, 'location_code');
  const t = findInstanceType(typeName);
  if (!t) throw badRequest(`Invalid instance type: ${typeName}`);
  if (!LOCATION_CODES.includes(location)) throw badRequest(`Invalid location code: ${location}`);
  validHostname(hostname);
  const tags = instanceTags(b.tags);
  const isSpot = optBool(b, 'is_spot') ?? false;
  const contract = missing(b.contract) ? (isSpot ? 'SPOT' : 'PAY_AS_YOU_GO') : oneOf(b.contract, ['LONG_TERM', 'PAY_AS_YOU_GO', 'SPOT'], 'contract');
  const pricing = missing(b.pricing) ? 'FIXED_PRICE' : oneOf(b.pricing, ['DYNAMIC_PRICE', 'FIXED_PRICE'], 'pricing');

  // image: an image_type, an image id, or a detached OS volume in the same location
  let osVolume: VolumeRec | undefined;
  let imageType: string;
  const img = findImage(image);
  if (img) {
    if (!supportedImages(t).includes(img)) throw badRequest('Operating system is not valid for this instance type');
    imageType = img.image_type;
  } else {
    const v = store.volume(image);
    if (!v || !v.is_os_volume) throw badRequest('Operating system is not valid for this instance type');
    if (v.status !== 'detached') throw forbidden(`Can't boot from a volume in status ${v.status}`);
    if (v.location !== location) throw badRequest('The OS volume must be in the same location as the instance');
    osVolume = v;
    imageType = v.source_image ?? 'ubuntu-24.04';
  }

  const sshKeyIds = stringList(b.ssh_key_ids, 'ssh_key_ids');
  requireSshKeys(store, sshKeyIds);
  const scriptId = optString(b, 'startup_script_id');
  requireScript(store, scriptId);

  let osSpec = { name: `OS-${hostname}`, size: t.gpus ? 100 : 50, on_spot_discontinue: 'keep_detached' };
  if (!missing(b.os_volume)) {
    if (!isObj(b.os_volume)) throw badRequest('os_volume must be an object');
    const o = b.os_volume;
    osSpec = {
      name: optString(o, 'name', 'os_volume.name') ?? osSpec.name,
      size: optInt(o, 'size', { min: 20, label: 'os_volume.size' }) ?? osSpec.size,
      on_spot_discontinue: missing(o.on_spot_discontinue) ? 'keep_detached' : oneOf(o.on_spot_discontinue, SPOT_POLICIES, 'os_volume.on_spot_discontinue'),
    };
  }
  const newVolumes = parseNewVolumes(b.volumes);
  const existing = stringList(
    Array.isArray(b.existing_volumes) ? b.existing_volumes.map((x) => (isObj(x) && typeof x.id === 'string' ? x.id : x)) : b.existing_volumes,
    'existing_volumes',
  ).map((id) => {
    const v = store.volume(id);
    if (!v) throw badRequest(`Invalid volume id: ${id}`);
    if (v.status !== 'detached') throw forbidden(`Can't attach a volume in status ${v.status}`);
    if (v.location !== location) throw badRequest(`Volume ${id} is not in location ${location}`);
    return v;
  });

  if (!store.capacity.createPlaced(typeName, location, isSpot, isAvailable(typeName, location, isSpot)))
    throw unavailable(`Not enough resources available for ${typeName}${isSpot ? ' (spot)' : ''} in ${location}; try another location or try again later`);
  const price = isSpot ? t.spot : t.price;
  if (store.data.balance < price)
    throw insufficientFunds(`Not enough balance to deploy ${typeName}: at least one hour (${price.toFixed(2)} USD) is required`);

  const id = randomUUID();
  const L = ctx.opts.lifecycleMs;
  const inst: InstanceRec = {
    id,
    instance_type: typeName,
    image: imageType,
    hostname,
    description,
    ...(tags.length ? { tags } : {}),
    location,
    status: 'ordered',
    // The capacity switch's no_capacity: accepted, then never placed (it never runs, so it never bills).
    schedule:
      store.capacity.get(typeName, location, isSpot) === 'no_capacity'
        ? [{ status: 'no_capacity', at: now + L }]
        : [
            { status: 'provisioning', at: now + L },
            { status: 'running', at: now + 2 * L },
          ],
    created_at: iso(now),
    ssh_key_ids: sshKeyIds,
    startup_script_id: scriptId ?? null,
    os_volume_id: null,
    volume_ids: [],
    ip: null,
    is_spot: isSpot,
    contract,
    pricing,
    jupyter_token: randomHex(16),
    price_per_hour: price,
    os_volume_spec: osSpec,
    billed_until: now,
  };
  store.data.instances.push(inst);
  if (osVolume) {
    osVolume.instance_id = id;
    osVolume.status = 'attached';
    osVolume.target = 'vda';
    inst.os_volume_id = osVolume.id;
  }
  for (const v of existing) {
    v.instance_id = id;
    v.status = 'attached';
    v.target = nextTarget(store, id);
    inst.volume_ids.push(v.id);
  }
  for (const nv of newVolumes) {
    const vol: VolumeRec = {
      id: randomUUID(),
      name: nv.name,
      size: nv.size,
      type: nv.type,
      status: 'ordered',
      schedule: [{ status: 'attached', at: now + 2 * L }],
      created_at: iso(now),
      instance_id: id,
      location,
      is_os_volume: false,
      target: nextTarget(store, id),
      ssh_key_ids: [],
      contract: isSpot ? 'SPOT' : 'PAY_AS_YOU_GO',
      on_spot_discontinue: nv.on_spot_discontinue,
      source_image: null,
      deleted_at: null,
    };
    store.data.volumes.push(vol);
    inst.volume_ids.push(vol.id);
  }
  return text(202, id);
}

/** Deletes an instance: listed volumes are deleted, other data volumes detached (reference §5). */
function removeInstance(store: Store, inst: InstanceRec, volumeIds: string[], permanent: boolean, now: number): void {
  for (const v of store.data.volumes.filter((x) => x.instance_id === inst.id && x.deleted_at === null)) {
    const listed = volumeIds.includes(v.id);
    const isOs = v.id === inst.os_volume_id;
    if (listed && permanent) purgeVolume(store, v);
    else if (listed || (isOs && volumeIds.length === 0)) trashVolume(v, now);
    else detachVolume(store, v);
  }
  store.data.instances = store.data.instances.filter((i) => i.id !== inst.id);
}

/** Hibernation as the Go SDK describes it: every volume detached (the OS volume too, so an instance can boot from it again), the instance deleted. */
function hibernateByDeleting(store: Store, inst: InstanceRec): void {
  for (const v of store.data.volumes.filter((x) => x.instance_id === inst.id && x.deleted_at === null)) detachVolume(store, v);
  store.data.instances = store.data.instances.filter((i) => i.id !== inst.id);
}

function applyAction(store: Store, id: string, action: InstanceAction, volumeIds: string[], permanent: boolean, now: number, hibernation: 'keeps-instance' | 'deletes-instance'): void {
  const inst = store.instance(id);
  if (!inst) throw notFound('Invalid instance id');
  const s = inst.status;
  const deny = () => forbidden(`Can't ${action} an instance in status ${s}`);
  switch (action) {
    case 'boot':
    case 'start':
      if (s !== 'offline') throw deny();
      inst.status = 'running';
      inst.ip ??= store.instanceIp(inst.hostname);
      return;
    case 'shutdown':
    case 'force_shutdown':
      if (s !== 'running') throw deny();
      inst.status = 'offline';
      return;
    case 'hibernate':
      // The machine is released and the volumes kept (wire reference §5): the address goes with the
      // machine, and a hibernated instance does not bill (state.ts). Spot instances are refused: nothing
      // documents hibernating one (docs/autostop.md).
      if (s !== 'running' && s !== 'offline') throw deny();
      if (inst.is_spot) throw forbidden("Can't hibernate a spot instance");
      if (hibernation === 'deletes-instance') return hibernateByDeleting(store, inst);
      inst.status = 'hibernating';
      inst.ip = null;
      return;
    case 'restore': {
      if (s !== 'hibernating') throw deny();
      // Restoring needs a machine again: the capacity switch can say there is none (503, still hibernated).
      if (!store.capacity.createPlaced(inst.instance_type, inst.location, inst.is_spot, true))
        throw unavailable(`Not enough resources available to restore ${inst.instance_type} in ${inst.location}; try again later`);
      inst.status = 'running';
      inst.ip = store.instanceIp(inst.hostname);
      return;
    }
    case 'delete':
    case 'discontinue':
      if (s === 'ordered' || s === 'provisioning' || s === 'new' || s === 'validating')
        throw forbidden("Can't discontinue a provisioning instance");
      if (!['running', 'offline', 'error', 'hibernating'].includes(s)) throw forbidden(`Can't discontinue a ${s} instance`);
      removeInstance(store, inst, volumeIds, permanent, now);
      return;
    case 'delete_stuck':
      removeInstance(store, inst, volumeIds, permanent, now);
      return;
    case 'configure_spot':
      if (!inst.is_spot) throw forbidden("Can't configure_spot a non-spot instance");
      return;
  }
}

function act(ctx: Ctx) {
  const b = asObject(ctx.body);
  const action = reqString(b, 'action');
  if (UNSUPPORTED_ACTIONS.includes(action)) throw badRequest(`Action ${action} is not supported for these instances`);
  const a = oneOf(action, INSTANCE_ACTIONS, 'action');
  if (missing(b.id)) throw badRequest('id is required');
  const ids = stringList(b.id, 'id');
  if (ids.length === 0) throw badRequest('id should not be empty');
  const volumeIds = stringList(b.volume_ids, 'volume_ids');
  const permanent = optBool(b, 'delete_permanently') ?? false;
  if (typeof b.id === 'string') {
    applyAction(ctx.store, b.id, a, volumeIds, permanent, ctx.now, ctx.opts.hibernation);
    return empty(202);
  }
  return bulkReply(ids, (id) => applyAction(ctx.store, id, a, volumeIds, permanent, ctx.now, ctx.opts.hibernation), (id) => ({ action: a, instanceId: id }));
}

export const instanceRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/instances', handler: list },
  { method: 'POST', path: '/v1/instances', handler: create },
  { method: 'PUT', path: '/v1/instances', handler: act },
  // Deprecated (reference §5) but still routed: the same actions as PUT /v1/instances.
  { method: 'POST', path: '/v1/instances/action', handler: act },
  { method: 'GET', path: '/v1/instances/{id}', handler: get },
];
