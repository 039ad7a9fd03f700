/**
 * A fake Kubernetes API server for tests: HTTPS with its own CA (made with the openssl CLI), bearer
 * token or client-certificate auth, Deployments, Services, Pods, Nodes and Events kept in memory, every
 * request recorded, pod logs (tailLines, sinceSeconds, follow) and metrics.k8s.io (or, with
 * `metrics: false`, a 404 on that API group as a cluster without metrics-server answers).
 *
 * Deployments roll out like the real controller is slow: after each change the first `rolloutPolls`
 * GETs show the rollout in progress, the next one shows every replica updated and available.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { tempDir } from './temp.js';
import { mergePatch } from '../../engine/producers/sandbox/kube-api.js';

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * A CA, a server certificate for DNS names `kube.test` and `localhost` (no IP: reaching it by IP needs
 * tls-server-name) and a client certificate (CN admin), all signed by the CA.
 */
export function makePki(prefix = 'kube-pki-'): Pki {
  const dir = tempDir(prefix);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3', '-subj', '/CN=fake-kube-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const leaf = (name: string, subject: string, ext: string) => {
    openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '3', '-extfile', `${name}.ext`]);
  };
  leaf('server', '/CN=kube-apiserver', 'subjectAltName=DNS:kube.test,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf('client', '/O=system:masters/CN=admin', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { dir, caCert: read('ca.crt'), caKey: read('ca.key'), serverCert: read('server.crt'), serverKey: read('server.key'), clientCert: read('client.crt'), clientKey: read('client.key') };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  body?: any;
  /** How the request authenticated: `token`, `cert`, or undefined (refused). */
  auth?: 'token' | 'cert';
}

type Obj = Record<string, any>;

export interface KubeApiOptions {
  pki?: Pki;
  /** Bearer tokens accepted (default: one random token, `api.token`). */
  tokens?: string[];
  metrics?: boolean;
  /** GETs of a changed Deployment that still show the rollout in progress (default 1). */
  rolloutPolls?: number;
  /** Pod log lines by pod name (each `{ at, text }`). */
  logs?: Record<string, { at: string; text: string }[]>;
  /** Lines a followed log writes after the existing ones, before the server closes it. */
  followLines?: string[];
  /** Keep a followed log open after its lines (until the client goes away), like a running pod's. */
  followHold?: boolean;
}

export interface KubeApi {
  url: string;
  port: number;
  pki: Pki;
  token: string;
  requests(): RecordedRequest[];
  /** Requests that change something (not GET). */
  writes(): RecordedRequest[];
  objects(resource: string): Obj[];
  put(resource: string, obj: Obj): void;
  setMetrics(on: boolean): void;
  /** Accept only these bearer tokens from now on (a token revoked before its expiry). */
  setTokens(tokens: string[]): void;
  /** Every rollout in progress is available at its next GET. */
  completeRollouts(): void;
  close(): Promise<void>;
}

const NAMESPACED = new Set(['pods', 'services', 'deployments', 'events']);
const KIND: Record<string, string> = { pods: 'Pod', services: 'Service', deployments: 'Deployment', events: 'Event', nodes: 'Node', namespaces: 'Namespace' };

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }));
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startKubeApi(opts: KubeApiOptions = {}): Promise<KubeApi> {
  const pki = opts.pki ?? makePki();
  const token = `kube-token-${randomUUID()}`;
  let tokens = new Set(opts.tokens ?? [token]);
  let metrics = opts.metrics ?? true;
  const rolloutPolls = opts.rolloutPolls ?? 1;
  const recorded: RecordedRequest[] = [];
  // resource → key (ns/name) → object
  const store = new Map<string, Map<string, Obj>>();
  const pending = new Map<string, number>(); // deployment key → GETs still "in progress"
  const table = (r: string) => {
    let t = store.get(r);
    if (!t) store.set(r, (t = new Map()));
    return t;
  };
  const keyOf = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;
  const now = () => new Date().toISOString();

  const put = (resource: string, obj: Obj) => {
    const meta = (obj.metadata ??= {});
    meta.uid ??= randomUUID();
    meta.creationTimestamp ??= now();
    table(resource).set(keyOf(NAMESPACED.has(resource) ? (meta.namespace ??= 'default') : undefined, meta.name), obj);
  };

  put('nodes', { metadata: { name: 'node-a', labels: { 'node-role.kubernetes.io/control-plane': '' } }, status: { allocatable: { cpu: '4', memory: '16Gi' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.0' } } });
  put('nodes', { metadata: { name: 'node-b' }, status: { allocatable: { cpu: '8', memory: '32Gi' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.0' } } });
  put('namespaces', { metadata: { name: 'default' }, status: { phase: 'Active' } });
  put('namespaces', { metadata: { name: 'kube-system' }, status: { phase: 'Active' } });
  put('pods', { metadata: { name: 'coredns-1', namespace: 'kube-system' }, spec: { nodeName: 'node-a', containers: [{ name: 'coredns' }] }, status: { phase: 'Running', containerStatuses: [{ ready: true, restartCount: 0 }] } });
  put('pods', { metadata: { name: 'crashy-1', namespace: 'default' }, spec: { nodeName: 'node-b', containers: [{ name: 'app' }] }, status: { phase: 'Running', containerStatuses: [{ ready: false, restartCount: 7 }] } });
  put('events', { metadata: { name: 'crashy-1.1', namespace: 'default' }, type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container', involvedObject: { kind: 'Pod', name: 'crashy-1' } });

  const podsFor = (d: Obj) => {
    const ns = d.metadata.namespace;
    for (const [k, p] of table('pods')) if (p.metadata.labels?.app === d.metadata.name && p.metadata.namespace === ns) table('pods').delete(k);
    for (let i = 0; i < Number(d.spec?.replicas ?? 1); i++) {
      put('pods', {
        metadata: { name: `${d.metadata.name}-${i}`, namespace: ns, labels: { app: d.metadata.name } },
        spec: { nodeName: i % 2 ? 'node-b' : 'node-a', containers: d.spec?.template?.spec?.containers ?? [] },
        status: { phase: 'Running', containerStatuses: [{ ready: true, restartCount: 0 }] },
      });
    }
  };

  const changed = (resource: string, obj: Obj, old: Obj | undefined) => {
    if (resource !== 'deployments') return;
    const specChanged = !old || JSON.stringify(old.spec) !== JSON.stringify(obj.spec);
    obj.metadata.generation = (old?.metadata?.generation ?? 0) + (specChanged ? 1 : 0);
    if (specChanged) {
      pending.set(keyOf(obj.metadata.namespace, obj.metadata.name), rolloutPolls);
      obj.status = { observedGeneration: old?.status?.observedGeneration ?? 0, replicas: old?.status?.replicas ?? 0, updatedReplicas: 0, availableReplicas: old?.status?.availableReplicas ?? 0 };
      podsFor(obj);
    }
  };

  const view = (resource: string, obj: Obj): Obj => {
    if (resource !== 'deployments') return obj;
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    const left = pending.get(key);
    if (left !== undefined) {
      if (left > 0) {
        pending.set(key, left - 1);
        return obj;
      }
      pending.delete(key);
      const n = Number(obj.spec?.replicas ?? 1);
      obj.status = { observedGeneration: obj.metadata.generation, replicas: n, updatedReplicas: n, availableReplicas: n, readyReplicas: n };
    }
    return obj;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const authz = String(req.headers.authorization ?? '');
    const sock = req.socket as TLSSocket;
    const auth = authz.startsWith('Bearer ') && tokens.has(authz.slice(7)) ? 'token' : sock.authorized ? 'cert' : undefined;
    const entry: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), contentType: req.headers['content-type'], body, auth };
    recorded.push(entry);
    if (!auth) return status(res, 401, 'Unauthorized', 'Unauthorized');

    const seg = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const head = seg[0] === 'api' ? 2 : seg[0] === 'apis' ? 3 : -1;
    if (head < 0) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const group = seg.slice(0, head).join('/');
    let rest = seg.slice(head);
    if (group === 'apis/metrics.k8s.io/v1beta1') {
      if (!metrics) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
      let ns: string | undefined;
      if (rest[0] === 'namespaces') {
        ns = rest[1];
        rest = rest.slice(2);
      }
      if (rest[0] === 'nodes') {
        const usage: Record<string, Obj> = { 'node-a': { cpu: '250m', memory: '1Gi' }, 'node-b': { cpu: '1500000000n', memory: '524288Ki' } };
        return json(res, 200, { kind: 'NodeMetricsList', items: [...table('nodes').values()].map((n) => ({ metadata: { name: n.metadata.name }, usage: usage[n.metadata.name] ?? { cpu: '0', memory: '0' } })) });
      }
      if (rest[0] === 'pods') {
        const items = [...table('pods').values()]
          .filter((p) => !ns || p.metadata.namespace === ns)
          .map((p, i) => ({ metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, containers: [{ name: 'c', usage: { cpu: `${(i + 1) * 10}m`, memory: `${(3 - (i % 3)) * 64}Mi` } }] }));
        return json(res, 200, { kind: 'PodMetricsList', items });
      }
      return status(res, 404, 'NotFound', 'not found');
    }
    let ns: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      ns = rest[1];
      rest = rest.slice(2);
    }
    const [resource, name, sub] = rest as [string, string | undefined, string | undefined];
    if (!KIND[resource]) return status(res, 404, 'NotFound', `the server could not find the requested resource (${resource})`);
    const t = table(resource);
    const key = name ? keyOf(NAMESPACED.has(resource) ? ns : undefined, name) : undefined;
    const method = req.method ?? 'GET';

    if (sub === 'log' && resource === 'pods' && method === 'GET') {
      if (!t.has(key!)) return status(res, 404, 'NotFound', `pods "${name}" not found`);
      let lines = opts.logs?.[name!] ?? [{ at: now(), text: `hello from ${name}` }];
      const since = url.searchParams.get('sinceSeconds');
      if (since) lines = lines.filter((l) => Date.parse(l.at) >= Date.now() - Number(since) * 1000);
      const tail = url.searchParams.get('tailLines');
      if (tail) lines = lines.slice(Math.max(0, lines.length - Number(tail)));
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      for (const l of lines) res.write(l.text + '\n');
      if (url.searchParams.get('follow') !== 'true') return res.end();
      for (const l of opts.followLines ?? []) {
        await new Promise((r) => setTimeout(r, 20));
        res.write(l + '\n');
      }
      if (opts.followHold) return void (await new Promise((resolve) => res.on('close', resolve)));
      return res.end();
    }

    if (method === 'GET') {
      if (key) {
        const obj = t.get(key);
        return obj ? json(res, 200, view(resource, obj)) : status(res, 404, 'NotFound', `${resource} "${name}" not found`);
      }
      const items = [...t.values()].filter((o) => !ns || o.metadata.namespace === ns).map((o) => view(resource, o));
      return json(res, 200, { kind: `${KIND[resource]}List`, apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });
    }
    if (method === 'POST' && !name) {
      const objName = body?.metadata?.name;
      const k = keyOf(NAMESPACED.has(resource) ? ns : undefined, objName);
      if (t.has(k)) return status(res, 409, 'AlreadyExists', `${resource} "${objName}" already exists`);
      const obj = { ...body, metadata: { ...body.metadata, namespace: ns } };
      put(resource, obj);
      changed(resource, obj, undefined);
      return json(res, 201, obj);
    }
    if ((method === 'PATCH' || method === 'PUT') && key) {
      const old = t.get(key);
      const ct = String(req.headers['content-type'] ?? '');
      let obj: Obj;
      if (method === 'PATCH' && ct.startsWith('application/apply-patch')) {
        if (!url.searchParams.get('fieldManager')) return status(res, 400, 'BadRequest', 'fieldManager is required for apply requests');
        obj = { ...(old ?? {}), ...body, metadata: { ...(old?.metadata ?? {}), ...body.metadata, namespace: ns }, status: old?.status };
      } else if (method === 'PATCH') {
        if (!old) return status(res, 404, 'NotFound', `${resource} "${name}" not found`);
        obj = mergePatch(old, body);
      } else {
        if (!old) return status(res, 404, 'NotFound', `${resource} "${name}" not found`);
        obj = { ...body, metadata: { ...old.metadata, ...body.metadata }, status: old.status };
      }
      put(resource, obj);
      changed(resource, obj, old);
      return json(res, old ? 200 : 201, obj);
    }
    if (method === 'DELETE' && key) {
      const old = t.get(key);
      if (!old) return status(res, 404, 'NotFound', `${resource} "${name}" not found`);
      t.delete(key);
      return json(res, 200, { kind: 'Status', status: 'Success', details: { name, kind: resource } });
    }
    return status(res, 405, 'MethodNotAllowed', `${method} is not supported here`);
  };

  const server: Server = createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    handle(req, res).catch((err) => status(res, 500, 'InternalError', String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://localhost:${port}`,
    port,
    pki,
    token,
    requests: () => [...recorded],
    writes: () => recorded.filter((r) => r.method !== 'GET'),
    objects: (resource) => [...table(resource).values()],
    put,
    setMetrics: (on) => void (metrics = on),
    setTokens: (list) => void (tokens = new Set(list)),
    completeRollouts: () => {
      for (const k of pending.keys()) pending.set(k, 0);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface KubeconfigOptions {
  context?: string;
  server?: string;
  /** PEM of the CA to trust (default: the server's own CA). */
  caPem?: string;
  /** Write the CA as a file next to the kubeconfig instead of inline data. */
  caAsFile?: boolean;
  tlsServerName?: string;
  insecure?: boolean;
  token?: string;
  tokenFile?: string;
  /** Authenticate with the client certificate: inline data, or `files` next to the kubeconfig. */
  clientCert?: boolean | 'files';
  exec?: { command: string; args?: string[]; env?: { name: string; value: string }[] };
  namespace?: string;
  /** More contexts in the same file (name → server), all with the same user. */
  extraContexts?: string[];
}

/** Writes a kubeconfig for the fake API into `dir` and returns its path. */
export function writeKubeconfig(dir: string, api: Pick<KubeApi, 'url' | 'pki' | 'token'>, o: KubeconfigOptions = {}): string {
  const name = o.context ?? 'kind-test';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const cluster: Obj = { server: o.server ?? api.url };
  if (o.insecure) cluster['insecure-skip-tls-verify'] = true;
  else if (o.caAsFile) {
    writeFileSync(join(dir, 'ca.crt'), o.caPem ?? api.pki.caCert);
    cluster['certificate-authority'] = 'ca.crt';
  } else cluster['certificate-authority-data'] = b64(o.caPem ?? api.pki.caCert);
  if (o.tlsServerName) cluster['tls-server-name'] = o.tlsServerName;
  const user: Obj = {};
  if (o.exec) user.exec = { apiVersion: 'client.authentication.k8s.io/v1', command: o.exec.command, args: o.exec.args ?? [], env: o.exec.env ?? null, interactiveMode: 'Never' };
  else if (o.tokenFile) user.tokenFile = o.tokenFile;
  else if (o.clientCert === 'files') {
    writeFileSync(join(dir, 'client.crt'), api.pki.clientCert);
    writeFileSync(join(dir, 'client.key'), api.pki.clientKey, { mode: 0o600 });
    user['client-certificate'] = join(dir, 'client.crt');
    user['client-key'] = 'client.key';
  } else if (o.clientCert) {
    user['client-certificate-data'] = b64(api.pki.clientCert);
    user['client-key-data'] = b64(api.pki.clientKey);
  } else user.token = o.token ?? api.token;
  const contexts = [name, ...(o.extraContexts ?? [])];
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': name,
    clusters: [{ name: `${name}-cluster`, cluster }],
    users: [{ name: `${name}-user`, user }],
    contexts: contexts.map((c) => ({ name: c, context: { cluster: `${name}-cluster`, user: `${name}-user`, ...(o.namespace ? { namespace: o.namespace } : {}) } })),
  };
  const path = join(dir, `kubeconfig-${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.yaml`);
  writeFileSync(path, toYaml(doc), { mode: 0o600 });
  return path;
}
