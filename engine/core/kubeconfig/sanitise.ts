/**
 * A kubeconfig that did not come from the user (read from a head node over SSH, written by a cloud
 * CLI in a scratch directory, handed to the credentials backend) is data, not configuration: before it
 * is merged into the user's kubeconfig or stored, only what identifies and authenticates to one API
 * server is kept, and everything that would make kubectl (or this tool) run a program, read a local
 * file, skip TLS verification or send traffic through someone's proxy is refused with a clear error.
 *
 *   cluster: server (https), certificate-authority-data, tls-server-name
 *   user:    client-certificate-data + client-key-data, or token
 *
 * Refused (SafetyRefusal, exit 3; nothing is merged): `exec` (a credential plugin: a local program,
 * run with the user's environment), `auth-provider`, `insecure-skip-tls-verify: true`, `proxy-url`,
 * any file path (`certificate-authority`, `client-certificate`, `client-key`, `tokenFile`),
 * impersonation, basic auth, a server URL with credentials in it. Unknown harmless keys
 * (`extensions`, `disable-compression`) are dropped. The one exception is an `exec` plugin a cloud CLI
 * wrote itself for its own clusters (`aws eks get-token`), accepted only in exactly that form
 * (`ExecPolicy`).
 */
import { parseDocument } from 'yaml';
import { InvalidInputError, SafetyRefusal } from '../errors.js';
import { registerSecret } from '../redact.js';

type Obj = Record<string, unknown>;

export interface ExecConfigEntry {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

/** Whether an `exec` entry is acceptable: undefined to keep it, else why it is refused. */
export type ExecPolicy = (exec: ExecConfigEntry) => string | undefined;

export interface SanitisedKubeconfig {
  /** The context the document selects (its current-context, else its first context). */
  context: string;
  cluster: Obj;
  user: Obj;
  server: string;
  tlsServerName?: string;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Cluster keys that are refused, and why. */
const REFUSED_CLUSTER: Record<string, string> = {
  'insecure-skip-tls-verify': 'it turns off TLS verification of the API server',
  'proxy-url': "it sends the cluster's traffic (credentials included) through a proxy",
  'certificate-authority': 'it names a file on this machine',
};
/** User keys that are refused, and why. */
const REFUSED_USER: Record<string, string> = {
  exec: 'a credential plugin runs a program on this machine',
  'auth-provider': 'an auth provider runs or configures a local credential helper',
  tokenFile: 'it names a file on this machine',
  'token-file': 'it names a file on this machine',
  'client-certificate': 'it names a file on this machine',
  'client-key': 'it names a file on this machine',
  username: 'basic authentication is not accepted from another source',
  password: 'basic authentication is not accepted from another source',
  as: 'impersonation changes who the requests act as',
  'as-uid': 'impersonation changes who the requests act as',
  'as-groups': 'impersonation changes who the requests act as',
  'as-user-extra': 'impersonation changes who the requests act as',
};
const CLUSTER_KEPT = ['server', 'certificate-authority-data', 'tls-server-name'];
const USER_KEPT = ['client-certificate-data', 'client-key-data', 'token'];

/** The YAML of a kubeconfig, strictly (a repeated key is an error: two readers could disagree); problems name the line. */
export function parseKubeconfigYaml(text: string, source: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true, strict: true });
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line;
    throw new InvalidInputError('kubeconfig_invalid', `${source} is not valid YAML${line ? ` (line ${line})` : ''}: ${err.message.split('\n')[0]}`, {
      hint: 'fix the YAML at that line',
    });
  }
  return doc.toJS({ maxAliasCount: 0 });
}

export function sanitiseKubeconfig(text: string, opts: { source: string; exec?: ExecPolicy }): SanitisedKubeconfig {
  const { source } = opts;
  let doc: unknown;
  try {
    doc = parseKubeconfigYaml(text, source);
  } catch (err) {
    // An alias bomb or other refusal of the YAML reader is the document's fault, not ours.
    if (err instanceof InvalidInputError) throw err;
    throw new InvalidInputError('kubeconfig_invalid', `${source} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new InvalidInputError('kubeconfig_invalid', `${source} is empty or not a kubeconfig`);
  const named = (list: unknown, field: string) =>
    (Array.isArray(list) ? list : []).filter((e): e is Obj => isObj(e) && typeof e.name === 'string' && isObj(e[field])) as (Obj & { name: string })[];
  const contexts = named(doc.contexts, 'context');
  const current = contexts.find((c) => c.name === doc['current-context']) ?? contexts[0];
  if (!current) throw new InvalidInputError('kubeconfig_invalid', `${source} has no context`);
  const ctx = current.context as Obj;
  const clusterEntry = named(doc.clusters, 'cluster').find((c) => c.name === ctx.cluster);
  const userEntry = named(doc.users, 'user').find((u) => u.name === ctx.user);
  if (!clusterEntry) throw new InvalidInputError('kubeconfig_invalid', `${source}: context "${current.name}" names no cluster it defines`);
  if (!userEntry) throw new InvalidInputError('kubeconfig_invalid', `${source}: context "${current.name}" names no user it defines`);
  const refuse = (what: string, why: string) =>
    new SafetyRefusal(`${source} was refused: ${what}: ${why}; nothing was merged`, {
      hint: 'a kubeconfig from another machine may only carry the server, its CA data and inline client certificate/key data or a token',
    });

  const rawCluster = clusterEntry.cluster as Obj;
  for (const [key, why] of Object.entries(REFUSED_CLUSTER)) {
    const v = rawCluster[key];
    if (v === undefined || v === null || v === false || v === '') continue;
    throw refuse(`clusters[${clusterEntry.name}].cluster.${key}`, why);
  }
  const server = rawCluster.server;
  if (typeof server !== 'string') throw new InvalidInputError('kubeconfig_invalid', `${source}: cluster "${clusterEntry.name}" has no server address`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new InvalidInputError('kubeconfig_invalid', `${source}: the server address "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:') throw refuse(`the server ${server}`, 'only https API servers are accepted (the credentials would travel in clear)');
  if (url.username || url.password) throw refuse('the server address', 'it carries credentials in the URL');
  if (url.search || url.hash) throw refuse(`the server ${server}`, 'a query or fragment in the server address');
  const cluster: Obj = {};
  for (const key of CLUSTER_KEPT) if (rawCluster[key] !== undefined) cluster[key] = rawCluster[key];
  if (cluster['tls-server-name'] !== undefined && typeof cluster['tls-server-name'] !== 'string') throw new InvalidInputError('kubeconfig_invalid', `${source}: tls-server-name is not a string`);
  checkData(cluster, 'certificate-authority-data', source);

  const rawUser = userEntry.user as Obj;
  const user: Obj = {};
  for (const [key, why] of Object.entries(REFUSED_USER)) {
    const v = rawUser[key];
    if (v === undefined || v === null || v === '') continue;
    if (key === 'exec' && opts.exec) {
      const exec = execEntry(v, source);
      const problem = opts.exec(exec);
      if (problem) throw refuse(`users[${userEntry.name}].user.exec (${exec.command})`, problem);
      user.exec = { apiVersion: (v as Obj).apiVersion ?? 'client.authentication.k8s.io/v1beta1', command: exec.command, args: exec.args, env: exec.env.length ? exec.env : null, interactiveMode: 'Never', ...((v as Obj).provideClusterInfo === true ? { provideClusterInfo: true } : {}) };
      continue;
    }
    throw refuse(`users[${userEntry.name}].user.${key}`, why);
  }
  for (const key of USER_KEPT) if (rawUser[key] !== undefined) user[key] = rawUser[key];
  checkData(user, 'client-certificate-data', source);
  checkData(user, 'client-key-data', source);
  if (user.token !== undefined && typeof user.token !== 'string') throw new InvalidInputError('kubeconfig_invalid', `${source}: the user's token is not a string`);
  if (Boolean(user['client-certificate-data']) !== Boolean(user['client-key-data'])) {
    throw new InvalidInputError('kubeconfig_invalid', `${source}: a client certificate needs its key (and the reverse)`);
  }
  if (!user.token && !user['client-key-data'] && !user.exec) throw new InvalidInputError('kubeconfig_invalid', `${source} has no user credentials (client certificate and key, or a token)`);
  if (typeof user.token === 'string') registerSecret(user.token);
  if (typeof user['client-key-data'] === 'string') registerSecret(user['client-key-data']);
  return {
    context: current.name,
    cluster,
    user,
    server,
    tlsServerName: typeof cluster['tls-server-name'] === 'string' ? (cluster['tls-server-name'] as string) : undefined,
  };
}

function checkData(entry: Obj, key: string, source: string): void {
  const v = entry[key];
  if (v === undefined) return;
  if (typeof v !== 'string' || !BASE64.test(v) || Buffer.from(v, 'base64').length === 0) {
    throw new InvalidInputError('kubeconfig_invalid', `${source}: ${key} is not base64 data`);
  }
}

function execEntry(v: unknown, source: string): ExecConfigEntry {
  if (!isObj(v) || typeof v.command !== 'string') throw new InvalidInputError('kubeconfig_invalid', `${source}: exec has no command`);
  const args = Array.isArray(v.args) ? v.args : [];
  const env = Array.isArray(v.env) ? v.env : [];
  if (!args.every((a) => typeof a === 'string') || !env.every((e) => isObj(e) && typeof e.name === 'string' && typeof e.value === 'string')) {
    throw new InvalidInputError('kubeconfig_invalid', `${source}: exec args and env must be strings`);
  }
  return { command: v.command, args: args as string[], env: env as { name: string; value: string }[] };
}
