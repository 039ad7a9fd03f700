/** /v1/clusters: list, get, create (`{"id"}` JSON, unlike instances), PUT discontinue. */
import { randomUUID } from 'node:crypto';
import { badRequest, bulkReply, empty, forbidden, insufficientFunds, json, notFound, unavailable } from '../http.js';
import { renderCluster } from '../render.js';
import type { Ctx, RouteDef } from '../router.js';
import { CLUSTER_AVAILABILITY, CLUSTER_IMAGES, LOCATION_CODES, findClusterType, findImage, findVolumeType } from '../seed.js';
import { iso, type ClusterRec, type Store } from '../state.js';
import { asObject, isObj, missing, oneOf, optBool, optInt, optString, reqString, stringList } from '../validate.js';
import { requireScript, requireSshKeys, validHostname } from './instances.js';

const CLUSTER_ACTIONS = ['discontinue'] as const;

function list(ctx: Ctx) {
  const status = ctx.query.get('status');
  return json(200, ctx.store.data.clusters.filter((c) => !status || c.status === status).map(renderCluster));
}

function get(ctx: Ctx) {
  const c = ctx.store.data.clusters.find((x) => x.id === ctx.params.id);
  if (!c) throw notFound('Invalid cluster id');
  return json(200, renderCluster(c));
}

function create(ctx: Ctx) {
  const { store, now } = ctx;
  const b = asObject(ctx.body);
  const typeName = reqString(b, 'cluster_type');
  const image = reqString(b, 'image');
  const hostname = reqString(b, 'hostname');
  const location = reqString(b, 'location_code');
  const description = optString(b, 'description') ?? '';
  const t = findClusterType(typeName);
  if (!t) throw badRequest(`Invalid cluster type: ${typeName}`);
  if (!LOCATION_CODES.includes(location)) throw badRequest(`Invalid location code: ${location}`);
  validHostname(hostname);
  const img = findImage(image, CLUSTER_IMAGES);
  if (!img) throw badRequest('Operating system is not valid for this cluster type');
  const sshKeyIds = stringList(b.ssh_key_ids, 'ssh_key_ids');
  requireSshKeys(store, sshKeyIds);
  const scriptId = optString(b, 'startup_script_id');
  requireScript(store, scriptId);
  const contract = missing(b.contract) ? 'PAY_AS_YOU_GO' : oneOf(b.contract, ['PAY_AS_YOU_GO', 'LONG_TERM'], 'contract');
  const extension = missing(b.extension_settings)
    ? null
    : oneOf(b.extension_settings, ['auto_renew', 'pay_as_you_go', 'end_contract'], 'extension_settings');

  let shared = { name: `${hostname}-shared-volume`, size: 30000 };
  if (!missing(b.shared_volume)) {
    if (!isObj(b.shared_volume)) throw badRequest('shared_volume must be an object');
    shared = {
      name: optString(b.shared_volume, 'name', 'shared_volume.name') ?? shared.name,
      size: optInt(b.shared_volume, 'size', { min: 1, label: 'shared_volume.size' }) ?? shared.size,
    };
  }
  const sharedVolumes: ClusterRec['shared_volumes'] = [{ id: randomUUID(), name: shared.name, mount_point: '/home', size_in_gigabytes: shared.size }];
  const existing = Array.isArray(b.existing_volumes) ? b.existing_volumes : missing(b.existing_volumes) ? [] : null;
  if (existing === null) throw badRequest('existing_volumes must be an array');
  for (const [i, raw] of existing.entries()) {
    const id = isObj(raw) ? raw.id : raw;
    if (typeof id !== 'string') throw badRequest(`existing_volumes.${i}.id is required`);
    const v = store.volume(id);
    if (!v) throw badRequest(`Invalid volume id: ${id}`);
    if (!findVolumeType(v.type)?.shared) throw badRequest(`Volume ${id} is not a shared file system volume`);
    sharedVolumes.push({ id: v.id, name: v.name, mount_point: `/mnt/${v.name}`, size_in_gigabytes: v.size });
  }

  if (!(CLUSTER_AVAILABILITY[location] ?? []).includes(typeName))
    throw unavailable(`Not enough resources available for cluster type ${typeName} in ${location}; try another location or try again later`);
  if (store.data.balance < t.price)
    throw insufficientFunds(`Not enough balance to deploy cluster ${typeName}: at least one hour (${t.price.toFixed(2)} USD) is required`);

  const L = ctx.opts.lifecycleMs;
  const cluster: ClusterRec = {
    id: randomUUID(),
    hostname,
    description,
    status: 'ordered',
    schedule: [
      { status: 'provisioning', at: now + L },
      { status: 'running', at: now + 2 * L },
    ],
    created_at: iso(now),
    location,
    cluster_type: typeName,
    image: img.image_type,
    ip: null,
    price_per_hour: t.price,
    ssh_key_ids: sshKeyIds,
    startup_script_id: scriptId ?? null,
    contract,
    auto_rent_extension: optBool(b, 'auto_rent_extension') ?? null,
    turn_to_pay_as_you_go: optBool(b, 'turn_to_pay_as_you_go') ?? null,
    extension_settings: extension,
    long_term_period: optString(b, 'long_term_period') ?? null,
    worker_nodes: Array.from({ length: t.nodes }, (_, i) => ({
      id: randomUUID(),
      hostname: `${hostname}-${i + 1}`,
      public_ip: null,
      private_ip: `10.0.0.${i + 2}`,
    })),
    shared_volumes: sharedVolumes,
    billed_until: now,
  };
  store.data.clusters.push(cluster);
  return json(202, { id: cluster.id });
}

function applyAction(store: Store, id: string, action: string): void {
  const c = store.data.clusters.find((x) => x.id === id);
  if (!c) throw notFound('Invalid cluster id');
  if (c.status === 'ordered' || c.status === 'provisioning') throw forbidden("Can't discontinue a provisioning cluster");
  if (c.status !== 'running' && c.status !== 'error') throw forbidden(`Can't ${action} a ${c.status} cluster`);
  store.data.clusters = store.data.clusters.filter((x) => x.id !== id);
}

function act(ctx: Ctx) {
  const b = asObject(ctx.body);
  let actions: { action: string; id: string }[];
  if (Array.isArray(b.actions)) {
    actions = b.actions.map((raw, i) => {
      if (!isObj(raw)) throw badRequest(`actions.${i} must be an object`);
      return { action: oneOf(raw.action, CLUSTER_ACTIONS, `actions.${i}.action`), id: reqString(raw, 'id', { label: `actions.${i}.id` }) };
    });
    if (actions.length === 0) throw badRequest('actions should not be empty');
  } else if (!missing(b.action)) {
    const action = oneOf(b.action, CLUSTER_ACTIONS, 'action');
    const ids = stringList(b.id, 'id');
    if (ids.length === 0) throw badRequest('id is required');
    actions = ids.map((id) => ({ action, id }));
  } else {
    throw badRequest('actions is required');
  }
  if (actions.length === 1) {
    applyAction(ctx.store, actions[0].id, actions[0].action);
    return empty(202);
  }
  return bulkReply(actions, ({ action, id }) => applyAction(ctx.store, id, action), ({ action, id }) => ({ action, id }));
}

export const clusterRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/clusters', handler: list },
  { method: 'POST', path: '/v1/clusters', handler: create },
  { method: 'PUT', path: '/v1/clusters', handler: act },
  { method: 'GET', path: '/v1/clusters/{id}', handler: get },
];
