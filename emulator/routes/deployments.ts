/** Serverless container deployments (/v1/container-deployments) and job deployments (/v1/job-deployments). */
import { createHash } from 'node:crypto';
import { badRequest, empty, forbidden, json, notFound, unavailable } from '../http.js';
import { EMULATOR_USER_ID, renderDeployment } from '../render.js';
import type { Ctx, RouteDef } from '../router.js';
import { SERVERLESS_COMPUTE, findVolumeType } from '../seed.js';
import { iso, type ContainerRec, type DeploymentRec, type Store } from '../state.js';
import { SLUG_RE, asObject, clone, isObj, missing, oneOf, optBool, optInt, reqInt, reqString, type Obj } from '../validate.js';

type Kind = DeploymentRec['kind'];

// ---------------------------------------------------------------- validation

/** Rejects images without an explicit tag, and the `latest` tag (GO/CLI rule). */
export function checkImageTag(image: string, label: string): void {
  const at = image.indexOf('@');
  if (at > 0 && image.slice(at + 1).startsWith('sha256:')) return;
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  if (colon < 0 || colon === last.length - 1)
    throw badRequest(`${label} must have an explicit tag, e.g. my-image:v1.0 ("latest" is not allowed)`);
  if (last.slice(colon + 1) === 'latest') throw badRequest(`${label} must not use the "latest" tag; pin a version tag`);
}

function validateEnv(store: Store, raw: unknown, label: string): Obj[] {
  if (missing(raw)) return [];
  if (!Array.isArray(raw)) throw badRequest(`${label} must be an array`);
  const seen = new Set<string>();
  return raw.map((e, i) => {
    const l = `${label}.${i}`;
    if (!isObj(e)) throw badRequest(`${l} must be an object`);
    const type = oneOf(e.type, ['plain', 'secret'], `${l}.type`);
    const name = reqString(e, 'name', { label: `${l}.name` });
    if (seen.has(name)) throw badRequest(`Environment variable ${name} is defined twice`);
    seen.add(name);
    const value = reqString(e, 'value_or_reference_to_secret', { label: `${l}.value_or_reference_to_secret`, allowEmpty: type === 'plain' });
    if (type === 'secret' && !store.data.secrets.some((s) => s.name === value))
      throw badRequest(`Secret ${value} referenced by ${name} does not exist`);
    return { type, name, value_or_reference_to_secret: value };
  });
}

function validateMounts(store: Store, raw: unknown, label: string): Obj[] {
  if (missing(raw)) return [];
  if (!Array.isArray(raw)) throw badRequest(`${label} must be an array`);
  return raw.map((m, i) => {
    const l = `${label}.${i}`;
    if (!isObj(m)) throw badRequest(`${l} must be an object`);
    const type = oneOf(m.type, ['scratch', 'secret', 'memory', 'shared'], `${l}.type`);
    const mount_path = type === 'memory' && missing(m.mount_path) ? '/dev/shm' : reqString(m, 'mount_path', { label: `${l}.mount_path` });
    const out: Obj = { ...clone(m), type, mount_path };
    if (type === 'secret') {
      const name = reqString(m, 'secret_name', { label: `${l}.secret_name` });
      if (!store.data.fileSecrets.some((s) => s.name === name) && !store.data.secrets.some((s) => s.name === name))
        throw badRequest(`Secret ${name} does not exist`);
    }
    if (type === 'memory') optInt(m, 'size_in_mb', { min: 1, label: `${l}.size_in_mb` });
    if (type === 'shared') {
      if (missing(m.volume_id)) throw badRequest(`${l}.volume_id should not be null or undefined`);
      const v = typeof m.volume_id === 'string' ? store.volume(m.volume_id) : undefined;
      if (!v || !findVolumeType(v.type)?.shared) throw badRequest(`${l}.volume_id must be an existing shared file system volume`);
    }
    return out;
  });
}

function parseContainers(store: Store, raw: unknown, now: number, previous: ContainerRec[] | undefined): ContainerRec[] {
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest('containers should not be empty');
  const names = new Set<string>();
  return raw.map((c, i) => {
    const l = `containers.${i}`;
    if (!isObj(c)) throw badRequest(`${l} must be an object`);
    const image = reqString(c, 'image', { label: `${l}.image` });
    checkImageTag(image, `${l}.image`);
    const exposed_port = reqInt(c, 'exposed_port', { min: 1, max: 65535, label: `${l}.exposed_port` });
    let name: string;
    if (previous) {
      name = reqString(c, 'name', { label: `${l}.name` });
    } else {
      name = typeof c.name === 'string' && c.name ? c.name : i === 0 ? 'main' : `container-${i + 1}`;
    }
    if (names.has(name)) throw badRequest(`${l}.name must be unique`);
    names.add(name);
    const prev = previous?.find((p) => p.name === name);
    const env = validateEnv(store, c.env, `${l}.env`);
    const volume_mounts = validateMounts(store, c.volume_mounts, `${l}.volume_mounts`);
    if (!missing(c.healthcheck)) {
      if (!isObj(c.healthcheck)) throw badRequest(`${l}.healthcheck must be an object`);
      optInt(c.healthcheck, 'port', { min: 1, max: 65535, label: `${l}.healthcheck.port` });
    }
    const rest = clone(c);
    delete rest.image;
    return {
      ...rest,
      name,
      image,
      image_updated_at: prev && prev.image === image ? prev.image_updated_at : iso(now),
      exposed_port,
      healthcheck: rest.healthcheck ?? { enabled: false },
      entrypoint_overrides: rest.entrypoint_overrides ?? { enabled: false },
      env,
      volume_mounts,
    };
  });
}

function validateCompute(raw: unknown): Obj {
  if (!isObj(raw)) throw badRequest('compute is required');
  const name = reqString(raw, 'name', { label: 'compute.name' });
  const size = reqInt(raw, 'size', { min: 1, label: 'compute.size' });
  const options = SERVERLESS_COMPUTE.filter((c) => c.name === name);
  if (options.length === 0) throw badRequest(`Invalid compute resource: ${name}`);
  const opt = options.find((c) => c.size === size);
  if (!opt) throw badRequest(`Invalid compute size ${size} for ${name}; allowed: ${options.map((o) => o.size).join(', ')}`);
  if (!opt.is_available) throw unavailable(`Compute resource ${name} x${size} is not available right now; try again later`);
  return { name, size };
}

function validateRegistry(store: Store, raw: unknown): Obj {
  if (missing(raw)) return { is_private: false };
  if (!isObj(raw)) throw badRequest('container_registry_settings must be an object');
  const isPrivate = optBool(raw, 'is_private', 'container_registry_settings.is_private') ?? false;
  if (!isPrivate) return { is_private: false };
  const creds = raw.credentials;
  const name = isObj(creds) && typeof creds.name === 'string' ? creds.name : undefined;
  if (!name) throw badRequest('container_registry_settings.credentials.name is required for a private registry');
  if (!store.data.registryCreds.some((r) => r.name === name)) throw badRequest(`Registry credentials ${name} do not exist`);
  return { is_private: true, credentials: { name } };
}

const DEFAULT_SCALING = {
  min_replica_count: 0,
  max_replica_count: 1,
  scale_down_policy: { delay_seconds: 300 },
  scale_up_policy: { delay_seconds: 300 },
  queue_message_ttl_seconds: 300,
  concurrent_requests_per_replica: 1,
  scaling_triggers: { queue_load: { threshold: 1 }, cpu_utilization: { enabled: false }, gpu_utilization: { enabled: false } },
};

function validateScaling(kind: Kind, raw: unknown, base: Obj | undefined): Obj {
  if (!missing(raw) && !isObj(raw)) throw badRequest('scaling must be an object');
  const r = (raw ?? {}) as Obj;
  if (kind === 'job') {
    const merged: Obj = { max_replica_count: 1, queue_message_ttl_seconds: 300, deadline_seconds: 3600, ...(base ?? {}), ...clone(r) };
    const l = (f: string) => ({ label: `scaling.${f}` });
    reqInt(merged, 'max_replica_count', { min: 1, ...l('max_replica_count') });
    reqInt(merged, 'queue_message_ttl_seconds', { min: 1, ...l('queue_message_ttl_seconds') });
    const deadline = merged.deadline_seconds;
    if (typeof deadline !== 'number' || !Number.isInteger(deadline) || deadline <= 0)
      throw badRequest('scaling.deadline_seconds must be greater than 0');
    return merged;
  }
  const merged: Obj = { ...clone(base ?? DEFAULT_SCALING), ...clone(r) };
  const min = reqInt(merged, 'min_replica_count', { min: 0, label: 'scaling.min_replica_count' });
  const max = reqInt(merged, 'max_replica_count', { min: 1, label: 'scaling.max_replica_count' });
  if (min > max) throw badRequest('scaling.min_replica_count must not be greater than scaling.max_replica_count');
  optInt(merged, 'queue_message_ttl_seconds', { min: 1, label: 'scaling.queue_message_ttl_seconds' });
  optInt(merged, 'concurrent_requests_per_replica', { min: 1, label: 'scaling.concurrent_requests_per_replica' });
  const triggers = merged.scaling_triggers;
  if (isObj(triggers) && isObj(triggers.queue_load))
    optInt(triggers.queue_load, 'threshold', { min: 1, label: 'scaling.scaling_triggers.queue_load.threshold' });
  return merged;
}

// ---------------------------------------------------------------- handlers

function findDeployment(store: Store, kind: Kind, name: string): DeploymentRec {
  const d = store.data.deployments.find((x) => x.kind === kind && x.name === name);
  if (!d) throw notFound(`${kind === 'container' ? 'Container' : 'Job'} deployment ${name} not found`);
  return d;
}

function listOf(kind: Kind) {
  return (ctx: Ctx) => {
    const ds = ctx.store.data.deployments.filter((d) => d.kind === kind);
    if (kind === 'container') return json(200, ds.map((d) => renderDeployment(d, ctx.opts)));
    return json(200, ds.map((d) => ({ name: d.name, created_at: d.created_at, compute: clone(d.spec.compute), created_by_user_id: EMULATOR_USER_ID })));
  };
}

function createOf(kind: Kind) {
  return (ctx: Ctx) => {
    const { store, now } = ctx;
    const b = asObject(ctx.body);
    const name = reqString(b, 'name');
    if (name.length > 63 || !SLUG_RE.test(name))
      throw badRequest('name must be a lowercase URL slug ([a-z0-9]([-a-z0-9]*[a-z0-9])?) of at most 63 characters');
    if (store.data.deployments.some((d) => d.kind === kind && d.name === name))
      throw badRequest(`A ${kind} deployment named ${name} already exists`);
    const spec: Obj = {};
    if (kind === 'container') spec.is_spot = optBool(b, 'is_spot') ?? false;
    spec.compute = validateCompute(b.compute);
    spec.container_registry_settings = validateRegistry(store, b.container_registry_settings);
    spec.scaling = validateScaling(kind, b.scaling, undefined);
    const containers = parseContainers(store, b.containers, now, undefined);
    const d: DeploymentRec = {
      kind,
      name,
      created_at: iso(now),
      spec,
      containers,
      status: kind === 'container' ? 'initializing' : 'running',
      schedule: kind === 'container' ? [{ status: 'healthy', at: now + ctx.opts.lifecycleMs }] : [],
    };
    store.data.deployments.push(d);
    return json(200, renderDeployment(d, ctx.opts));
  };
}

function getOf(kind: Kind) {
  return (ctx: Ctx) => json(200, renderDeployment(findDeployment(ctx.store, kind, ctx.params.name), ctx.opts));
}

function patchOf(kind: Kind) {
  return (ctx: Ctx) => {
    const { store, now } = ctx;
    const d = findDeployment(store, kind, ctx.params.name);
    const b = asObject(ctx.body);
    if (!missing(b.name) && b.name !== d.name) throw badRequest('name cannot be changed');
    const spec = clone(d.spec);
    if (kind === 'container' && !missing(b.is_spot)) spec.is_spot = optBool(b, 'is_spot');
    if (!missing(b.compute)) spec.compute = validateCompute(b.compute);
    if (!missing(b.container_registry_settings)) spec.container_registry_settings = validateRegistry(store, b.container_registry_settings);
    if (!missing(b.scaling)) spec.scaling = validateScaling(kind, b.scaling, spec.scaling as Obj);
    const containers = missing(b.containers) ? d.containers : parseContainers(store, b.containers, now, d.containers);
    d.spec = spec;
    d.containers = containers;
    if (kind === 'container' && d.status !== 'paused') {
      d.status = 'version_updating';
      d.schedule = [{ status: 'healthy', at: now + ctx.opts.lifecycleMs }];
    }
    return json(200, renderDeployment(d, ctx.opts));
  };
}

function deleteOf(kind: Kind) {
  return (ctx: Ctx) => {
    const d = findDeployment(ctx.store, kind, ctx.params.name);
    const timeout = ctx.query.get('timeout');
    if (timeout !== null) {
      const n = Number(timeout);
      if (!Number.isInteger(n) || n < 0 || n > 300_000) throw badRequest('timeout must be an integer between 0 and 300000');
    }
    ctx.store.data.deployments = ctx.store.data.deployments.filter((x) => x !== d);
    return empty(200);
  };
}

function statusOf(kind: Kind) {
  return (ctx: Ctx) => json(200, { status: findDeployment(ctx.store, kind, ctx.params.name).status });
}

function lifecycleOf(kind: Kind, op: 'restart' | 'pause' | 'resume' | 'purge-queue') {
  return (ctx: Ctx) => {
    const d = findDeployment(ctx.store, kind, ctx.params.name);
    const L = ctx.opts.lifecycleMs;
    const warmUp = () => {
      if (kind === 'container') {
        d.status = 'initializing';
        d.schedule = [{ status: 'healthy', at: ctx.now + L }];
      } else {
        d.status = 'running';
        d.schedule = [];
      }
    };
    switch (op) {
      case 'restart':
        if (d.status === 'paused') throw forbidden(`Can't restart a paused deployment; resume it first`);
        warmUp();
        break;
      case 'pause':
        d.status = 'paused';
        d.schedule = [];
        break;
      case 'resume':
        if (d.status === 'paused') warmUp();
        break;
      case 'purge-queue':
        break;
    }
    return empty(200);
  };
}

function scalingGetOf(kind: Kind) {
  return (ctx: Ctx) => json(200, clone(findDeployment(ctx.store, kind, ctx.params.name).spec.scaling));
}

function scalingPatchOf(kind: Kind) {
  return (ctx: Ctx) => {
    const d = findDeployment(ctx.store, kind, ctx.params.name);
    d.spec.scaling = validateScaling(kind, asObject(ctx.body), d.spec.scaling as Obj);
    return json(200, clone(d.spec.scaling));
  };
}

function replicas(ctx: Ctx) {
  const d = findDeployment(ctx.store, 'container', ctx.params.name);
  const scaling = d.spec.scaling as Obj;
  const min = typeof scaling.min_replica_count === 'number' ? scaling.min_replica_count : 0;
  const count = d.status === 'paused' ? 0 : d.status === 'initializing' ? min : Math.max(min, 1);
  const main = d.containers[0];
  const last = main.image.slice(main.image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  const list = Array.from({ length: count }, (_, i) => ({
    id: `${d.name}-${createHash('sha1').update(`${d.name}:${i}:${d.created_at}`).digest('hex').slice(0, 10)}`,
    status: d.status === 'initializing' ? 'starting' : 'running',
    started_at: d.created_at,
    image: main.image,
    image_name: colon > 0 ? main.image.slice(0, main.image.length - (last.length - colon)) : main.image,
    image_tag: colon > 0 ? last.slice(colon + 1) : '',
  }));
  return json(200, { list });
}

// ---------------------------------------------------------------- environment variables

function envList(d: DeploymentRec) {
  return d.containers.map((c) => ({ container_name: c.name, env: clone((c.env as Obj[]) ?? []) }));
}

function envTarget(ctx: Ctx): { d: DeploymentRec; c: ContainerRec; b: Obj } {
  const d = findDeployment(ctx.store, 'container', ctx.params.name);
  const b = asObject(ctx.body);
  const name = reqString(b, 'container_name');
  const c = d.containers.find((x) => x.name === name);
  if (!c) throw notFound(`Container ${name} not found in deployment ${d.name}`);
  return { d, c, b };
}

function envPost(ctx: Ctx) {
  const { d, c, b } = envTarget(ctx);
  const add = validateEnv(ctx.store, b.env, 'env');
  const current = (c.env as Obj[]) ?? [];
  for (const e of add) if (current.some((x) => x.name === e.name)) throw badRequest(`Environment variable ${String(e.name)} already exists`);
  c.env = [...current, ...add];
  return json(200, envList(d));
}

function envPatch(ctx: Ctx) {
  const { c, b } = envTarget(ctx);
  const upd = validateEnv(ctx.store, b.env, 'env');
  const current = [...((c.env as Obj[]) ?? [])];
  for (const e of upd) {
    const i = current.findIndex((x) => x.name === e.name);
    if (i < 0) throw notFound(`Environment variable ${String(e.name)} not found`);
    current[i] = e;
  }
  c.env = current;
  return json(200, { container_name: c.name, env: clone(current) });
}

function envDelete(ctx: Ctx) {
  const { d, c, b } = envTarget(ctx);
  if (!Array.isArray(b.env) || !b.env.every((x) => typeof x === 'string')) throw badRequest('env must be an array of variable names');
  const names = b.env as string[];
  const current = (c.env as Obj[]) ?? [];
  for (const n of names) if (!current.some((x) => x.name === n)) throw notFound(`Environment variable ${n} not found`);
  c.env = current.filter((x) => !names.includes(x.name as string));
  return json(200, envList(d));
}

// ---------------------------------------------------------------- table

function routesFor(kind: Kind, base: string): RouteDef[] {
  const r: RouteDef[] = [
    { method: 'GET', path: base, handler: listOf(kind) },
    { method: 'POST', path: base, handler: createOf(kind) },
    { method: 'GET', path: `${base}/{name}`, handler: getOf(kind) },
    { method: 'PATCH', path: `${base}/{name}`, handler: patchOf(kind) },
    { method: 'DELETE', path: `${base}/{name}`, handler: deleteOf(kind) },
    { method: 'GET', path: `${base}/{name}/status`, handler: statusOf(kind) },
    { method: 'POST', path: `${base}/{name}/pause`, handler: lifecycleOf(kind, 'pause') },
    { method: 'POST', path: `${base}/{name}/resume`, handler: lifecycleOf(kind, 'resume') },
    { method: 'POST', path: `${base}/{name}/purge-queue`, handler: lifecycleOf(kind, 'purge-queue') },
    { method: 'GET', path: `${base}/{name}/scaling`, handler: scalingGetOf(kind) },
    { method: 'PATCH', path: `${base}/{name}/scaling`, handler: scalingPatchOf(kind) },
  ];
  if (kind === 'container') {
    r.push(
      { method: 'POST', path: `${base}/{name}/restart`, handler: lifecycleOf(kind, 'restart') },
      { method: 'GET', path: `${base}/{name}/replicas`, handler: replicas },
      { method: 'GET', path: `${base}/{name}/environment-variables`, handler: (ctx) => json(200, envList(findDeployment(ctx.store, 'container', ctx.params.name))) },
      { method: 'POST', path: `${base}/{name}/environment-variables`, handler: envPost },
      { method: 'PATCH', path: `${base}/{name}/environment-variables`, handler: envPatch },
      { method: 'DELETE', path: `${base}/{name}/environment-variables`, handler: envDelete },
    );
  }
  return r;
}

export const deploymentRoutes: RouteDef[] = [
  ...routesFor('container', '/v1/container-deployments'),
  ...routesFor('job', '/v1/job-deployments'),
];

/** Deployments that reference a secret (env `secret` values or secret mounts) or registry credentials. */
export function deploymentsUsing(store: Store, what: { secret?: string; registry?: string }): string[] {
  return store.data.deployments
    .filter((d) => {
      if (what.registry) {
        const reg = d.spec.container_registry_settings;
        return isObj(reg) && isObj(reg.credentials) && reg.credentials.name === what.registry;
      }
      return d.containers.some(
        (c) =>
          ((c.env as Obj[]) ?? []).some((e) => e.type === 'secret' && e.value_or_reference_to_secret === what.secret) ||
          ((c.volume_mounts as Obj[]) ?? []).some((m) => m.type === 'secret' && m.secret_name === what.secret),
      );
    })
    .map((d) => d.name);
}
