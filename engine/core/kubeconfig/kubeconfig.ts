/**
 * Reading kubeconfig files the way kubectl does, choosing the cluster a command talks to, and turning a
 * context's user entry into credentials (CA, client certificate and key, bearer token, token file,
 * `exec` credential plugins). No kubectl binary is involved; secrets are registered for redaction as
 * soon as they are read, so no token or key ever reaches an output.
 */
import { printable, q } from '../render/quote.js';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { createSecureContext } from 'node:tls';
import type { Config } from '../../../schemas/config.js';
import { AssistantError, InvalidInputError, OperationError } from '../errors.js';
import { registerSecret } from '../redact.js';
import { withoutSecrets } from '../process/env.js';
import { expandHome } from '../home-path.js';

export { expandHome };

type Obj = Record<string, unknown>;

export interface KubeCluster {
  server: string;
  caData?: Buffer;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface ExecConfig {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion?: string;
  /** The file the command path is relative to (kubectl resolves `./plugin` against the kubeconfig). */
  baseDir: string;
}

export interface KubeUser {
  certData?: Buffer;
  keyData?: Buffer;
  token?: string;
  tokenFile?: string;
  exec?: ExecConfig;
}

/** One context with its cluster and user resolved (files read, base64 decoded). */
export interface KubeTarget {
  context: string;
  cluster: KubeCluster;
  user: KubeUser;
  namespace?: string;
}

interface NamedEntry {
  value: Obj;
  /** The directory of the file that defined it (relative paths are resolved against it). */
  dir: string;
  /** `file:line` of the entry, for messages about what is wrong in it. */
  at?: string;
}

/** The merged view of every kubeconfig file, first definition of each name winning (kubectl's rule). */
export interface Kubeconfig {
  files: string[];
  currentContext?: string;
  contexts: Map<string, NamedEntry>;
  clusters: Map<string, NamedEntry>;
  users: Map<string, NamedEntry>;
}

/** The kubeconfig files in order: `kubernetes.kubeconfig`, else every path of KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPaths(config: Config, env: Record<string, string | undefined>, home: string): string[] {
  const configured = config.kubernetes?.kubeconfig?.trim();
  if (configured) return [expandHome(configured, home)];
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).map((p) => p.trim()).filter(Boolean);
  if (fromEnv.length) return [...new Set(fromEnv.map((p) => expandHome(p, home)))];
  return [join(home, '.kube', 'config')];
}

/** Loads and merges the kubeconfig files; a missing file in KUBECONFIG is skipped like kubectl does. */
export function loadKubeconfig(paths: string[]): Kubeconfig {
  const merged: Kubeconfig = { files: [], contexts: new Map(), clusters: new Map(), users: new Map() };
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const lines = new LineCounter();
    const parsed = parseDocument(readFileSync(path, 'utf8'), { lineCounter: lines, uniqueKeys: true });
    const bad = parsed.errors[0];
    if (bad) {
      const line = bad.linePos?.[0]?.line;
      throw new InvalidInputError('invalid_kubeconfig', `${path}${line ? `:${line}` : ''} is not a valid kubeconfig: ${bad.message.split('\n')[0]}`, {
        hint: `fix the YAML${line ? ` at line ${line}` : ''}, or point KUBECONFIG (or kubernetes.kubeconfig) at another file`,
      });
    }
    let doc: unknown;
    try {
      doc = parsed.toJS({ maxAliasCount: 100 });
    } catch (err) {
      throw new InvalidInputError('invalid_kubeconfig', `${path} is not a valid kubeconfig: ${(err as Error).message.split('\n')[0]}`);
    }
    /** `file:line` of the n-th entry of a top-level list. */
    const entryAt = (list: string, index: number) => {
      const node = (parsed.get(list, true) as { items?: { range?: [number, number, number] }[] } | undefined)?.items?.[index];
      const offset = node?.range?.[0];
      return offset === undefined ? path : `${path}:${lines.linePos(offset).line}`;
    };
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new InvalidInputError('invalid_kubeconfig', `${path} is not a valid kubeconfig (not a mapping)`);
    merged.files.push(path);
    const d = doc as Obj;
    const dir = dirname(path);
    if (!merged.currentContext && typeof d['current-context'] === 'string' && d['current-context']) merged.currentContext = d['current-context'];
    for (const [list, field, target] of [
      ['contexts', 'context', merged.contexts],
      ['clusters', 'cluster', merged.clusters],
      ['users', 'user', merged.users],
    ] as const) {
      const entries = d[list];
      if (!Array.isArray(entries)) continue;
      entries.forEach((e, index) => {
        const name = (e as Obj)?.name;
        const value = (e as Obj)?.[field];
        if (typeof name !== 'string' || !value || typeof value !== 'object') return;
        if (!target.has(name)) target.set(name, { value: value as Obj, dir, at: entryAt(list, index) });
      });
    }
  }
  return merged;
}

/** Where the cluster name came from, for messages. */
export interface ClusterChoice {
  cluster?: string;
  kubernetes?: Config['kubernetes'];
}

const listed = (kc: Kubeconfig) => (kc.contexts.size ? [...kc.contexts.keys()].map(printable).join(', ') : 'none');

function noKubeconfig(kc: Kubeconfig, paths: string[]): InvalidInputError {
  return new InvalidInputError('no_kubeconfig', `no kubeconfig context found (looked in ${paths.join(', ')})`, {
    hint: 'create a cluster with `assistant k8s create`, set kubernetes.kubeconfig in ~/.assistant.yaml, or point KUBECONFIG at your kubeconfig',
  });
}

/**
 * The context a command uses: `--cluster <name>` (config `kubernetes.clusters.<name>`), else
 * `kubernetes.default_context`, else the kubeconfig's current-context.
 */
export function selectContext(kc: Kubeconfig, paths: string[], choice: ClusterChoice): string {
  if (!kc.contexts.size) throw noKubeconfig(kc, paths);
  const k = choice.kubernetes;
  const missing = (name: string, why: string) =>
    new InvalidInputError('unknown_context', `${why}: context ${q(name)} is not in the kubeconfig (${kc.files.join(', ') || paths.join(', ')})`, {
      hint: `contexts that exist: ${listed(kc)}`,
    });
  if (choice.cluster) {
    const entry = k?.clusters?.[choice.cluster];
    if (!entry) {
      // A context of that name is taken as is: `--cluster` works without config for kubeconfig users.
      if (kc.contexts.has(choice.cluster)) return choice.cluster;
      const configured = Object.keys(k?.clusters ?? {});
      throw new InvalidInputError('unknown_cluster', `no cluster ${q(choice.cluster)} in config (kubernetes.clusters) and no context of that name`, {
        hint: `configured clusters: ${configured.length ? configured.join(', ') : 'none'}; contexts that exist: ${listed(kc)}`,
      });
    }
    if (entry.type === 'existing') {
      const context = entry.context ?? choice.cluster;
      if (!kc.contexts.has(context)) throw missing(context, `kubernetes.clusters.${choice.cluster}`);
      return context;
    }
    // eks: what `aws eks update-kubeconfig --name <name> [--alias <key>]` writes: the alias, else the cluster ARN.
    const candidates = [entry.context, choice.cluster, entry.name].filter((c): c is string => Boolean(c));
    for (const c of candidates) if (kc.contexts.has(c)) return c;
    const arn = [...kc.contexts.keys()].find((c) => {
      const m = /^arn:aws[\w-]*:eks:([^:]+):\d*:cluster\/(.+)$/.exec(c);
      return m && m[2] === entry.name && (!entry.region || m[1] === entry.region);
    });
    if (arn) return arn;
    throw new InvalidInputError('unknown_context', `no kubeconfig context for eks cluster ${q(entry.name)}${entry.region ? ` in ${entry.region}` : ''} (kubernetes.clusters.${choice.cluster})`, {
      hint: `run \`aws eks update-kubeconfig --name ${entry.name}${entry.region ? ` --region ${entry.region}` : ''}${entry.profile ? ` --profile ${entry.profile}` : ''} --alias ${choice.cluster}\`; contexts that exist: ${listed(kc)}`,
    });
  }
  if (k?.default_context) {
    if (!kc.contexts.has(k.default_context)) throw missing(k.default_context, 'kubernetes.default_context');
    return k.default_context;
  }
  if (kc.currentContext) {
    if (!kc.contexts.has(kc.currentContext)) throw missing(kc.currentContext, 'current-context');
    return kc.currentContext;
  }
  throw new InvalidInputError('no_context', 'the kubeconfig has no current-context and no cluster was chosen', {
    hint: `pass --cluster <name> or set kubernetes.default_context; contexts that exist: ${listed(kc)}`,
  });
}

function fileOrData(entry: NamedEntry, fileKey: string, dataKey: string, what: string, secret: boolean): Buffer | undefined {
  const data = entry.value[dataKey];
  if (typeof data === 'string' && data) {
    const buf = Buffer.from(data, 'base64');
    if (secret) registerSecret(data);
    return buf;
  }
  const file = entry.value[fileKey];
  if (typeof file === 'string' && file) {
    const path = isAbsolute(file) ? file : join(entry.dir, file);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new InvalidInputError('invalid_kubeconfig', `cannot read the ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return undefined;
}

/** Resolves a context to its server, TLS settings and credentials. */
export function resolveTarget(kc: Kubeconfig, context: string): KubeTarget {
  const ctx = kc.contexts.get(context);
  if (!ctx) throw new InvalidInputError('unknown_context', `context ${q(context)} is not in the kubeconfig`, { hint: `contexts that exist: ${listed(kc)}` });
  const clusterName = String(ctx.value.cluster ?? '');
  const userName = String(ctx.value.user ?? '');
  const cl = kc.clusters.get(clusterName);
  if (!cl) throw new InvalidInputError('invalid_kubeconfig', `context ${q(context)} names cluster ${q(clusterName)}, which the kubeconfig does not define`);
  const server = cl.value.server;
  if (typeof server !== 'string' || !/^https?:\/\//.test(server)) {
    throw new InvalidInputError('invalid_kubeconfig', `${cl.at ?? 'the kubeconfig'}: cluster ${q(clusterName)} has no https server address`);
  }
  try {
    new URL(server);
  } catch {
    throw new InvalidInputError('invalid_kubeconfig', `${cl.at ?? 'the kubeconfig'}: cluster ${q(clusterName)}: the server ${q(server)} is not a URL`, { hint: 'fix the server address at that line' });
  }
  const cluster: KubeCluster = {
    server: server.replace(/\/+$/, ''),
    caData: fileOrData(cl, 'certificate-authority', 'certificate-authority-data', 'certificate authority', false),
    tlsServerName: typeof cl.value['tls-server-name'] === 'string' ? (cl.value['tls-server-name'] as string) : undefined,
    insecureSkipTlsVerify: cl.value['insecure-skip-tls-verify'] === true,
  };
  const user: KubeUser = {};
  const u = userName ? kc.users.get(userName) : undefined;
  if (u) {
    user.certData = fileOrData(u, 'client-certificate', 'client-certificate-data', 'client certificate', false);
    user.keyData = fileOrData(u, 'client-key', 'client-key-data', 'client key', true);
    if (user.keyData) registerSecret(user.keyData.toString('utf8'));
    if (typeof u.value.token === 'string' && u.value.token) {
      user.token = u.value.token;
      registerSecret(user.token);
    }
    const tokenFile = u.value.tokenFile ?? u.value['token-file'];
    if (typeof tokenFile === 'string' && tokenFile) user.tokenFile = isAbsolute(tokenFile) ? tokenFile : join(u.dir, tokenFile);
    const exec = u.value.exec as Obj | undefined;
    if (exec && typeof exec === 'object') {
      if (typeof exec.command !== 'string' || !exec.command) throw new InvalidInputError('invalid_kubeconfig', `user ${q(userName)}: exec has no command`);
      user.exec = {
        command: exec.command,
        args: Array.isArray(exec.args) ? exec.args.map(String) : [],
        env: Array.isArray(exec.env) ? (exec.env as Obj[]).filter((e) => typeof e?.name === 'string').map((e) => ({ name: String(e.name), value: String(e.value ?? '') })) : [],
        apiVersion: typeof exec.apiVersion === 'string' ? exec.apiVersion : undefined,
        baseDir: u.dir,
      };
    }
  }
  // A certificate or key that is not PEM fails here, naming the entry, not later as an internal TLS error.
  checkTlsMaterial(cluster.caData, cl.at, `cluster ${q(clusterName)}: certificate-authority(-data)`, (v) => createSecureContext({ ca: v }));
  checkTlsMaterial(user.certData, u?.at, `user ${q(userName)}: client-certificate(-data)`, (v) => createSecureContext({ cert: v }));
  checkTlsMaterial(user.keyData, u?.at, `user ${q(userName)}: client-key(-data)`, (v) => createSecureContext({ key: v }));
  if (user.certData && user.keyData) checkTlsMaterial(user.certData, u?.at, `user ${q(userName)}: the client certificate and key do not belong together`, (v) => createSecureContext({ cert: v, key: user.keyData }));
  return { context, cluster, user, namespace: typeof ctx.value.namespace === 'string' ? (ctx.value.namespace as string) : undefined };
}

function checkTlsMaterial(value: Buffer | undefined, at: string | undefined, what: string, check: (v: Buffer) => unknown): void {
  if (!value) return;
  try {
    check(value);
  } catch (err) {
    throw new InvalidInputError('invalid_kubeconfig', `${at ?? 'the kubeconfig'}: ${what} is not usable PEM (${(err as Error).message.replace(/^error:[0-9A-F]+:/, '')})`, {
      hint: 'fix that entry of the kubeconfig (base64 of a PEM certificate or key)',
    });
  }
}

/** A bearer token with its expiry (exec plugins), cached per plugin invocation line until it expires. */
interface CachedToken {
  token: string;
  expiresAt?: number;
}
const execCache = new Map<string, CachedToken>();

/**
 * The bearer token of a user, if any: an `exec` plugin's ExecCredential `status.token` (cached until its
 * `expirationTimestamp`), else the token file (re-read each time: it may be rotated), else `token`.
 */
export async function bearerToken(user: KubeUser, env: Record<string, string | undefined>, signal?: AbortSignal): Promise<string | undefined> {
  if (user.exec) return execToken(user.exec, env, signal);
  if (user.tokenFile) {
    try {
      const token = readFileSync(user.tokenFile, 'utf8').trim();
      registerSecret(token);
      return token;
    } catch (err) {
      throw new InvalidInputError('invalid_kubeconfig', `cannot read the token file ${user.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return user.token;
}

/** Forgets an exec plugin's cached token (after the server said 401: it may have been revoked early). */
export function forgetExecToken(exec: ExecConfig): void {
  execCache.delete(execKey(exec));
}

/** Forgets every cached exec token, as a new process starts: for a program that runs several commands in one process (test/support/in-process.ts). */
export function forgetExecTokens(): void {
  execCache.clear();
}

const execKey = (exec: ExecConfig) => JSON.stringify([exec.command, exec.args, exec.env, exec.baseDir]);

async function execToken(exec: ExecConfig, env: Record<string, string | undefined>, signal?: AbortSignal): Promise<string> {
  const key = execKey(exec);
  const cached = execCache.get(key);
  if (cached && (cached.expiresAt === undefined || cached.expiresAt > Date.now() + 10_000)) return cached.token;
  // kubectl resolves a command with a path separator against the kubeconfig's directory; bare names go through PATH.
  const command = exec.command.includes('/') && !isAbsolute(exec.command) ? join(exec.baseDir, exec.command) : exec.command;
  // The user's own plugin (`aws eks get-token`) needs the user's environment, but never this tool's
  // secrets: AI keys, GitHub tokens, the gpucloud credentials (engine/core/process/env.ts).
  const childEnv: Record<string, string> = withoutSecrets(env);
  for (const e of exec.env) childEnv[e.name] = e.value;
  // The plugin reads what it is asked for from KUBERNETES_EXEC_INFO (client.authentication.k8s.io).
  childEnv.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } });
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolvePromise, reject) => {
    // An argument vector, never a shell: nothing in the kubeconfig is interpreted as shell syntax.
    const child = spawn(command, exec.args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], signal });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.name === 'AbortError'
          ? abortReason(signal, e)
          : new OperationError('credential_plugin_failed', `the kubeconfig's exec credential plugin ${q(exec.command)} could not be started: ${e.code ?? e.message}`, {
              hint: 'install the plugin (e.g. the aws CLI for `aws eks get-token`) or fix users[].user.exec.command in the kubeconfig',
            }),
      ),
    );
    child.on('close', (c) => resolvePromise({ code: c, stdout: out, stderr: err }));
  });
  if (code !== 0) {
    throw new OperationError('credential_plugin_failed', `the exec credential plugin ${q(exec.command)} exited with ${code}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-1)[0]}` : ''}`, {
      hint: 'run the plugin by hand to see why (its credentials may have expired)',
    });
  }
  let status: Obj | undefined;
  try {
    status = (JSON.parse(stdout) as Obj)?.status as Obj | undefined;
  } catch {
    throw new OperationError('credential_plugin_failed', `the exec credential plugin ${q(exec.command)} did not print an ExecCredential JSON document`);
  }
  const token = status?.token;
  if (typeof token !== 'string' || !token) {
    throw new OperationError('credential_plugin_failed', `the exec credential plugin ${q(exec.command)} returned no status.token (client certificates from plugins are not supported)`);
  }
  registerSecret(token);
  const expiry = typeof status?.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
  execCache.set(key, { token, expiresAt: Number.isFinite(expiry) ? expiry : undefined });
  return token;
}

/** Loads the kubeconfig of a configuration and selects the context for a command. */
export function contextFor(config: Config, env: Record<string, string | undefined>, home: string, cluster?: string): { context: string; kubeconfig: Kubeconfig; paths: string[] } {
  const paths = kubeconfigPaths(config, env, home);
  const kubeconfig = loadKubeconfig(paths);
  return { context: selectContext(kubeconfig, paths, { cluster, kubernetes: config.kubernetes }), kubeconfig, paths };
}

/** Why a request or plugin was aborted: the deadline's `timeout` error (exit 1) rather than a bare abort (exit 130). */
export function abortReason(signal: AbortSignal | undefined, fallback: unknown): unknown {
  return signal?.aborted && signal.reason instanceof AssistantError ? signal.reason : fallback;
}
