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

/** A table column as data: header, dotted path, priority (a narrow terminal drops low ones first), format. */
type ColumnRow = readonly [header: string, path: string, priority: number, format?: Column['format']];

/**
 * One kind as written below: a KindSpec with what most kinds share left out — `singular` is the kind
 * without its final "s", `shape` is an array, `get` means the record is read at `<path>/{id}` — and its
 * columns as rows.
 */
interface KindRow extends Omit<KindSpec, 'singular' | 'shape' | 'getPath' | 'columns'> {
  singular?: string;
  shape?: KindSpec['shape'];
  get?: boolean;
  columns: readonly ColumnRow[];
}

const KIND_ROWS: readonly KindRow[] = [
  {
    kind: 'instances',
    aliases: ['instance', 'vm', 'vms', 'servers'],
    description: 'GPU and CPU virtual machines',
    path: '/v1/instances',
    get: true,
    idField: 'id',
    nameField: 'hostname',
    creatable: true,
    columns: [['ID', 'id', 1], ['HOSTNAME', 'hostname', 9], ['TYPE', 'instance_type', 8], ['LOCATION', 'location', 6], ['STATUS', 'status', 9, 'status'], ['IP', 'ip', 7], ['$/HOUR', 'price_per_hour', 5, 'price']],
    terms: ['instance', 'instances', 'vm', 'vms', 'box', 'boxes', 'server', 'servers', 'idle', 'running', 'spot instance'],
  },
  {
    kind: 'clusters',
    aliases: ['cluster', 'instant-clusters'],
    description: 'Instant Clusters (Slurm or Kubernetes)',
    path: '/v1/clusters',
    get: true,
    idField: 'id',
    nameField: 'hostname',
    creatable: true,
    columns: [['ID', 'id', 1], ['HOSTNAME', 'hostname', 9], ['TYPE', 'cluster_type', 8], ['LOCATION', 'location', 6], ['STATUS', 'status', 9, 'status'], ['IP', 'ip', 7], ['WORKERS', 'worker_nodes.length', 4], ['$/HOUR', 'price_per_hour', 5, 'price']],
    terms: ['cluster', 'clusters', 'instant cluster', 'instant clusters', 'slurm', 'head node', 'worker nodes'],
  },
  {
    kind: 'volumes',
    aliases: ['volume', 'disks', 'storage'],
    description: 'Block storage and shared file system volumes',
    path: '/v1/volumes',
    get: true,
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [['ID', 'id', 1], ['NAME', 'name', 9], ['TYPE', 'type', 7], ['SIZE', 'size', 8, 'gb'], ['LOCATION', 'location', 5], ['STATUS', 'status', 9, 'status'], ['INSTANCE', 'instance_id', 3]],
    terms: ['volume', 'volumes', 'disk', 'disks', 'nvme', 'hdd', 'shared file system', 'sfs', 'block storage'],
  },
  {
    kind: 'instance-types',
    aliases: ['instance-type', 'types', 'gpus'],
    description: 'Instance types with prices',
    path: '/v1/instance-types',
    idField: 'instance_type',
    nameField: 'instance_type',
    columns: [['TYPE', 'instance_type', 9], ['MODEL', 'model', 6], ['GPUS', 'gpu.number_of_gpus', 7], ['GPU MEM', 'gpu_memory.size_in_gigabytes', 5, 'gb'], ['CPUS', 'cpu.number_of_cores', 4], ['RAM', 'memory.size_in_gigabytes', 4, 'gb'], ['$/HOUR', 'price_per_hour', 8, 'price'], ['SPOT $/HOUR', 'spot_price', 3, 'price']],
    terms: ['instance type', 'instance types', 'gpu type', 'gpu types', 'pricing', 'price', 'prices', 'h100', 'h200', 'a100', 'b200', 'v100', 'l40s', 'rtx6000'],
  },
  {
    kind: 'locations',
    aliases: ['location', 'datacenters', 'regions'],
    description: 'Datacenter locations',
    path: '/v1/locations',
    idField: 'code',
    nameField: 'code',
    columns: [['CODE', 'code', 9], ['NAME', 'name', 8], ['COUNTRY', 'country_code', 5]],
    terms: ['location', 'locations', 'datacenter', 'datacenters', 'region', 'regions'],
  },
  {
    kind: 'containers',
    aliases: ['container', 'container-deployments', 'deployments', 'serverless'],
    description: 'Serverless container deployments',
    path: '/v1/container-deployments',
    get: true,
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [['NAME', 'name', 9], ['COMPUTE', 'compute.name', 7], ['SIZE', 'compute.size', 5], ['SPOT', 'is_spot', 4, 'bool'], ['ENDPOINT', 'endpoint_base_url', 6], ['CREATED', 'created_at', 3]],
    terms: ['container', 'containers', 'serverless container', 'serverless containers', 'container deployment', 'container deployments', 'inference endpoint', 'endpoint', 'autoscaling'],
  },
  {
    kind: 'jobs',
    aliases: ['job', 'job-deployments', 'batch'],
    description: 'Serverless batch job deployments',
    path: '/v1/job-deployments',
    get: true,
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [['NAME', 'name', 9], ['COMPUTE', 'compute.name', 7], ['SIZE', 'compute.size', 5], ['CREATED', 'created_at', 3]],
    terms: ['job', 'jobs', 'job deployment', 'job deployments', 'batch job', 'batch jobs', 'serverless job', 'serverless jobs'],
  },
  {
    kind: 'secrets',
    aliases: ['secret'],
    description: 'Secrets for container deployments (names only; values are never returned)',
    path: '/v1/secrets',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [['NAME', 'name', 9], ['TYPE', 'secret_type', 6], ['CREATED', 'created_at', 4]],
    terms: ['secret', 'secrets'],
  },
  {
    kind: 'file-secrets',
    aliases: ['file-secret'],
    description: 'File secrets for container deployments',
    path: '/v1/file-secrets',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [['NAME', 'name', 9], ['FILES', 'file_names', 7, 'list'], ['CREATED', 'created_at', 4]],
    terms: ['file secret', 'file secrets'],
  },
  {
    kind: 'registry-creds',
    aliases: ['registry-credentials', 'container-registry-credentials', 'registries'],
    description: 'Container registry credentials',
    path: '/v1/container-registry-credentials',
    idField: 'name',
    nameField: 'name',
    creatable: true,
    uniqueNames: true,
    columns: [['NAME', 'name', 9], ['CREATED', 'created_at', 4]],
    terms: ['registry credential', 'registry credentials', 'container registry', 'registry creds'],
  },
  {
    kind: 'ssh-keys',
    aliases: ['ssh-key', 'sshkeys', 'keys'],
    description: 'SSH public keys',
    path: '/v1/sshkeys',
    get: true,
    getReturnsArray: true,
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [['ID', 'id', 1], ['NAME', 'name', 9], ['FINGERPRINT', 'fingerprint', 3]],
    terms: ['ssh key', 'ssh keys', 'sshkey', 'sshkeys'],
  },
  {
    kind: 'scripts',
    aliases: ['script', 'startup-scripts'],
    description: 'Startup scripts',
    path: '/v1/scripts',
    listQuery: 'page=1&pageSize=100',
    get: true,
    getReturnsArray: true,
    idField: 'id',
    nameField: 'name',
    creatable: true,
    columns: [['ID', 'id', 1], ['NAME', 'name', 9]],
    terms: ['startup script', 'startup scripts'],
  },
  {
    kind: 'images',
    aliases: ['image', 'os-images'],
    description: 'Instance OS images',
    path: '/v1/images',
    idField: 'id',
    nameField: 'image_type',
    columns: [['IMAGE', 'image_type', 9], ['NAME', 'name', 7], ['DEFAULT', 'is_default', 3, 'bool'], ['ID', 'id', 1]],
    terms: ['image', 'images', 'os image', 'os images', 'cuda'],
  },
  {
    kind: 'cluster-images',
    aliases: ['cluster-image'],
    description: 'Instant Cluster OS images (one is labelled for Kubernetes)',
    path: '/v1/images/cluster',
    idField: 'id',
    nameField: 'image_type',
    columns: [['IMAGE', 'image_type', 9], ['NAME', 'name', 7], ['CATEGORY', 'category', 5], ['ID', 'id', 1]],
    terms: ['cluster image', 'cluster images', 'kubernetes image'],
  },
  {
    kind: 'cluster-types',
    aliases: ['cluster-type'],
    description: 'Instant Cluster types with prices',
    path: '/v1/cluster-types',
    idField: 'cluster_type',
    nameField: 'cluster_type',
    columns: [['TYPE', 'cluster_type', 9], ['MODEL', 'model', 6], ['GPUS', 'gpu.number_of_gpus', 7], ['$/HOUR', 'price_per_hour', 8, 'price']],
    terms: ['cluster type', 'cluster types'],
  },
  {
    kind: 'container-types',
    aliases: ['container-type', 'serverless-compute'],
    description: 'Serverless container compute types with prices',
    path: '/v1/container-types',
    idField: 'id',
    nameField: 'name',
    columns: [['NAME', 'name', 9], ['MODEL', 'model', 6], ['$/HOUR', 'serverless_price', 8, 'price'], ['SPOT $/HOUR', 'serverless_spot_price', 5, 'price'], ['ID', 'id', 1]],
    terms: ['container type', 'container types', 'serverless price', 'serverless pricing'],
  },
  {
    kind: 'volume-types',
    aliases: ['volume-type'],
    description: 'Volume types with prices',
    path: '/v1/volume-types',
    idField: 'type',
    nameField: 'type',
    columns: [['TYPE', 'type', 9], ['$/GB/MONTH', 'price.price_per_month_per_gb', 8, 'price'], ['SHARED FS', 'is_shared_fs', 5, 'bool']],
    terms: ['volume type', 'volume types', 'storage price', 'storage pricing'],
  },
  {
    kind: 'availability',
    aliases: ['instance-availability', 'capacity'],
    description: 'Instance types available now, per location',
    path: '/v1/instance-availability',
    idField: 'location_code',
    nameField: 'location_code',
    rowsPer: { field: 'availabilities', as: 'instance_type' },
    readWith: ['instance-types'],
    columns: [['LOCATION', 'location_code', 9], ['INSTANCE TYPE', 'instance_type', 9]],
    terms: ['availability', 'available', 'capacity', 'in stock'],
  },
  {
    kind: 'cluster-availability',
    aliases: [],
    description: 'Instant Cluster types available now, per location',
    path: '/v1/cluster-availability',
    idField: 'location_code',
    nameField: 'location_code',
    rowsPer: { field: 'availabilities', as: 'cluster_type' },
    readWith: ['cluster-types'],
    columns: [['LOCATION', 'location_code', 9], ['CLUSTER TYPE', 'cluster_type', 9]],
    terms: ['cluster availability'],
  },
  {
    kind: 'long-term-periods',
    aliases: ['long-term', 'periods'],
    description: 'Long-term pricing periods and discounts',
    path: '/v1/long-term/periods',
    idField: 'code',
    nameField: 'code',
    columns: [['CODE', 'code', 9], ['NAME', 'name', 7], ['UNIT', 'unit_name', 4], ['LENGTH', 'unit_value', 5], ['DISCOUNT %', 'discount_percentage', 8], ['ENABLED', 'is_enabled', 3, 'bool']],
    terms: ['long-term', 'long term', 'commitment', 'discount', 'discounts', 'reserved'],
  },
  {
    kind: 'balance',
    aliases: ['credit', 'credits'],
    description: 'Account balance',
    path: '/v1/balance',
    shape: 'object',
    idField: 'currency',
    columns: [['AMOUNT', 'amount', 9, 'money'], ['CURRENCY', 'currency', 8]],
    terms: ['balance', 'credit', 'credits', 'funds'],
  },
];

function kindSpec({ get, columns, ...row }: KindRow): KindSpec {
  return {
    ...row,
    singular: row.singular ?? row.kind.replace(/s$/, ''),
    shape: row.shape ?? 'array',
    ...(get ? { getPath: `${row.path}/{id}` } : {}),
    columns: columns.map(([header, path, priority, format]) => ({ header, path, ...(format ? { format } : {}), priority })),
  };
}

export const KINDS: readonly KindSpec[] = KIND_ROWS.map(kindSpec);

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
