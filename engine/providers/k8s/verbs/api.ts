import { q } from '../../../core/render/quote.js';
import { placeholdersIn, substituteBody, substitutePath } from '../../../core/plan/bindings.js';
import { PLACEHOLDER_PATTERN } from '../../../../schemas/plan.js';
import { parseStrictJson } from '../../../core/plan/strict-json.js';
import { unknownStep, type ArgProblem, type StepClass, type StepVerb } from '../../../core/provider.js';
import { isZero } from '../../../core/kits/cli/decode.js';
import { registerSecret } from '../../../core/redact.js';
import type { KubeClient } from '../client.js';
import { kubectlName, parseK8sPath, type K8sPath } from '../kinds.js';

/** A placeholder in a plain argument (a context, a namespace, a name) becomes its value as it is. */
export function substituteRaw(arg: string, bindings: Record<string, string>): string {
  return arg.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in bindings ? bindings[name]! : whole));
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** A full object (apiVersion and kind) sent with PATCH is a server-side apply, like `kubectl apply --server-side`. */
export const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

function parseBody(body: string | undefined): Record<string, any> | undefined {
  if (body === undefined) return undefined;
  try {
    const v = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const isApply = (body: Record<string, any> | undefined) => typeof body?.apiVersion === 'string' && typeof body?.kind === 'string';

/** The name a create's body gives its object (`metadata.name`). */
function createdName(body: Record<string, any> | undefined): string | undefined {
  const name = body?.metadata?.name;
  return typeof name === 'string' && name ? name : undefined;
}

/** `<collection path> on <context>`: the create's kind as the duplicate-name check lists it. */
export function collectionKind(context: string, path: K8sPath): string {
  return `${path.prefix}${path.namespace !== undefined ? `/namespaces/${encodeURIComponent(path.namespace)}` : ''}/${path.resource} on ${context}`;
}

/** The reverse of collectionKind. */
export function splitCollectionKind(kind: string): { path: string; context: string } | undefined {
  const at = kind.indexOf(' on ');
  return at === -1 ? undefined : { path: kind.slice(0, at), context: kind.slice(at + 4) };
}

const where = (p: K8sPath, context: string) => `${p.namespace !== undefined ? ` in namespace ${p.namespace}` : ''} (context ${context})`;

/**
 * `["k8s-api", "<context>", "<METHOD>", "<path>", "<json body>"?]`: one request to the context's API
 * server. DELETE, scaling to zero (a body or `/scale` with `spec.replicas: 0`) and any placeholder that
 * decides what is touched are destructive; POST to a collection creates `metadata.name`.
 */
export const k8sApi: StepVerb<KubeClient> = {
  verb: 'k8s-api',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 4 || args.length > 5) {
      problems.push({ field: 'args', message: `k8s-api takes a context, a method, a path and an optional JSON body (got ${args.length - 1} arguments)` });
      return problems;
    }
    const [, context, method, path, body] = args as [string, string, string, string, string | undefined];
    if (!context.trim()) problems.push({ field: 'args[1]', message: 'the kubeconfig context is empty' });
    else if (/[\u0000-\u001f\u007f-\u009f]/.test(context)) problems.push({ field: 'args[1]', message: `the context ${q(context)} contains control characters` });
    const m = method.trim().toUpperCase();
    if (!METHODS.has(m) && !placeholdersIn(method).length) problems.push({ field: 'args[2]', message: `unknown HTTP method ${q(method)} (use GET, POST, PUT, PATCH or DELETE)` });
    if (/\s/.test(path) || !parseK8sPath(path)) {
      problems.push({ field: 'args[3]', message: `${q(path)} is not a Kubernetes API path (e.g. /api/v1/namespaces/default/pods or /apis/apps/v1/namespaces/default/deployments/web)` });
    }
    if (body !== undefined) {
      if (m === 'GET' || m === 'DELETE') problems.push({ field: 'args[4]', message: `a ${m} request carries no body here` });
      const parsed = parseStrictJson(body);
      if ('problem' in parsed) problems.push({ field: 'args[4]', message: `the body is ${parsed.problem.startsWith('not valid JSON') ? parsed.problem : `ambiguous: ${parsed.problem}`}` });
      else if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) problems.push({ field: 'args[4]', message: 'the body must be a JSON object' });
    } else if (m === 'POST' || m === 'PUT' || m === 'PATCH') {
      problems.push({ field: 'args[4]', message: `a ${m} request needs a JSON body` });
    }
    return problems;
  },

  classify(args) {
    return classifyK8sRequest(args[1] ?? '', args[2] ?? '', args[3] ?? '', args[4]);
  },

  substitute(args, bindings) {
    const [verb, context, method, path, body] = args;
    const out = [verb!, substituteRaw(context!, bindings), method!, substitutePath(path!, bindings)];
    if (body !== undefined) out.push(substituteBody(body, bindings));
    return out;
  },

  async run(args, ctx) {
    const [, context, rawMethod, path, body] = args as [string, string, string, string, string | undefined];
    const method = rawMethod.trim().toUpperCase();
    const client = await ctx.client();
    let sendPath = path;
    let contentType: string | undefined;
    if (method === 'PATCH') {
      const apply = isApply(parseBody(body));
      contentType = apply ? APPLY_CONTENT_TYPE : MERGE_PATCH_CONTENT_TYPE;
      // Server-side apply needs a field manager; `force` takes over fields an earlier kubectl apply owned.
      if (apply && !/[?&]fieldManager=/.test(sendPath)) sendPath += `${sendPath.includes('?') ? '&' : '?'}fieldManager=assistant&force=true`;
    }
    const res = await client.request(context, { method, path: sendPath, body, contentType, signal: ctx.signal });
    const secrets = secretValues(res.data);
    return { status: res.status, data: res.data, ...(secrets.length ? { secrets } : {}) };
  },

  describe(args) {
    const [, context = '', method = '', path = '', body] = args;
    const kubectl = kubectlEquivalent(context, method.trim().toUpperCase(), path, body);
    return `${method.toUpperCase()} ${path}${kubectl ? `   [${kubectl}]` : ''}`;
  },

  detail(args) {
    return args[4] === undefined ? undefined : (parseBody(args[4]) ?? args[4]);
  },
};

/**
 * The values of a Secret (or a list of them) and a service account token in a response, registered for
 * redaction (base64 and decoded): a report, journal or MCP result never shows them.
 */
function secretValues(data: unknown): { path: string; value: string }[] {
  const out: { path: string; value: string }[] = [];
  const d = data as { kind?: unknown; items?: unknown[]; data?: unknown; stringData?: unknown; status?: { token?: unknown } } | null;
  const objects = d?.kind === 'Secret' ? [d] : d?.kind === 'SecretList' && Array.isArray(d.items) ? d.items : [];
  objects.forEach((o, i) => {
    for (const field of ['data', 'stringData'] as const) {
      const map = (o as Record<string, unknown>)?.[field];
      if (!map || typeof map !== 'object') continue;
      for (const [k, v] of Object.entries(map as Record<string, unknown>)) {
        if (typeof v !== 'string') continue;
        out.push({ path: `$${d?.kind === 'SecretList' ? `.items[${i}]` : ''}.${field}.${k}`, value: v });
        if (field === 'data') registerSecret(Buffer.from(v, 'base64').toString('utf8'));
      }
    }
  });
  if (d?.kind === 'TokenRequest' && typeof d.status?.token === 'string') out.push({ path: '$.status.token', value: d.status.token });
  for (const s of out) registerSecret(s.value);
  return out;
}

/** Subresources a request may write without --destroyer: the replica count (checked for 0) and status. */
const WRITABLE_SUBRESOURCES = new Set(['scale', 'status']);
/** Subresources that run something in a container or reach past the API server: never run freely. */
const RUNS_SOMETHING = new Set(['exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers']);
const RBAC = new Set(['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings']);

const zeroish = (v: unknown) =>
  v === 0 || (typeof v === 'string' && (isZero(v) || placeholdersIn(v).length > 0)) || (typeof v === 'number' && Object.is(v, -0));

/** Whether a value holds a `null` anywhere (in a merge patch or an apply, a null deletes that field). */
function hasNull(v: unknown): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.some(hasNull);
  if (v && typeof v === 'object') return Object.values(v).some(hasNull);
  return false;
}

const emptyMap = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/**
 * Why a PUT or PATCH body removes data or capacity (each reason makes the step destructive): replicas
 * 0 (also `-0`, `"+0"`, `0.0`, a placeholder), a null (deletes a field), a Secret or ConfigMap replaced
 * or applied without data, a `NoExecute` taint (evicts every pod) or a cordon, a suspended Job or
 * CronJob, finalizers cleared, a volume whose reclaim policy becomes Delete.
 */
function removals(p: K8sPath, method: string, body: Record<string, any> | undefined, apply: boolean, what: string, at: string): string[] {
  const out: string[] = [];
  if (!body) return [`${what}${at}: the body cannot be read, so what it changes is unknown`];
  const replicas = body.spec?.replicas;
  if (zeroish(replicas)) out.push(placeholdersIn(String(replicas)).length ? `sets the replicas of ${what} from a placeholder (${replicas}), which may be zero` : `scales ${what} to zero replicas${at}`);
  if (hasNull(body)) out.push(`${what}${at}: a null in the body deletes that field`);
  const resource = p.resource ?? '';
  if ((resource === 'secrets' || resource === 'configmaps') && !p.subresource) {
    const data = [body.data, body.stringData, body.binaryData];
    if (method === 'PUT') out.push(`replaces ${what}${at}: keys not in the body are removed`);
    else if (apply && data.every(emptyMap)) out.push(`applies ${what}${at} without data: it is emptied`);
    else if (data.some((d) => d !== undefined && typeof d !== 'object')) out.push(`${what}${at}: its data is not a map`);
  }
  const taints = body.spec?.taints;
  if (resource === 'nodes' && Array.isArray(taints) && taints.some((t: any) => String(t?.effect ?? '').toLowerCase() === 'noexecute' || placeholdersIn(String(t?.effect ?? '')).length)) {
    out.push(`taints ${what} NoExecute: every pod without a toleration is evicted`);
  }
  if (resource === 'nodes' && (body.spec?.unschedulable === true || body.spec?.unschedulable === 'true')) out.push(`cordons ${what}: its capacity is taken away`);
  if ((resource === 'jobs' || resource === 'cronjobs') && (body.spec?.suspend === true || body.spec?.suspend === 'true' || placeholdersIn(String(body.spec?.suspend ?? '')).length)) {
    out.push(`suspends ${what}${at}: ${resource === 'jobs' ? 'its running pods are deleted' : 'it stops running'}`);
  }
  if (Array.isArray(body.metadata?.finalizers) && body.metadata.finalizers.length === 0) out.push(`clears the finalizers of ${what}${at}: an object being deleted goes at once`);
  if (String(body.spec?.persistentVolumeReclaimPolicy ?? '').toLowerCase() === 'delete') out.push(`${what}: the reclaim policy Delete deletes the volume's data when it is released`);
  if (typeof body.spec?.nodeSelector === 'object' && resource === 'daemonsets') out.push(`${what}${at}: a node selector can take the DaemonSet off every node`);
  return out;
}

/**
 * What a request does, from its parsed parts only (the destroyer gate reads `effect` and `reasons`).
 * Default deny: GET is a read, POST to a collection a create, PUT/PATCH of an object (or its scale or
 * status) an update unless the body removes data or capacity; DELETE, an eviction, anything that runs
 * in a container or proxies past the API server (exec, attach, portforward, proxy), a change of RBAC,
 * any other subresource or a placeholder where the effect is decided is destructive.
 */
export function classifyK8sRequest(context: string, rawMethod: string, path: string, bodyText: string | undefined): StepClass {
  const method = rawMethod.trim().toUpperCase();
  const p = parseK8sPath(path);
  const kind = p?.resource;
  if (placeholdersIn(rawMethod).length) return { effect: 'destroy', kind, reasons: [`the method is a placeholder (${rawMethod}): what the step does is only known at run time`] };
  const resourceSeg = p?.resource ?? '';
  if (placeholdersIn(resourceSeg).length || placeholdersIn(p?.subresource ?? '').length) {
    return { effect: 'destroy', kind, reasons: [`the resource type in ${path} is a placeholder: what the step touches is only known at run time`] };
  }
  const sub = p?.subresource;
  if (sub && RUNS_SOMETHING.has(sub)) return { effect: 'destroy', kind, reasons: [`${method} ${path}: ${sub} runs something in a container or reaches past the API server; what it does cannot be decided`] };
  if (method === 'GET' || method === 'HEAD') return { effect: 'read', kind, reasons: [] };
  if (!p?.resource) return unknownStep(`${method} ${path}`);
  const what = `${kubectlName(p.resource)}${p.name ? ` ${p.name}` : ''}`;
  const at = where(p, context);
  if (method === 'DELETE') {
    return {
      effect: 'destroy',
      kind,
      reasons: [p.name ? `deletes ${what}${at}` : `deletes every ${kubectlName(p.resource)}${at}`],
    };
  }
  if (method === 'POST' && sub === 'eviction') return { effect: 'destroy', kind, reasons: [`evicts pod ${p.name}${at}`] };
  if (RBAC.has(p.resource)) return { effect: 'destroy', kind, reasons: [`${method} ${what}${at}: changes who may do what in the cluster`] };
  const body = parseBody(bodyText);
  if (method === 'POST' && !p.name) {
    const name = createdName(body);
    return name ? { effect: 'create', kind: collectionKind(context, p), name, nameAt: 'args[4].metadata.name', reasons: [] } : { effect: 'create', kind, reasons: [] };
  }
  // A service account token (POST …/serviceaccounts/<name>/token): a credential, masked in every output.
  if (method === 'POST' && p.name && sub === 'token' && p.resource === 'serviceaccounts') return { effect: 'create', kind, reasons: [] };
  if ((method === 'PUT' || method === 'PATCH') && p.name && (!sub || WRITABLE_SUBRESOURCES.has(sub))) {
    const reasons = removals(p, method, body, method === 'PATCH' && isApply(body), what, at);
    return reasons.length ? { effect: 'destroy', kind, reasons } : { effect: 'update', kind, reasons: [] };
  }
  return unknownStep(`${method} ${path}`, kind);
}

/** The kubectl command a request corresponds to, for people who think in kubectl (dry runs, progress). */
export function kubectlEquivalent(context: string, method: string, path: string, bodyText?: string): string | undefined {
  const p = parseK8sPath(path);
  const base = `kubectl --context ${context}`;
  if (!p?.resource) return `${base} get --raw ${path}`;
  const ns = p.namespace !== undefined ? ` -n ${p.namespace}` : '';
  const kind = kubectlName(p.resource);
  const body = parseBody(bodyText);
  if (method === 'GET') {
    if (p.subresource === 'log') {
      const q = p.query;
      const flags = [q.get('container') && `-c ${q.get('container')}`, q.get('tailLines') && `--tail=${q.get('tailLines')}`, q.get('sinceSeconds') && `--since=${q.get('sinceSeconds')}s`, q.get('follow') === 'true' && '-f'].filter(Boolean);
      return `${base} logs ${p.name}${ns}${flags.length ? ' ' + flags.join(' ') : ''}`;
    }
    if (p.subresource) return `${base} get --raw ${path}`;
    if (p.prefix.startsWith('/apis/metrics.k8s.io')) return `${base} top ${p.resource === 'nodes' ? 'node' : 'pod'}${p.name ? ` ${p.name}` : ''}${ns || (p.resource === 'pods' ? ' -A' : '')}`;
    return `${base} get ${kind}${p.name ? ` ${p.name}` : ''}${ns || (p.name ? '' : ' -A')} -o json`;
  }
  if (method === 'DELETE') return `${base} delete ${kind}${p.name ? ` ${p.name}` : ' --all'}${ns}`;
  if (p.subresource === 'scale' && body?.spec?.replicas !== undefined) return `${base} scale ${kind} ${p.name} --replicas=${body.spec.replicas}${ns}`;
  if (method === 'POST') return `${base}${ns} create -f -`;
  if (method === 'PUT') return `${base}${ns} replace -f -`;
  if (method === 'PATCH') return isApply(body) ? `${base}${ns} apply --server-side -f -` : `${base} patch ${kind} ${p.name ?? ''}${ns} --type merge -p '${bodyText ?? ''}'`;
  return undefined;
}
