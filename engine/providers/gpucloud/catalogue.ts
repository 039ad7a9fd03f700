/**
 * The one catalogue of gpucloud resource kinds. It drives `gpucloud list|get`, the MCP list/get tools,
 * question routing terms, create de-duplication and the emulator's routing tests. Add a kind here and
 * every surface gets it; never switch on kind names elsewhere.
 */

import type { Column, TableSpec } from '../../core/render/columns.js';

export type { Column };

export interface KindSpec extends TableSpec {
  /** Plural name used by `list` and MCP, e.g. `instances`. */
  kind: string;
  /** Singular name used by `get`, e.g. `instance`. */
  singular: string;
  aliases: string[];
  description: string;
  /** List path (always with /v1). */
  path: string;
  /** Query string appended when listing (e.g. pagination). */
  listQuery?: string;
  /** Shape of the list response. */
  shape: 'array' | 'object';
  /** Path template for a single record; `{id}` is URL-encoded. */
  getPath?: string;
  /** The single-record GET answers an array with one element (ssh keys, scripts). */
  getReturnsArray?: boolean;
  /** Field that identifies a record in paths. */
  idField: string;
  /** Human name field used to find records by name (and to de-duplicate creates). */
  nameField?: string;
  /** POST to `path` creates a record of this kind named by `nameField` in the body. */
  creatable?: boolean;
  /** Resource names are unique server-side (duplicates get 400), so a retried create cannot duplicate. */
  uniqueNames?: boolean;
  columns: Column[];
  /**
   * Tables show one row per element of this array field (with the element under `as`), for responses
   * that nest a list per record: availability is one record per location with a list of types, and a
   * row per location and type keeps every type visible however narrow the terminal.
   */
  rowsPer?: { field: string; as: string };
  /** Kinds read along with this one when a question is about it (availability names types; their prices are in instance-types). */
  readWith?: string[];
  /** Words that, on word boundaries, route a question to gpucloud and to this kind's context. */
  terms: string[];
}

const money: Column['format'] = 'price';

export const KINDS: readonly KindSpec[] = [
  {
    kind: 'instances',
    singular: 'instance',
    aliases: ['instance', 'vm', 'vms', 'servers'],
    description: 'GPU and CPU virtual machines',
    path: '/v1/instances',
    shape: 'array',
    getPath: '/v1/instances/{id}',
    idField: 'id',
    nameField: 'hostname',
    creatable: true,
    columns: [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'HOSTNAME', path: 'hostname', priority: 9 },
      { header: 'TYPE', path: 'instance_type', priority: 8 },
      { header: 'LOCATION', path: 'location', priority: 6 },
      { header: 'STATUS', path: 'status', format: 'status', priority: 9 },
      { header: 'IP', path: 'ip', priority: 7 },
      { header: '$/HOUR', path: 'price_per_hour', format: money, priority: 5 },
    ],
    terms: ['instance', 'instances', 'vm', 'vms', 'box', 'boxes', 'server', 'servers', 'idle', 'running', 'spot instance'],
  },
  {
    kind: 'clusters',
    singular: 'cluster',
    aliases: ['cluster', 'instant-clusters'],
    description: 'Instant Clusters (Slurm or Kubernetes)',
    path: '/v1/clusters',
    shape: 'array',
    getPath: '/v1/clusters/{id}',
    idField: 'id',
    nameField: 'hostname',
    creatable: true,
    columns: [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'HOSTNAME', path: 'hostname', priority: 9 },
      { header: 'TYPE', path: 'cluster_type', priority: 8 },
      { header: 'LOCATION', path: 'location', priority: 6 },
      { header: 'STATUS', path: 'status', format: 'status', priority: 9 },
      { header: 'IP', path: 'ip', priority: 7 },
      { header: 'WORKERS', path: 'worker_nodes.length', priority: 4 },
      { header: '$/HOUR', path: 'price_per_hour', format: money, priority: 5 },
    ],
    terms: ['cluster', 'clusters', 'instant cluster', 'instant clusters', 'slurm', 'head node', 'worker nodes'],
  },
  {
    kind: 'volumes',
    singular: 'volume',
    aliases: ['volume', 'disks', 'storage'],
    description: 'Block storage and shared file system volumes',
    path: '/v1/volumes',
    shape: 'array',
    getPath: '/v1/volumes/{id}',
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'TYPE', path: 'type', priority: 7 },
      { header: 'SIZE', path: 'size', format: 'gb', priority: 8 },
      { header: 'LOCATION', path: 'location', priority: 5 },
      { header: 'STATUS', path: 'status', format: 'status', priority: 9 },
      { header: 'INSTANCE', path: 'instance_id', priority: 3 },
    ],
    terms: ['volume', 'volumes', 'disk', 'disks', 'nvme', 'hdd', 'shared file system', 'sfs', 'block storage'],
  },
  {
    kind: 'instance-types',
    singular: 'instance-type',
    aliases: ['instance-type', 'types', 'gpus'],
    description: 'Instance types with prices',
    path: '/v1/instance-types',
    shape: 'array',
    idField: 'instance_type',
    nameField: 'instance_type',
    columns: [
      { header: 'TYPE', path: 'instance_type', priority: 9 },
      { header: 'MODEL', path: 'model', priority: 6 },
      { header: 'GPUS', path: 'gpu.number_of_gpus', priority: 7 },
      { header: 'GPU MEM', path: 'gpu_memory.size_in_gigabytes', format: 'gb', priority: 5 },
      { header: 'CPUS', path: 'cpu.number_of_cores', priority: 4 },
      { header: 'RAM', path: 'memory.size_in_gigabytes', format: 'gb', priority: 4 },
      { header: '$/HOUR', path: 'price_per_hour', format: money, priority: 8 },
      { header: 'SPOT $/HOUR', path: 'spot_price', format: money, priority: 3 },
    ],
    terms: ['instance type', 'instance types', 'gpu type', 'gpu types', 'pricing', 'price', 'prices', 'h100', 'h200', 'a100', 'b200', 'v100', 'l40s', 'rtx6000'],
  },
  {
    kind: 'locations',
    singular: 'location',
    aliases: ['location', 'datacenters', 'regions'],
    description: 'Datacenter locations',
    path: '/v1/locations',
    shape: 'array',
    idField: 'code',
    nameField: 'code',
    columns: [
      { header: 'CODE', path: 'code', priority: 9 },
      { header: 'NAME', path: 'name', priority: 8 },
      { header: 'COUNTRY', path: 'country_code', priority: 5 },
    ],
    terms: ['location', 'locations', 'datacenter', 'datacenters', 'region', 'regions'],
  },
  {
    kind: 'containers',
    singular: 'container',
    aliases: ['container', 'container-deployments', 'deployments', 'serverless'],
    description: 'Serverless container deployments',
    path: '/v1/container-deployments',
    shape: 'array',
    getPath: '/v1/container-deployments/{id}',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'COMPUTE', path: 'compute.name', priority: 7 },
      { header: 'SIZE', path: 'compute.size', priority: 5 },
      { header: 'SPOT', path: 'is_spot', format: 'bool', priority: 4 },
      { header: 'ENDPOINT', path: 'endpoint_base_url', priority: 6 },
      { header: 'CREATED', path: 'created_at', priority: 3 },
    ],
    terms: ['container', 'containers', 'serverless container', 'serverless containers', 'container deployment', 'container deployments', 'inference endpoint', 'endpoint', 'autoscaling'],
  },
  {
    kind: 'jobs',
    singular: 'job',
    aliases: ['job', 'job-deployments', 'batch'],
    description: 'Serverless batch job deployments',
    path: '/v1/job-deployments',
    shape: 'array',
    getPath: '/v1/job-deployments/{id}',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'COMPUTE', path: 'compute.name', priority: 7 },
      { header: 'SIZE', path: 'compute.size', priority: 5 },
      { header: 'CREATED', path: 'created_at', priority: 3 },
    ],
    terms: ['job', 'jobs', 'job deployment', 'job deployments', 'batch job', 'batch jobs', 'serverless job', 'serverless jobs'],
  },
  {
    kind: 'secrets',
    singular: 'secret',
    aliases: ['secret'],
    description: 'Secrets for container deployments (names only; values are never returned)',
    path: '/v1/secrets',
    shape: 'array',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'TYPE', path: 'secret_type', priority: 6 },
      { header: 'CREATED', path: 'created_at', priority: 4 },
    ],
    terms: ['secret', 'secrets'],
  },
  {
    kind: 'file-secrets',
    singular: 'file-secret',
    aliases: ['file-secret'],
    description: 'File secrets for container deployments',
    path: '/v1/file-secrets',
    shape: 'array',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'FILES', path: 'file_names', format: 'list', priority: 7 },
      { header: 'CREATED', path: 'created_at', priority: 4 },
    ],
    terms: ['file secret', 'file secrets'],
  },
  {
    kind: 'registry-creds',
    singular: 'registry-cred',
    aliases: ['registry-credentials', 'container-registry-credentials', 'registries'],
    description: 'Container registry credentials',
    path: '/v1/container-registry-credentials',
    shape: 'array',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'CREATED', path: 'created_at', priority: 4 },
    ],
    terms: ['registry credential', 'registry credentials', 'container registry', 'registry creds'],
  },
  {
    kind: 'ssh-keys',
    singular: 'ssh-key',
    aliases: ['ssh-key', 'sshkeys', 'keys'],
    description: 'SSH public keys',
    path: '/v1/sshkeys',
    shape: 'array',
    getPath: '/v1/sshkeys/{id}',
    getReturnsArray: true,
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'FINGERPRINT', path: 'fingerprint', priority: 3 },
    ],
    terms: ['ssh key', 'ssh keys', 'sshkey', 'sshkeys'],
  },
  {
    kind: 'scripts',
    singular: 'script',
    aliases: ['script', 'startup-scripts'],
    description: 'Startup scripts',
    path: '/v1/scripts',
    listQuery: 'page=1&pageSize=100',
    shape: 'array',
    getPath: '/v1/scripts/{id}',
    getReturnsArray: true,
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'NAME', path: 'name', priority: 9 },
    ],
    terms: ['startup script', 'startup scripts'],
  },
  {
    kind: 'images',
    singular: 'image',
    aliases: ['image', 'os-images'],
    description: 'Instance OS images',
    path: '/v1/images',
    shape: 'array',
    idField: 'id',
    nameField: 'image_type',
    columns: [
      { header: 'IMAGE', path: 'image_type', priority: 9 },
      { header: 'NAME', path: 'name', priority: 7 },
      { header: 'DEFAULT', path: 'is_default', format: 'bool', priority: 3 },
      { header: 'ID', path: 'id', priority: 1 },
    ],
    terms: ['image', 'images', 'os image', 'os images', 'cuda'],
  },
  {
    kind: 'cluster-images',
    singular: 'cluster-image',
    aliases: ['cluster-image'],
    description: 'Instant Cluster OS images (one is labelled for Kubernetes)',
    path: '/v1/images/cluster',
    shape: 'array',
    idField: 'id',
    nameField: 'image_type',
    columns: [
      { header: 'IMAGE', path: 'image_type', priority: 9 },
      { header: 'NAME', path: 'name', priority: 7 },
      { header: 'CATEGORY', path: 'category', priority: 5 },
      { header: 'ID', path: 'id', priority: 1 },
    ],
    terms: ['cluster image', 'cluster images', 'kubernetes image'],
  },
  {
    kind: 'cluster-types',
    singular: 'cluster-type',
    aliases: ['cluster-type'],
    description: 'Instant Cluster types with prices',
    path: '/v1/cluster-types',
    shape: 'array',
    idField: 'cluster_type',
    nameField: 'cluster_type',
    columns: [
      { header: 'TYPE', path: 'cluster_type', priority: 9 },
      { header: 'MODEL', path: 'model', priority: 6 },
      { header: 'GPUS', path: 'gpu.number_of_gpus', priority: 7 },
      { header: '$/HOUR', path: 'price_per_hour', format: money, priority: 8 },
    ],
    terms: ['cluster type', 'cluster types'],
  },
  {
    kind: 'container-types',
    singular: 'container-type',
    aliases: ['container-type', 'serverless-compute'],
    description: 'Serverless container compute types with prices',
    path: '/v1/container-types',
    shape: 'array',
    idField: 'id',
    nameField: 'name',
    columns: [
      { header: 'NAME', path: 'name', priority: 9 },
      { header: 'MODEL', path: 'model', priority: 6 },
      { header: '$/HOUR', path: 'serverless_price', format: money, priority: 8 },
      { header: 'SPOT $/HOUR', path: 'serverless_spot_price', format: money, priority: 5 },
      { header: 'ID', path: 'id', priority: 1 },
    ],
    terms: ['container type', 'container types', 'serverless price', 'serverless pricing'],
  },
  {
    kind: 'volume-types',
    singular: 'volume-type',
    aliases: ['volume-type'],
    description: 'Volume types with prices',
    path: '/v1/volume-types',
    shape: 'array',
    idField: 'type',
    nameField: 'type',
    columns: [
      { header: 'TYPE', path: 'type', priority: 9 },
      { header: '$/GB/MONTH', path: 'price.price_per_month_per_gb', format: money, priority: 8 },
      { header: 'SHARED FS', path: 'is_shared_fs', format: 'bool', priority: 5 },
    ],
    terms: ['volume type', 'volume types', 'storage price', 'storage pricing'],
  },
  {
    kind: 'availability',
    singular: 'availability',
    aliases: ['instance-availability', 'capacity'],
    description: 'Instance types available now, per location',
    path: '/v1/instance-availability',
    shape: 'array',
    idField: 'location_code',
    nameField: 'location_code',
    columns: [
      { header: 'LOCATION', path: 'location_code', priority: 9 },
      { header: 'INSTANCE TYPE', path: 'instance_type', priority: 9 },
    ],
    rowsPer: { field: 'availabilities', as: 'instance_type' },
    readWith: ['instance-types'],
    terms: ['availability', 'available', 'capacity', 'in stock'],
  },
  {
    kind: 'cluster-availability',
    singular: 'cluster-availability',
    aliases: [],
    description: 'Instant Cluster types available now, per location',
    path: '/v1/cluster-availability',
    shape: 'array',
    idField: 'location_code',
    nameField: 'location_code',
    columns: [
      { header: 'LOCATION', path: 'location_code', priority: 9 },
      { header: 'CLUSTER TYPE', path: 'cluster_type', priority: 9 },
    ],
    rowsPer: { field: 'availabilities', as: 'cluster_type' },
    readWith: ['cluster-types'],
    terms: ['cluster availability'],
  },
  {
    kind: 'long-term-periods',
    singular: 'long-term-period',
    aliases: ['long-term', 'periods'],
    description: 'Long-term pricing periods and discounts',
    path: '/v1/long-term/periods',
    shape: 'array',
    idField: 'code',
    nameField: 'code',
    columns: [
      { header: 'CODE', path: 'code', priority: 9 },
      { header: 'NAME', path: 'name', priority: 7 },
      { header: 'UNIT', path: 'unit_name', priority: 4 },
      { header: 'LENGTH', path: 'unit_value', priority: 5 },
      { header: 'DISCOUNT %', path: 'discount_percentage', priority: 8 },
      { header: 'ENABLED', path: 'is_enabled', format: 'bool', priority: 3 },
    ],
    terms: ['long-term', 'long term', 'commitment', 'discount', 'discounts', 'reserved'],
  },
  {
    kind: 'balance',
    singular: 'balance',
    aliases: ['credit', 'credits'],
    description: 'Account balance',
    path: '/v1/balance',
    shape: 'object',
    idField: 'currency',
    columns: [
      { header: 'AMOUNT', path: 'amount', format: money, priority: 9 },
      { header: 'CURRENCY', path: 'currency', priority: 8 },
    ],
    terms: ['balance', 'credit', 'credits', 'funds'],
  },
];

const BY_NAME = new Map<string, KindSpec>();
for (const spec of KINDS) {
  for (const name of [spec.kind, spec.singular, ...spec.aliases]) {
    if (!BY_NAME.has(name)) BY_NAME.set(name, spec);
  }
}

/** Finds a kind by its plural, singular or alias name (case-insensitive). */
export function findKind(name: string): KindSpec | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

export function kindNames(): string[] {
  return KINDS.map((k) => k.kind);
}

/** The kinds that can be fetched one at a time (get). */
export function gettableKinds(): KindSpec[] {
  return KINDS.filter((k) => k.getPath || k.nameField);
}

/** Concrete path of one record; the id is URL-encoded. */
export function recordPath(spec: KindSpec, id: string): string {
  if (!spec.getPath) throw new Error(`kind ${spec.kind} has no single-record path`);
  return spec.getPath.replace('{id}', encodeURIComponent(id));
}

/** The path that lists a kind, with its list query (e.g. pagination). */
export function listPathOf(spec: KindSpec): string {
  return spec.listQuery ? `${spec.path}?${spec.listQuery}` : spec.path;
}

/** The kind whose collection a request path is in (`/v1/instances/<id>/tags` → instances), by the longest matching path. */
export function kindAtPath(path: string): KindSpec | undefined {
  const clean = normalizeApiPath(path).toLowerCase();
  let best: KindSpec | undefined;
  for (const k of KINDS) {
    if ((clean === k.path || clean.startsWith(`${k.path}/`)) && (!best || k.path.length > best.path.length)) best = k;
  }
  return best;
}

/** Path (without query) → the kind created by POSTing there, for create de-duplication. */
export function kindCreatedAt(path: string): KindSpec | undefined {
  const clean = normalizeApiPath(path);
  return KINDS.find((k) => k.creatable && k.path === clean);
}

/**
 * Normalises a request path for classification and routing: drops the query string and fragment,
 * folds repeated slashes and removes a trailing slash. Case is kept (IDs are case-sensitive).
 */
export function normalizeApiPath(path: string): string {
  let p = path.split(/[?#]/, 1)[0] ?? '';
  p = p.replace(/\/{2,}/g, '/');
  if (p.length > 1) p = p.replace(/\/+$/, '');
  if (!p.startsWith('/')) p = '/' + p;
  return p;
}

/** UUID check used to tell `get <id>` from `get <hostname>`. */
export function looksLikeId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
