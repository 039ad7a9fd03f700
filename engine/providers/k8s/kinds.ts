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

export const K8S_KINDS: readonly K8sKind[] = [
  {
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    prefix: '/api/v1',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'READY', path: 'ready', priority: 7 }, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, { header: 'RESTARTS', path: 'restarts', priority: 5 }, { header: 'NODE', path: 'node', priority: 4 }, AGE],
    row: (p) => {
      const statuses: any[] = p.status?.containerStatuses ?? [];
      return {
        namespace: p.metadata?.namespace,
        name: p.metadata?.name,
        ready: `${statuses.filter((c) => c.ready).length}/${(p.spec?.containers ?? []).length || statuses.length}`,
        status: p.metadata?.deletionTimestamp ? 'Terminating' : p.status?.phase,
        restarts: statuses.reduce((n, c) => n + (Number(c.restartCount) || 0), 0),
        node: p.spec?.nodeName,
        age: age(p),
      };
    },
  },
  {
    resource: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    prefix: '/apis/apps/v1',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'READY', path: 'ready', priority: 9 }, { header: 'UP-TO-DATE', path: 'updated', priority: 6 }, { header: 'AVAILABLE', path: 'available', priority: 7 }, { header: 'IMAGE', path: 'image', priority: 5 }, AGE],
    row: (d) => ({
      namespace: d.metadata?.namespace,
      name: d.metadata?.name,
      ready: `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
      updated: d.status?.updatedReplicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
      image: (d.spec?.template?.spec?.containers ?? []).map((c: any) => c.image).join(', '),
      age: age(d),
    }),
  },
  {
    resource: 'services',
    singular: 'service',
    kind: 'Service',
    prefix: '/api/v1',
    namespaced: true,
    columns: [NAMESPACE, NAME, { header: 'TYPE', path: 'type', priority: 7 }, { header: 'CLUSTER-IP', path: 'clusterIP', priority: 6 }, { header: 'EXTERNAL-IP', path: 'external', priority: 5 }, { header: 'PORTS', path: 'ports', priority: 8 }, AGE],
    row: (s) => ({
      namespace: s.metadata?.namespace,
      name: s.metadata?.name,
      type: s.spec?.type ?? 'ClusterIP',
      clusterIP: s.spec?.clusterIP,
      external: (s.status?.loadBalancer?.ingress ?? []).map((i: any) => i.ip ?? i.hostname).join(', ') || undefined,
      ports: (s.spec?.ports ?? []).map((p: any) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(', '),
      age: age(s),
    }),
  },
  {
    resource: 'nodes',
    singular: 'node',
    kind: 'Node',
    prefix: '/api/v1',
    namespaced: false,
    columns: [NAME, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, { header: 'ROLES', path: 'roles', priority: 6 }, { header: 'VERSION', path: 'version', priority: 5 }, { header: 'CPU', path: 'cpu', priority: 4 }, { header: 'MEMORY', path: 'memory', priority: 4 }, AGE],
    row: (n) => {
      const ready = (n.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      const roles = Object.keys(n.metadata?.labels ?? {})
        .filter((l) => l.startsWith('node-role.kubernetes.io/'))
        .map((l) => l.slice('node-role.kubernetes.io/'.length));
      return {
        name: n.metadata?.name,
        status: ready?.status === 'True' ? 'Ready' : 'NotReady',
        roles: roles.join(',') || '<none>',
        version: n.status?.nodeInfo?.kubeletVersion,
        cpu: n.status?.allocatable?.cpu,
        memory: n.status?.allocatable?.memory,
        age: age(n),
      };
    },
  },
  {
    resource: 'events',
    singular: 'event',
    kind: 'Event',
    prefix: '/api/v1',
    namespaced: true,
    columns: [NAMESPACE, { header: 'TYPE', path: 'type', priority: 7 }, { header: 'REASON', path: 'reason', priority: 8 }, { header: 'OBJECT', path: 'object', priority: 9 }, { header: 'MESSAGE', path: 'message', priority: 6 }],
    row: (e) => ({
      namespace: e.metadata?.namespace,
      type: e.type,
      reason: e.reason,
      object: `${String(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name ?? ''}`,
      message: e.message,
    }),
  },
  {
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    prefix: '/api/v1',
    namespaced: false,
    columns: [NAME, { header: 'STATUS', path: 'status', priority: 9, format: 'status' }, AGE],
    row: (n) => ({ name: n.metadata?.name, status: n.status?.phase, age: age(n) }),
  },
];

/** A kind by its plural, singular or kubectl short name (`deploy`, `svc`, `po`, `no`). */
export function findK8sKind(name: string): K8sKind | undefined {
  const n = name.trim().toLowerCase();
  const short: Record<string, string> = { po: 'pods', deploy: 'deployments', svc: 'services', no: 'nodes', ev: 'events', ns: 'namespaces' };
  return K8S_KINDS.find((k) => k.resource === n || k.singular === n || k.resource === short[n]);
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
