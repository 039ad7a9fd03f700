/**
 * The gpucloud routes that change something, as the wire reference (§5–§17) and the emulator know them:
 * for each, the query keys the API reads on it and the fields of the request body its decoder fills.
 * A step's canonical request (./request.ts) matches its path against these templates, folds its body's
 * keys to these field names the way the API's Go decoder does, and refuses a query key a mutating route
 * does not know. The pricer (./change-price.ts) names the routes it prices from the same table.
 *
 * Shapes list the fields that decide what a request does or costs (and their nesting); an object field
 * whose inner fields do not matter is `FREE` (its keys are still checked for two that fold to one).
 */

/** A body field: a value, an object with fields of its own, or a list of either. */
export type Shape = 'value' | 'free' | ObjectShape | { list: Shape };
export interface ObjectShape {
  [field: string]: Shape;
}

const V = 'value' as const;
const FREE = 'free' as const;
const list = (item: Shape): Shape => ({ list: item });

export interface RouteSpec {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `/v1/container-deployments/{name}/scaling`: `{…}` is one ID segment, everything else a fixed word. */
  template: string;
  /** Query keys the API reads on this route (any other makes the request refused). */
  query?: readonly string[];
  body?: ObjectShape;
}

const TAGS = list({ key: V, value: V });

const INSTANCE_CREATE: ObjectShape = {
  instance_type: V,
  image: V,
  hostname: V,
  description: V,
  location_code: V,
  ssh_key_ids: V,
  startup_script_id: V,
  os_volume: { name: V, size: V, on_spot_discontinue: V },
  volumes: list({ name: V, size: V, type: V, on_spot_discontinue: V }),
  existing_volumes: V,
  is_spot: V,
  coupon: V,
  contract: V,
  pricing: V,
  tags: TAGS,
};
const INSTANCE_ACTION: ObjectShape = { action: V, id: V, volume_ids: V, delete_permanently: V };
const VOLUME_CREATE: ObjectShape = { type: V, name: V, size: V, location_code: V, instance_id: V, instance_ids: V, on_spot_discontinue: V, tags: TAGS };
const VOLUME_ACTION: ObjectShape = { id: V, action: V, instance_id: V, instance_ids: V, name: V, size: V, type: V, is_permanent: V, location_code: V };
const CLUSTER_CREATE: ObjectShape = {
  cluster_type: V,
  image: V,
  hostname: V,
  description: V,
  ssh_key_ids: V,
  location_code: V,
  contract: V,
  startup_script_id: V,
  shared_volume: { name: V, size: V },
  existing_volumes: list({ id: V }),
  auto_rent_extension: V,
  turn_to_pay_as_you_go: V,
  extension_settings: V,
  coupon: V,
  tags: TAGS,
};
const CLUSTER_ACTION: ObjectShape = { actions: list({ action: V, id: V }), action: V, id: V };
const COMPUTE: ObjectShape = { name: V, size: V };
const CONTAINER_SCALING: ObjectShape = {
  min_replica_count: V,
  max_replica_count: V,
  scale_down_policy: FREE,
  scale_up_policy: FREE,
  queue_message_ttl_seconds: V,
  concurrent_requests_per_replica: V,
  scaling_triggers: FREE,
};
const JOB_SCALING: ObjectShape = { max_replica_count: V, queue_message_ttl_seconds: V, deadline_seconds: V };
const CONTAINER_DEPLOYMENT: ObjectShape = { name: V, is_spot: V, compute: COMPUTE, container_registry_settings: FREE, scaling: CONTAINER_SCALING, containers: list(FREE) };
const JOB_DEPLOYMENT: ObjectShape = { name: V, compute: COMPUTE, container_registry_settings: FREE, scaling: JOB_SCALING, containers: list(FREE) };
const ENV_VARS: ObjectShape = { container_name: V, env: V };

const deploymentRoutes = (base: string, kind: 'container' | 'job'): RouteSpec[] => [
  { method: 'POST', template: base, body: kind === 'container' ? CONTAINER_DEPLOYMENT : JOB_DEPLOYMENT },
  { method: 'PATCH', template: `${base}/{name}`, body: kind === 'container' ? CONTAINER_DEPLOYMENT : JOB_DEPLOYMENT },
  { method: 'DELETE', template: `${base}/{name}`, query: ['timeout'] },
  { method: 'PATCH', template: `${base}/{name}/scaling`, body: kind === 'container' ? CONTAINER_SCALING : JOB_SCALING },
  { method: 'POST', template: `${base}/{name}/pause` },
  { method: 'POST', template: `${base}/{name}/resume` },
  { method: 'POST', template: `${base}/{name}/purge-queue` },
  ...(kind === 'container'
    ? ([
        { method: 'POST', template: `${base}/{name}/restart` },
        { method: 'POST', template: `${base}/{name}/environment-variables`, body: ENV_VARS },
        { method: 'PATCH', template: `${base}/{name}/environment-variables`, body: ENV_VARS },
        { method: 'DELETE', template: `${base}/{name}/environment-variables`, body: ENV_VARS },
      ] as RouteSpec[])
    : []),
];

const tagRoutes = (base: string): RouteSpec[] => [
  { method: 'POST', template: `${base}/{id}/tags`, body: { key: V, value: V } },
  { method: 'DELETE', template: `${base}/{id}/tags/{key}` },
];

export const CHANGE_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', template: '/v1/instances', body: INSTANCE_CREATE },
  { method: 'PUT', template: '/v1/instances', body: INSTANCE_ACTION },
  // Deprecated (wire reference §5) but possibly still served: the same actions as PUT /v1/instances.
  { method: 'POST', template: '/v1/instances/action', body: INSTANCE_ACTION },
  ...tagRoutes('/v1/instances'),
  { method: 'POST', template: '/v1/volumes', body: VOLUME_CREATE },
  { method: 'PUT', template: '/v1/volumes', body: VOLUME_ACTION },
  { method: 'DELETE', template: '/v1/volumes/{id}', query: ['force'], body: { is_permanent: V } },
  ...tagRoutes('/v1/volumes'),
  { method: 'POST', template: '/v1/clusters', body: CLUSTER_CREATE },
  { method: 'PUT', template: '/v1/clusters', body: CLUSTER_ACTION },
  ...tagRoutes('/v1/clusters'),
  ...['/v1/sshkeys', '/v1/ssh-keys'].flatMap((base): RouteSpec[] => [
    { method: 'POST', template: base, body: { name: V, key: V } },
    { method: 'DELETE', template: base, body: { keys: V } },
    { method: 'DELETE', template: `${base}/{id}` },
  ]),
  { method: 'POST', template: '/v1/scripts', body: { name: V, script: V } },
  { method: 'DELETE', template: '/v1/scripts', body: { scripts: V } },
  { method: 'DELETE', template: '/v1/scripts/{id}' },
  { method: 'POST', template: '/v1/secrets', body: { name: V, value: V } },
  { method: 'DELETE', template: '/v1/secrets/{name}', query: ['force'] },
  { method: 'POST', template: '/v1/file-secrets', body: { name: V, files: list({ file_name: V, base64_content: V }) } },
  { method: 'DELETE', template: '/v1/file-secrets/{name}', query: ['force'] },
  { method: 'POST', template: '/v1/container-registry-credentials', body: { name: V, type: V } },
  { method: 'DELETE', template: '/v1/container-registry-credentials/{name}', query: ['force'] },
  ...deploymentRoutes('/v1/container-deployments', 'container'),
  ...deploymentRoutes('/v1/job-deployments', 'job'),
];

/** Whether a template segment stands for one ID (`{name}`). */
export const isParam = (word: string): boolean => /^\{\w+\}$/.test(word);

const WORDS = new Map(CHANGE_ROUTES.map((r) => [r, r.template.split('/').slice(1)] as const));

/** The change route a method and canonical segments are, if any (fixed words compared exactly). */
export function changeRoute(method: string, segments: readonly string[]): RouteSpec | undefined {
  return CHANGE_ROUTES.find((r) => {
    if (r.method !== method) return false;
    const want = WORDS.get(r)!;
    return want.length === segments.length && want.every((w, i) => isParam(w) || w === segments[i]);
  });
}

/** The fixed words that stand where another route has its ID (`/v1/instances/action`, `/v1/volumes/trash`). */
export const WORDS_AT_ID = new Set(['action', 'trash', 'cluster', 'availability', 'periods', 'price-history']);
