/**
 * The sandbox's stand-in for the Kubernetes API of the clusters `k8s create gpucloud` makes: an HTTP
 * server in this process on a loopback port, reached by the k8s provider's own client with the
 * sandbox kubeconfig's bearer token. It keeps nodes, namespaces, Deployments (with their pods),
 * Services, pod logs and metrics.k8s.io, so `k8s get|deploy|logs|stats|ask` answer as on a small
 * cluster. A path prefix says which cluster: `/clusters/<name>/api/v1/...`.
 *
 * State lives in one JSON file per cluster under ~/.assistant/sandbox/kube-api/, read on every request
 * and written under a lock, so two sandbox commands at once (a followed log and a deploy) see the same
 * cluster. A rollout is available at once: the sandbox runs no containers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { BodyTooLarge, closeIfBodyUnread, readRequestBody } from '../../core/request-body.js';

type Obj = Record<string, any>;
type Tables = Record<string, Record<string, Obj>>;

export interface KubeApiStandIn {
  /** `http://127.0.0.1:<port>`; a cluster's server is `<url>/clusters/<name>`. */
  url: string;
  close(): Promise<void>;
}

const NAMESPACED = new Set(['pods', 'services', 'deployments', 'events']);
const KIND: Record<string, string> = { pods: 'Pod', services: 'Service', deployments: 'Deployment', events: 'Event', nodes: 'Node', namespaces: 'Namespace' };
/** Bodies above this are refused (a Deployment and a Service are a few KB). */
const MAX_BODY = 1024 * 1024;
const CLUSTER_NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

/**
 * The bearer token the sandbox's clusters accept, kept in `dir/token` (made on first use). The head node
 * stand-in hands it out in the kubeconfig it serves, so the client authenticates as with a real cluster.
 */
export function sandboxKubeToken(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'token');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `sandbox-${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  // Another run may have renamed its token in between: the file's is the one.
  return readFileSync(file, 'utf8').trim();
}

/** Forgets a cluster's objects (its cluster was deleted). */
export function forgetCluster(dir: string, cluster: string): void {
  if (CLUSTER_NAME.test(cluster)) rmSync(join(dir, `${cluster}.json`), { force: true });
}

const now = () => new Date().toISOString();
const keyOf = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;

/** What a new cluster holds: a head node and a GPU worker, the system namespaces, CoreDNS. */
function freshCluster(cluster: string): Tables {
  const t: Tables = {};
  const put = (resource: string, obj: Obj) => place(t, resource, obj);
  const node = (name: string, labels: Obj, allocatable: Obj) =>
    put('nodes', { metadata: { name, labels }, status: { allocatable, capacity: allocatable, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.0' } } });
  node(`${cluster}-head`, { 'node-role.kubernetes.io/control-plane': '' }, { cpu: '8', memory: '32Gi', pods: '110' });
  node(`${cluster}-worker-1`, {}, { cpu: '32', memory: '256Gi', pods: '110', 'nvidia.com/gpu': '8' });
  for (const ns of ['default', 'kube-system', 'kube-public']) put('namespaces', { metadata: { name: ns }, status: { phase: 'Active' } });
  put('pods', { metadata: { name: 'coredns-0', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }, spec: { nodeName: `${cluster}-head`, containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'coredns', ready: true, restartCount: 0 }] } });
  return t;
}

function place(t: Tables, resource: string, obj: Obj): void {
  const meta = (obj.metadata ??= {});
  meta.uid ??= randomUUID();
  meta.creationTimestamp ??= now();
  (t[resource] ??= {})[keyOf(NAMESPACED.has(resource) ? (meta.namespace ??= 'default') : undefined, meta.name)] = obj;
}

/** A Deployment's pods, replaced whenever its spec changes; its status says the rollout is done. */
function rollOut(t: Tables, d: Obj, cluster: string): void {
  const ns = d.metadata.namespace;
  const pods = (t.pods ??= {});
  for (const [k, p] of Object.entries(pods)) if (p.metadata.namespace === ns && p.metadata.ownerReferences?.[0]?.name === d.metadata.name) delete pods[k];
  const n = Number(d.spec?.replicas ?? 1);
  const hash = randomBytes(5).toString('hex');
  const containers: Obj[] = d.spec?.template?.spec?.containers ?? [];
  for (let i = 0; i < n; i++) {
    place(t, 'pods', {
      metadata: { name: `${d.metadata.name}-${hash}-${i}`, namespace: ns, labels: { ...(d.spec?.template?.metadata?.labels ?? {}) }, ownerReferences: [{ kind: 'ReplicaSet', name: d.metadata.name }] },
      spec: { nodeName: `${cluster}-worker-1`, containers },
      status: { phase: 'Running', startTime: now(), containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, ready: true, restartCount: 0 })) },
    });
  }
  d.metadata.generation = Number(d.metadata.generation ?? 0) + 1;
  d.status = { observedGeneration: d.metadata.generation, replicas: n, updatedReplicas: n, availableReplicas: n, readyReplicas: n };
}

/** A JSON merge patch (RFC 7386) applied to `target`: null deletes, objects merge, anything else replaces. */
export function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

class Answer {
  constructor(
    readonly code: number,
    readonly body: unknown,
  ) {}
}
const failure = (code: number, reason: string, message: string) => new Answer(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
const notFound = (what = 'the server could not find the requested resource') => failure(404, 'NotFound', what);

/** One cluster's state file: read for every request, written (under a lock) only by changes. */
class ClusterStore {
  private readonly file: string;
  constructor(
    private readonly dir: string,
    readonly cluster: string,
  ) {
    this.file = join(dir, `${cluster}.json`);
  }

  read(): Tables {
    this.ensure();
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Tables;
    } catch {
      // Unreadable (a hand edit): answered as a new cluster until the next change writes it again.
      return freshCluster(this.cluster);
    }
  }

  async change<T>(fn: (t: Tables) => T): Promise<T> {
    this.ensure();
    const release = await lockfile.lock(this.file, { realpath: false, stale: 10_000, retries: { retries: 40, minTimeout: 20, maxTimeout: 300 } });
    try {
      const t = this.read();
      const out = fn(t);
      this.write(t);
      return out;
    } finally {
      await release();
    }
  }

  /**
   * The cluster's file, made on first use with a head node, a worker and the system namespaces. Linked
   * into place, which fails when it exists: of two commands starting at once one makes it, and neither
   * overwrites what the other has changed since.
   */
  private ensure(): void {
    if (existsSync(this.file)) return;
    const tmp = this.temp(freshCluster(this.cluster));
    try {
      linkSync(tmp, this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  private temp(t: Tables): string {
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify(t), { mode: 0o600 });
    return tmp;
  }

  private write(t: Tables): void {
    renameSync(this.temp(t), this.file);
  }
}

function metrics(t: Tables, rest: string[]): Answer {
  let ns: string | undefined;
  if (rest[0] === 'namespaces') {
    ns = rest[1];
    rest = rest.slice(2);
  }
  const pods = Object.values(t.pods ?? {}).filter((p) => !ns || p.metadata.namespace === ns);
  if (rest[0] === 'nodes') {
    const items = Object.values(t.nodes ?? {}).map((n) => {
      const here = pods.filter((p) => p.spec?.nodeName === n.metadata.name).length;
      return { metadata: { name: n.metadata.name }, usage: { cpu: `${250 + here * 50}m`, memory: `${1024 + here * 128}Mi` } };
    });
    return new Answer(200, { kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', items });
  }
  if (rest[0] === 'pods') {
    const items = pods.map((p) => ({ metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, containers: (p.spec?.containers ?? []).map((c: Obj) => ({ name: c.name, usage: { cpu: '10m', memory: '64Mi' } })) }));
    return new Answer(200, { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', items });
  }
  return notFound();
}

function podLog(pod: Obj, query: URLSearchParams): string {
  const lines = (pod.spec?.containers ?? [{ name: 'app' }])
    .filter((c: Obj) => !query.get('container') || c.name === query.get('container'))
    .map((c: Obj) => `${pod.status?.startTime ?? pod.metadata.creationTimestamp} sandbox stand-in: container ${c.name} (${c.image ?? 'no image'}) of pod ${pod.metadata.name} started; the sandbox runs no containers`);
  const tail = query.get('tailLines');
  return (tail ? lines.slice(Math.max(0, lines.length - Number(tail))) : lines).map((l: string) => `${l}\n`).join('');
}

async function answer(store: ClusterStore, method: string, url: URL, contentType: string, body: any): Promise<Answer | { log: string }> {
  const seg = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (seg[0] === 'version' && seg.length === 1) return new Answer(200, { major: '1', minor: '31', gitVersion: 'v1.31.0-sandbox', platform: 'sandbox stand-in' });
  const head = seg[0] === 'api' ? 2 : seg[0] === 'apis' ? 3 : -1;
  if (head < 0 || seg.length < head) return notFound();
  const group = seg.slice(0, head).join('/');
  let rest = seg.slice(head);
  if (group === 'apis/metrics.k8s.io/v1beta1') return method === 'GET' ? metrics(store.read(), rest) : failure(405, 'MethodNotAllowed', `${method} is not supported here`);
  let ns: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    ns = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, sub] = rest as [string, string | undefined, string | undefined];
  if (!resource || !KIND[resource]) return notFound(`the server could not find the requested resource (${resource ?? group})`);
  const key = name ? keyOf(NAMESPACED.has(resource) ? ns : undefined, name) : undefined;

  if (method === 'GET') {
    const t = store.read();
    const table = t[resource] ?? {};
    if (sub === 'log' && resource === 'pods') {
      const pod = table[key!];
      return pod ? { log: podLog(pod, url.searchParams) } : notFound(`pods "${name}" not found`);
    }
    if (key) return table[key] ? new Answer(200, table[key]) : notFound(`${resource} "${name}" not found`);
    const items = Object.values(table).filter((o) => !ns || o.metadata.namespace === ns);
    return new Answer(200, { kind: `${KIND[resource]}List`, apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });
  }
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) return failure(400, 'BadRequest', 'the body is not a JSON object');
  return store.change((t) => {
    const table = (t[resource] ??= {});
    const settle = (obj: Obj, old: Obj | undefined) => {
      place(t, resource, obj);
      if (resource === 'deployments' && JSON.stringify(old?.spec) !== JSON.stringify(obj.spec)) rollOut(t, obj, store.cluster);
      return obj;
    };
    if (method === 'POST' && !name) {
      const objName = body?.metadata?.name;
      if (typeof objName !== 'string' || !objName) return failure(422, 'Invalid', 'metadata.name is required');
      if (table[keyOf(NAMESPACED.has(resource) ? ns : undefined, objName)]) return failure(409, 'AlreadyExists', `${resource} "${objName}" already exists`);
      return new Answer(201, settle({ ...body, metadata: { ...body.metadata, namespace: ns } }, undefined));
    }
    if ((method === 'PATCH' || method === 'PUT') && key) {
      const old = table[key];
      let obj: Obj;
      if (method === 'PATCH' && contentType.startsWith('application/apply-patch')) {
        if (!url.searchParams.get('fieldManager')) return failure(400, 'BadRequest', 'fieldManager is required for apply requests');
        obj = { ...(old ?? {}), ...body, metadata: { ...(old?.metadata ?? {}), ...body?.metadata, namespace: ns }, status: old?.status };
      } else if (!old) return notFound(`${resource} "${name}" not found`);
      else obj = method === 'PATCH' ? mergePatch(old, body) : { ...body, metadata: { ...old.metadata, ...body?.metadata }, status: old.status };
      return new Answer(old ? 200 : 201, settle(obj, old));
    }
    if (method === 'DELETE' && key) {
      const old = table[key];
      if (!old) return notFound(`${resource} "${name}" not found`);
      delete table[key];
      if (resource === 'deployments') for (const [k, p] of Object.entries(t.pods ?? {})) if (p.metadata.namespace === ns && p.metadata.ownerReferences?.[0]?.name === name) delete t.pods![k];
      return new Answer(200, { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name, kind: resource } });
    }
    return failure(405, 'MethodNotAllowed', `${method} is not supported here`);
  });
}

/** Starts the stand-in; `dir` is ~/.assistant/sandbox/kube-api. */
export async function startKubeApi(dir: string): Promise<KubeApiStandIn> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = sandboxKubeToken(dir);
  const send = (res: ServerResponse, a: Answer) => {
    res.writeHead(a.code, { 'Content-Type': 'application/json', ...closeIfBodyUnread(res) });
    res.end(JSON.stringify(a.body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, failure(401, 'Unauthorized', 'Unauthorized'));
    const m = /^\/clusters\/([^/]+)(\/.*)$/.exec(url.pathname);
    const cluster = m ? decodeURIComponent(m[1]!) : '';
    if (!m || !CLUSTER_NAME.test(cluster)) return send(res, notFound('no such sandbox cluster'));
    let text: string;
    try {
      text = (await readRequestBody(req, MAX_BODY)).toString('utf8');
    } catch (err) {
      if (err instanceof BodyTooLarge) return send(res, failure(413, 'RequestEntityTooLarge', `the body is over ${MAX_BODY} bytes`));
      throw err;
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return send(res, failure(400, 'BadRequest', 'the body is not JSON'));
    }
    const out = await answer(new ClusterStore(dir, cluster), req.method ?? 'GET', new URL(m[2]! + url.search, url), String(req.headers['content-type'] ?? ''), body);
    if (out instanceof Answer) return send(res, out);
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(out.log);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, failure(500, 'InternalError', String((err as Error)?.message ?? err))));
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
