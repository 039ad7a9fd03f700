/**
 * The Kubernetes resource kinds this tool names, in one table: where their collections live, how
 * kubectl calls them, and their table columns. Paths are parsed here too, so classification, the
 * kubectl equivalents, `k8s get` and the duplicate-name lookup all read one definition.
 */
import type { Column } from '../../core/render/columns.js';

export interface K8sKind {
  /** Plural resource name as in API paths and `k8s get <kind>` (`deployments`). */
  resource: string;
  /** What kubectl and people call one (`deployment`). */
  singular: string;
  /** The object's `kind` field. */
  kind: string;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  namespaced: boolean;
  /** kubectl's short name (`po`, `deploy`, `svc`). */
  short: string;
  /** Table columns of `k8s get` over the rows of `row`. */
  columns: Column[];
  row(item: Record<string, any>): Record<string, unknown>;
}

const age = (item: Record<string, any>) => ageOf(item?.metadata?.creationTimestamp);

/** `5d`, `3h`, `12m`, `40s` like kubectl's AGE column. */
export function ageOf(timestamp: unknown, now = Date.now()): string {
  const t = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (!Number.isFinite(t)) return '-';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

const NAME: Column = { header: 'NAME', path: 'name', priority: 10 };
const NAMESPACE: Column = { header: 'NAMESPACE', path: 'namespace', priority: 8 };
const AGE: Column = { header: 'AGE', path: 'age', priority: 3 };

/**
 * One kind as written below: a K8sKind with what every kind shares left out — `singular` is the
 * resource without its final "s", `kind` the singular capitalised, `prefix` the core group (`/api/v1`)
 * unless another is named, and each row carries the object's namespace, name and age beside the fields
 * `row` gives.
 */
type KindRow = Omit<K8sKind, 'singular' | 'kind' | 'prefix'> & { prefix?: string };

const KIND_ROWS: readonly KindRow[] = [
  {
    resource: 'pods',
    short: 'po',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'READY', path: 'ready', priority: 7 }, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, { header: 'RESTARTS', path: 'restarts', priority: 5 }, { header: 'NODE', path: 'node', priority: 4 }, AGE],
    row: (p) => {
      const statuses: any[] = p.status?.containerStatuses ?? [];
      return {
        ready: `${statuses.filter((c) => c.ready).length}/${(p.spec?.containers ?? []).length || statuses.length}`,
        status: p.metadata?.deletionTimestamp ? 'Terminating' : p.status?.phase,
        restarts: statuses.reduce((n, c) => n + (Number(c.restartCount) || 0), 0),
        node: p.spec?.nodeName,
      };
    },
  },
  {
    resource: 'deployments',
    short: 'deploy',
    prefix: '/apis/apps/v1',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'READY', path: 'ready', priority: 9 }, { header: 'UP-TO-DATE', path: 'updated', priority: 6 }, { header: 'AVAILABLE', path: 'available', priority: 7 }, { header: 'IMAGE', path: 'image', priority: 5 }, AGE],
    row: (d) => ({
      ready: `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
      updated: d.status?.updatedReplicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
      image: (d.spec?.template?.spec?.containers ?? []).map((c: any) => c.image).join(', '),
    }),
  },
  {
    resource: 'services',
    short: 'svc',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'TYPE', path: 'type', priority: 7 }, { header: 'CLUSTER-IP', path: 'clusterIP', priority: 6 }, { header: 'EXTERNAL-IP', path: 'external', priority: 5 }, { header: 'PORTS', path: 'ports', priority: 8 }, AGE],
    row: (s) => ({
      type: s.spec?.type ?? 'ClusterIP',
      clusterIP: s.spec?.clusterIP,
      external: (s.status?.loadBalancer?.ingress ?? []).map((i: any) => i.ip ?? i.hostname).join(', ') || undefined,
      ports: (s.spec?.ports ?? []).map((p: any) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(', '),
    }),
  },
  {
    resource: 'nodes',
    short: 'no',
    namespaced: false,
    columns: [NAME, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, { header: 'ROLES', path: 'roles', priority: 6 }, { header: 'VERSION', path: 'version', priority: 5 }, { header: 'CPU', path: 'cpu', priority: 4 }, { header: 'MEMORY', path: 'memory', priority: 4 }, AGE],
    row: (n) => {
      const ready = (n.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      const roles = Object.keys(n.metadata?.labels ?? {})
        .filter((l) => l.startsWith('node-role.kubernetes.io/'))
        .map((l) => l.slice('node-role.kubernetes.io/'.length));
      return {
        status: ready?.status === 'True' ? 'Ready' : 'NotReady',
        roles: roles.join(',') || '<none>',
        version: n.status?.nodeInfo?.kubeletVersion,
        cpu: n.status?.allocatable?.cpu,
        memory: n.status?.allocatable?.memory,
      };
    },
  },
  {
    resource: 'events',
    short: 'ev',
    namespaced: true,
    columns: [NAMESPACE, { header: 'TYPE', path: 'type', priority: 7 }, { header: 'REASON', path: 'reason', priority: 8 }, { header: 'OBJECT', path: 'object', priority: 9 }, { header: 'MESSAGE', path: 'message', priority: 6 }],
    row: (e) => ({
      type: e.type,
      reason: e.reason,
      object: `${String(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name ?? ''}`,
      message: e.message,
    }),
  },
  {
    resource: 'namespaces',
    short: 'ns',
    namespaced: false,
    columns: [NAME, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, AGE],
    row: (n) => ({ status: n.status?.phase }),
  },
];

export const K8S_KINDS: readonly K8sKind[] = KIND_ROWS.map(({ row, ...k }) => {
  const singular = k.resource.replace(/s$/, '');
  return {
    ...k,
    prefix: k.prefix ?? '/api/v1',
    singular,
    kind: singular[0]!.toUpperCase() + singular.slice(1),
    row: (item) => ({ namespace: item.metadata?.namespace, name: item.metadata?.name, ...row(item), age: age(item) }),
  };
});

/** A kind by its plural, singular or kubectl short name (`deploy`, `svc`, `po`, `no`). */
export function findK8sKind(name: string): K8sKind | undefined {
  const n = name.trim().toLowerCase();
  return K8S_KINDS.find((k) => k.resource === n || k.singular === n || k.short === n);
}

export function collectionPath(kind: K8sKind, namespace?: string): string {
  return kind.namespaced && namespace ? `${kind.prefix}/namespaces/${encodeURIComponent(namespace)}/${kind.resource}` : `${kind.prefix}/${kind.resource}`;
}

export function objectPath(kind: K8sKind, namespace: string | undefined, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

/** The parts of an API path: `/apis/apps/v1/namespaces/web/deployments/api/scale?x=1`. */
export interface K8sPath {
  /** `/api/v1`, `/apis/apps/v1`. */
  prefix: string;
  namespace?: string;
  /** Plural resource (`deployments`); undefined for discovery paths (`/api/v1`). */
  resource?: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
}

/** Splits an API path; undefined when it is not one (`/healthz`, a URL, `..`). */
export function parseK8sPath(path: string): K8sPath | undefined {
  const q = path.indexOf('?');
  const bare = q === -1 ? path : path.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : path.slice(q + 1));
  const seg = bare.split('/');
  if (seg[0] !== '' || seg.slice(1).some((s) => s === '' || s === '.' || s === '..')) return undefined;
  const parts = seg.slice(1);
  let head: number;
  if (parts[0] === 'api' && parts.length >= 2) head = 2;
  else if (parts[0] === 'apis' && parts.length >= 3) head = 3;
  else return undefined;
  const prefix = '/' + parts.slice(0, head).join('/');
  let rest = parts.slice(head);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = decode(rest[1]!);
    rest = rest.slice(2);
  }
  if (rest.length > 3) return undefined;
  const name = rest[1] === undefined ? undefined : decode(rest[1]);
  // A control character (raw or %-encoded) in a name would reach the terminal in gate reasons and messages.
  if ([namespace, name, ...rest].some((part) => part !== undefined && CONTROL.test(part))) return undefined;
  return { prefix, namespace, resource: rest[0], name, subresource: rest[2], query };
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The singular kubectl uses for a plural resource name (known kinds; others stay plural, which kubectl accepts). */
export function kubectlName(resource: string): string {
  return K8S_KINDS.find((k) => k.resource === resource)?.singular ?? resource;
}
