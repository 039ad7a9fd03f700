/** /v1/volumes: list, get, create (202 + bare-text id), PUT actions, DELETE, trash. */
import { randomUUID } from 'node:crypto';
import { badRequest, empty, forbidden, json, notFound, text } from '../http.js';
import { renderVolume } from '../render.js';
import type { Ctx, RouteDef } from '../router.js';
import { LOCATION_CODES, findVolumeType } from '../seed.js';
import { iso, type InstanceRec, type Store, type VolumeRec } from '../state.js';
import { asObject, missing, oneOf, optBool, optString, reqInt, reqString, stringList } from '../validate.js';

export const VOLUME_ACTIONS = ['attach', 'detach', 'rename', 'resize', 'delete', 'clone', 'restore'] as const;
type VolumeAction = (typeof VOLUME_ACTIONS)[number];

const MIN_SIZE = 40;
const MAX_NAME = 60;

/** Next free device name (vdb, vdc, …) on an instance. */
export function nextTarget(store: Store, instanceId: string): string {
  const used = new Set(store.data.volumes.filter((v) => v.instance_id === instanceId).map((v) => v.target));
  for (let c = 'b'.charCodeAt(0); c <= 'z'.charCodeAt(0); c++) {
    const t = `vd${String.fromCharCode(c)}`;
    if (!used.has(t)) return t;
  }
  return 'vdz';
}

export function detachVolume(store: Store, v: VolumeRec): void {
  if (v.instance_id) {
    const inst = store.instance(v.instance_id);
    if (inst) {
      inst.volume_ids = inst.volume_ids.filter((x) => x !== v.id);
      if (inst.os_volume_id === v.id) inst.os_volume_id = null;
    }
  }
  v.instance_id = null;
  v.target = null;
  v.status = 'detached';
  v.schedule = [];
}

export function trashVolume(v: VolumeRec, now: number): void {
  v.instance_id = null;
  v.target = null;
  v.status = 'deleted';
  v.schedule = [];
  v.deleted_at = iso(now);
}

export function purgeVolume(store: Store, v: VolumeRec): void {
  store.data.volumes = store.data.volumes.filter((x) => x.id !== v.id);
}

function requireOfflineInstance(store: Store, instanceId: string, verb: string): InstanceRec {
  const inst = store.instance(instanceId);
  if (!inst) throw notFound('Invalid instance id');
  if (inst.status !== 'offline') throw forbidden(`Can't ${verb} a volume while the instance is in status ${inst.status}; shut it down first`);
  return inst;
}

function attachTo(store: Store, v: VolumeRec, inst: InstanceRec): void {
  if (v.location !== inst.location) throw badRequest(`Volume and instance must be in the same location (${v.location} vs ${inst.location})`);
  v.instance_id = inst.id;
  v.target = nextTarget(store, inst.id);
  if (v.status === 'detached') v.status = 'attached';
  else v.schedule = v.schedule.map((s) => ({ ...s, status: 'attached' }));
  inst.volume_ids.push(v.id);
}

function list(ctx: Ctx) {
  const status = ctx.query.get('status');
  const vols = ctx.store.data.volumes.filter((v) => v.deleted_at === null && (!status || v.status === status));
  return json(200, vols.map((v) => renderVolume(ctx.store, v)));
}

function trash(ctx: Ctx) {
  return json(200, ctx.store.data.volumes.filter((v) => v.deleted_at !== null).map((v) => renderVolume(ctx.store, v)));
}

function get(ctx: Ctx) {
  const v = ctx.store.volume(ctx.params.id);
  if (!v) throw notFound('Invalid volume id');
  return json(200, renderVolume(ctx.store, v));
}

function create(ctx: Ctx) {
  const { store, now } = ctx;
  const b = asObject(ctx.body);
  const type = reqString(b, 'type');
  const name = reqString(b, 'name', { max: MAX_NAME });
  const size = reqInt(b, 'size', { min: MIN_SIZE });
  const location = reqString(b, 'location_code');
  if (!findVolumeType(type)) throw badRequest(`Invalid volume type: ${type}`);
  if (!LOCATION_CODES.includes(location)) throw badRequest(`Invalid location code: ${location}`);
  const spot = missing(b.on_spot_discontinue)
    ? 'keep_detached'
    : oneOf(b.on_spot_discontinue, ['keep_detached', 'move_to_trash', 'delete_permanently'], 'on_spot_discontinue');
  const targets = [...new Set([...stringList(b.instance_id, 'instance_id'), ...stringList(b.instance_ids, 'instance_ids')])];
  const instances = targets.map((id) => requireOfflineInstance(store, id, 'attach'));
  for (const inst of instances) {
    if (inst.location !== location) throw badRequest(`Instance ${inst.id} is not in location ${location}`);
  }
  const v: VolumeRec = {
    id: randomUUID(),
    name,
    size,
    type,
    status: 'ordered',
    schedule: [{ status: instances.length ? 'attached' : 'detached', at: now + ctx.opts.lifecycleMs }],
    created_at: iso(now),
    instance_id: null,
    location,
    is_os_volume: false,
    target: null,
    ssh_key_ids: [],
    contract: 'PAY_AS_YOU_GO',
    on_spot_discontinue: spot,
    source_image: null,
    deleted_at: null,
  };
  store.data.volumes.push(v);
  for (const inst of instances) attachTo(store, v, inst);
  return text(202, v.id);
}

function findForAction(store: Store, id: string, action: VolumeAction): VolumeRec {
  const v = action === 'restore' ? store.data.volumes.find((x) => x.id === id && x.deleted_at !== null) : store.volume(id);
  if (!v) throw notFound('Invalid volume id');
  return v;
}

function deleteVolume(store: Store, v: VolumeRec, permanent: boolean, now: number): void {
  if (v.instance_id) throw forbidden(`Can't delete a volume in status ${v.status}; detach it first`);
  if (permanent) purgeVolume(store, v);
  else trashVolume(v, now);
}

function act(ctx: Ctx) {
  const { store, now } = ctx;
  const b = asObject(ctx.body);
  const action = oneOf(reqString(b, 'action'), VOLUME_ACTIONS, 'action');
  if (missing(b.id)) throw badRequest('id is required');
  const ids = stringList(b.id, 'id');
  if (ids.length === 0) throw badRequest('id should not be empty');
  const vols = ids.map((id) => findForAction(store, id, action));
  const created: string[] = [];
  for (const v of vols) {
    switch (action) {
      case 'attach': {
        const targets = [...stringList(b.instance_id, 'instance_id'), ...stringList(b.instance_ids, 'instance_ids')];
        if (targets.length === 0) throw badRequest('instance_id is required');
        if (v.status !== 'detached') throw forbidden(`Can't attach a volume in status ${v.status}`);
        for (const t of targets) attachTo(store, v, requireOfflineInstance(store, t, 'attach'));
        break;
      }
      case 'detach': {
        if (!v.instance_id) throw forbidden(`Can't detach a volume in status ${v.status}`);
        if (v.is_os_volume) throw forbidden("Can't detach an OS volume; delete the instance instead");
        requireOfflineInstance(store, v.instance_id, 'detach');
        detachVolume(store, v);
        break;
      }
      case 'rename':
        v.name = reqString(b, 'name', { max: MAX_NAME });
        break;
      case 'resize': {
        const size = reqInt(b, 'size', { min: 1 });
        if (size <= v.size) throw badRequest(`size must be greater than the current size (${v.size} GB); volumes can only grow`);
        v.size = size;
        break;
      }
      case 'delete':
        deleteVolume(store, v, optBool(b, 'is_permanent') ?? false, now);
        break;
      case 'clone': {
        const name = reqString(b, 'name', { max: MAX_NAME });
        const type = optString(b, 'type') ?? v.type;
        if (!findVolumeType(type)) throw badRequest(`Invalid volume type: ${type}`);
        const copy: VolumeRec = {
          ...v,
          id: randomUUID(),
          name: ids.length > 1 ? `${name}-${created.length + 1}` : name,
          type,
          status: 'cloning',
          schedule: [{ status: 'detached', at: now + ctx.opts.lifecycleMs }],
          created_at: iso(now),
          instance_id: null,
          target: null,
          ssh_key_ids: [...v.ssh_key_ids],
          deleted_at: null,
        };
        store.data.volumes.push(copy);
        created.push(copy.id);
        break;
      }
      case 'restore':
        v.deleted_at = null;
        v.status = 'detached';
        break;
    }
  }
  return action === 'clone' ? json(202, created) : empty(202);
}

function remove(ctx: Ctx) {
  const v = ctx.store.volume(ctx.params.id);
  if (!v) throw notFound('Invalid volume id');
  const b = ctx.body === undefined ? {} : asObject(ctx.body);
  const permanent = (optBool(b, 'is_permanent') ?? false) || ctx.query.get('force') === 'true';
  deleteVolume(ctx.store, v, permanent, ctx.now);
  return empty(202);
}

export const volumeRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/volumes', handler: list },
  { method: 'POST', path: '/v1/volumes', handler: create },
  { method: 'PUT', path: '/v1/volumes', handler: act },
  { method: 'GET', path: '/v1/volumes/trash', handler: trash },
  { method: 'GET', path: '/v1/volumes/{id}', handler: get },
  { method: 'DELETE', path: '/v1/volumes/{id}', handler: remove },
];

