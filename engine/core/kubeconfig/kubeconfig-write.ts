/**
 * Turning a cluster's own kubeconfig (read from its head node) into a context of the user's kubeconfig.
 *
 * The head node's kubeconfig names the API server by its private address (`https://10.0.0.2:6443`) or
 * an internal name, which is what the server's certificate is issued for. We connect to the public IP
 * instead and keep TLS verification working by setting `tls-server-name` to the original host, so the
 * certificate is still checked against the cluster's CA (`certificate-authority-data` is kept; never
 * `insecure-skip-tls-verify`). The result is merged as context, cluster and user entries all named
 * after the context; other entries are never touched, and a same-named context is replaced only when it
 * is the same cluster (same CA). The file is written atomically with mode 0600 under a lock, so two runs
 * at once cannot lose each other's entries.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { stringify } from 'yaml';
import type { Config } from '../../../schemas/config.js';
import { AssistantError, ExitCode, InvalidInputError } from '../errors.js';
import { expandHome, kubeconfigPaths } from './kubeconfig.js';
import { parseKubeconfigYaml, sanitiseKubeconfig } from './sanitise.js';

type Obj = Record<string, unknown>;
interface Named {
  name: string;
  [key: string]: unknown;
}

/** The kubeconfig contexts are merged into: the first of the files read (`kubernetes.kubeconfig`, else KUBECONFIG's first path, else ~/.kube/config). */
export function kubeconfigPathFor(config: Config, env: Record<string, string | undefined>, home: string): string {
  return kubeconfigPaths(config, env, home)[0]!;
}

/** The cluster and user of a head node's kubeconfig, with the server rewritten to the public host. */
export interface PublicCluster {
  cluster: Obj;
  user: Obj;
  server: string;
  /** The host the server certificate is for (the original server host), or undefined when unchanged. */
  tlsServerName?: string;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const namedList = (v: unknown): Named[] => (Array.isArray(v) ? v.filter((e): e is Named => isObj(e) && typeof e.name === 'string') : []);

/**
 * The head node's kubeconfig, sanitised (engine/core/kubeconfig/sanitise.ts: anything but the server, CA data and
 * inline credentials is refused), with its server pointed at the public host. The certificate stays
 * verified: `tls-server-name` is the name the head node already set, else the original host.
 */
export function rewriteForPublicHost(remoteText: string, publicHost: string): PublicCluster {
  const clean = sanitiseKubeconfig(remoteText, { source: `the kubeconfig of ${publicHost}` });
  const url = new URL(clean.server);
  const originalHost = url.hostname.replace(/^\[|\]$/g, '');
  const hostPart = publicHost.includes(':') ? `[${publicHost}]` : publicHost;
  const server = `${url.protocol}//${hostPart}${url.port ? `:${url.port}` : ''}${url.pathname === '/' ? '' : url.pathname}`;
  const cluster: Obj = { ...clean.cluster, server };
  const unchanged = originalHost === publicHost;
  // A name the head node already set is what its certificate is for; otherwise the original host is.
  const tlsServerName = clean.tlsServerName ?? (unchanged ? undefined : originalHost);
  if (tlsServerName) cluster['tls-server-name'] = tlsServerName;
  return { cluster, user: clean.user, server, tlsServerName };
}

export interface MergeResult {
  path: string;
  /** A context of this name existed (the same cluster) and was replaced. */
  replaced: boolean;
  currentContext: boolean;
}

/**
 * Refuses (exit 3) when `name` is taken in the kubeconfig by another cluster: checked before a
 * cluster is created (nothing paid for yet) and again when merging.
 */
export function assertContextFree(path: string, name: string, cluster?: Obj): void {
  const doc = readKubeconfig(path);
  const taken = takenBy(doc, name);
  if (!taken) return;
  if (cluster && sameCluster(taken, cluster)) return;
  throw new AssistantError('context_exists', `the kubeconfig ${path} already has ${taken.what} "${name}" for another cluster; it is never overwritten`, ExitCode.refused, {
    hint: `pick another name, or remove the old entries first (kubectl config delete-context ${name}; delete-cluster ${name}; delete-user ${name})`,
  });
}

export async function mergeContext(path: string, name: string, pub: PublicCluster, opts: { useContext: boolean }): Promise<MergeResult> {
  return changeLocked(path, (doc, target) => {
    const taken = takenBy(doc, name);
    if (taken && !sameCluster(taken, pub.cluster)) assertContextFree(target, name, pub.cluster);
    const replace = (list: unknown, entry: Named): Named[] => [...namedList(list).filter((e) => e.name !== name), entry];
    doc.apiVersion ??= 'v1';
    doc.kind ??= 'Config';
    doc.clusters = replace(doc.clusters, { name, cluster: pub.cluster });
    doc.users = replace(doc.users, { name, user: pub.user });
    doc.contexts = replace(doc.contexts, { name, context: { cluster: name, user: name } });
    if (opts.useContext) doc['current-context'] = name;
    return { path: target, replaced: Boolean(taken), currentContext: doc['current-context'] === name };
  });
}

/**
 * Removes the context `name` and the cluster and user entries of that name (what mergeContext wrote),
 * and the current-context when it was this one. Whether there was such a context.
 */
export async function removeContext(path: string, name: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  return changeLocked(path, (doc) => {
    const had = namedList(doc.contexts).some((c) => c.name === name);
    for (const list of ['contexts', 'clusters', 'users'] as const) if (Array.isArray(doc[list])) doc[list] = namedList(doc[list]).filter((e) => e.name !== name);
    if (doc['current-context'] === name) delete doc['current-context'];
    return had;
  });
}

/** Reads, changes and writes the kubeconfig at `path` under its lock, atomically with mode 0600. */
async function changeLocked<T>(path: string, change: (doc: Obj, target: string) => T): Promise<T> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const target = existsSync(path) ? realpathSync(path) : path;
  const release = await lockfile.lock(target, { realpath: false, stale: 10_000, retries: { retries: 40, minTimeout: 50, maxTimeout: 500 } });
  try {
    const doc = readKubeconfig(target);
    const out = change(doc, target);
    const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, stringify(doc), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, target);
    return out;
  } finally {
    await release();
  }
}

function readKubeconfig(path: string): Obj {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new InvalidInputError('kubeconfig_unreadable', `cannot read the kubeconfig ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!text.trim()) return {};
  let doc: unknown;
  try {
    doc = parseKubeconfigYaml(text, `the kubeconfig ${path}`);
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err;
    throw new InvalidInputError('kubeconfig_invalid', `${err.message} (left unchanged)`, {
      hint: 'fix it, or point kubernetes.kubeconfig (or KUBECONFIG) at another file',
    });
  }
  if (doc === null || doc === undefined) return {};
  if (!isObj(doc)) throw new InvalidInputError('kubeconfig_invalid', `the kubeconfig ${path} is not a kubeconfig (left unchanged)`);
  return doc;
}

/** What already carries `name`: its context (with the cluster it points to), or a lone cluster or user entry. */
function takenBy(doc: Obj, name: string): { what: string; cluster?: Obj } | undefined {
  const context = namedList(doc.contexts).find((c) => c.name === name);
  const clusterOf = (n: unknown) => namedList(doc.clusters).find((c) => c.name === n)?.cluster;
  if (context) {
    const c = clusterOf(isObj(context.context) ? context.context.cluster : undefined);
    return { what: 'a context', cluster: isObj(c) ? c : undefined };
  }
  const lone = clusterOf(name);
  if (lone !== undefined) return { what: 'a cluster entry', cluster: isObj(lone) ? lone : undefined };
  if (namedList(doc.users).some((u) => u.name === name)) return { what: 'a user entry' };
  return undefined;
}

/** The same cluster: the same CA (its identity) when both have one, else the same server and TLS name. */
function sameCluster(taken: { cluster?: Obj }, cluster: Obj): boolean {
  const old = taken.cluster;
  if (!old) return false;
  const ca = (c: Obj) => (typeof c['certificate-authority-data'] === 'string' ? c['certificate-authority-data'] : undefined);
  if (ca(old) && ca(cluster)) return ca(old) === ca(cluster);
  return old.server === cluster.server && old['tls-server-name'] === cluster['tls-server-name'];
}
