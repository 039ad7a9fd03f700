import { goFoldName } from '../../core/kits/http/go-json-keys.js';
import type { CanonicalRequest } from '../../core/provider.js';
import { PLACEHOLDER_PATTERN } from '../../../schemas/plan-bindings.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { canonicalRequest, segmentsOf, show } from './request.js';

export { canonicalPath, show, type CanonicalPath } from './request.js';

/**
 * The destroyer rule (SPEC 7.3, DESIGN.md §3), decided from the step's canonical request only (./request.ts)
 * — never from reasons or labels. A request with no canonical form is refused before this is asked
 * (exit 2); `destructiveReasons` of such raw input says so as a reason too, so a caller that only asks
 * this never lets it through. README "The destroyer gate" lists the rules.
 */
const DESTRUCTIVE_INSTANCE_ACTIONS = new Set(['delete', 'discontinue', 'force_shutdown', 'delete_stuck', 'hibernate']);
const DESTRUCTIVE_CLUSTER_ACTIONS = new Set(['discontinue', 'delete']);
const DESTRUCTIVE_VOLUME_ACTIONS = new Set(['delete']);

/** The methods that can carry an action body; a server may accept any of them on an action route. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

interface Rule {
  /** Route template segments after the leading `/`; `{name}` matches any one segment. */
  route: string;
  methods: Set<string>;
  /** Why a request on this route is destructive ([] when it is not), from its canonical body. */
  check: (route: string, body: unknown, path: string) => string[];
}

const purgesQueue = (_route: string, _body: unknown, path: string) => [`${path} drops every queued request`];

export const DESTROYER_RULES: readonly Rule[] = [
  { route: '/v1/instances', methods: WRITE_METHODS, check: actionBody(DESTRUCTIVE_INSTANCE_ACTIONS) },
  // Deprecated (wire reference §5) but possibly still served: the same actions as PUT /v1/instances.
  { route: '/v1/instances/action', methods: WRITE_METHODS, check: actionBody(DESTRUCTIVE_INSTANCE_ACTIONS) },
  { route: '/v1/clusters', methods: WRITE_METHODS, check: actionBody(DESTRUCTIVE_CLUSTER_ACTIONS) },
  { route: '/v1/volumes', methods: WRITE_METHODS, check: actionBody(DESTRUCTIVE_VOLUME_ACTIONS) },
  // Purging a queue drops the requests waiting in it (§16, §17).
  { route: '/v1/container-deployments/{name}/purge-queue', methods: WRITE_METHODS, check: purgesQueue },
  { route: '/v1/job-deployments/{name}/purge-queue', methods: WRITE_METHODS, check: purgesQueue },
];

/**
 * Why a raw request is destructive ([] when it is not): its canonical form's reasons, or — when it has
 * none — why it cannot be classified (a step like that is also invalid: it never runs).
 */
export function destructiveReasons(method: string, path: string, body: string | undefined): string[] {
  // A value bound at run time must not be able to turn a harmless step into a destructive one, so
  // whatever decides *what* a request does (method, resource path, action, keys) may not be a placeholder.
  if (hasPlaceholder(method)) return [`HTTP method decided at run time ("${method}")`];
  const verb = method.trim().toUpperCase();
  if (verb === 'GET' || verb === 'HEAD') return [];
  const canon = canonicalRequest(['gpucloud-api', method, path, ...(body === undefined ? [] : [body])]);
  if (canon.ok) return destructiveReasonsOf(canon.request);
  if (canon.field !== 'args[3]') return [`${canon.field === 'args[2]' ? `path ${show(path)}` : 'the request'} cannot be classified (${canon.problem}); treated as destructive`];
  // The body has no single reading: on an action route it might hold any action (destructive, and
  // invalid); elsewhere it is only invalid. An empty body is no action.
  if (body === undefined || body.trim() === '') return [];
  const bare = canonicalRequest(['gpucloud-api', method, path]);
  if (!bare.ok) return [`the request cannot be classified (${canon.problem}); treated as destructive`];
  return destructiveReasonsOf(bare.request, (route) => [`unparseable body on action path ${route} (${canon.problem}; treated as destructive)`]);
}

/** Why a canonical request is destructive ([] when it is not); `unreadBody` answers for an action route when the body could not be read. */
export function destructiveReasonsOf(req: CanonicalRequest, unreadBody?: (route: string) => string[]): string[] {
  const verb = req.method;
  if (verb === 'GET') return [];
  const segments = segmentsOf(req);
  if (verb === 'DELETE') return [`HTTP DELETE ${req.path}`];
  const [version, collection] = segments;
  if (hasPlaceholder(version ?? '') || hasPlaceholder(collection ?? '')) return [`resource path decided at run time ("${req.path}")`];
  const reasons: string[] = [];
  for (const rule of DESTROYER_RULES) {
    if (!rule.methods.has(verb)) continue;
    const match = matchRoute(rule.route, segments);
    if (match === 'no') continue;
    if (match === 'at-run-time') reasons.push(`${req.path} may become ${rule.route} once its placeholders are bound`);
    else if (unreadBody && rule.check !== purgesQueue) reasons.push(...unreadBody(rule.route));
    else reasons.push(...rule.check(rule.route, req.body, req.path));
  }
  return reasons;
}

/**
 * Whether canonical segments are the route: 'yes', 'no', or 'at-run-time' when a placeholder stands
 * where the route has a fixed word (`/v1/instances/<X>` may become `/v1/instances/action`). An ID that
 * spells a route word another way (`Action`, `action.json`) has no canonical form: it never gets here.
 */
function matchRoute(route: string, segments: string[]): 'yes' | 'no' | 'at-run-time' {
  const want = route.split('/').slice(1);
  if (want.length !== segments.length) return 'no';
  let runtime = false;
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const s = segments[i]!;
    if (/^\{\w+\}$/.test(w) || s === w) continue;
    if (hasPlaceholder(s) && placeholderPattern(s).test(w)) {
      runtime = true;
      continue;
    }
    return 'no';
  }
  return runtime ? 'at-run-time' : 'yes';
}

/** A segment with placeholders as a pattern: `act<X>` matches `action`. */
function placeholderPattern(segment: string): RegExp {
  const parts = segment.split(new RegExp(PLACEHOLDER_PATTERN.source));
  // split() with a capture group interleaves the names; keep only the literal parts.
  const literals = parts.filter((_, i) => i % 2 === 0).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literals.join('.*')}$`, 'i');
}

function actionBody(actionSet: Set<string>) {
  return (route: string, body: unknown): string[] => {
    if (body === undefined) return [];
    return collectActions(body)
      .filter((a) => typeof a !== 'string' || hasPlaceholder(a) || actionSet.has(a.trim().toLowerCase()))
      .map((a) =>
        typeof a !== 'string'
          ? `${route} action of unexpected type (treated as destructive)`
          : hasPlaceholder(a)
            ? `${route} action decided at run time ("${a}")`
            : `${route} action "${a}"`,
      );
  };
}

/**
 * The value of a field as Go's decoder fills it: the canonical body names known fields exactly, but a
 * body posted to a route whose fields this provider does not list (an action body on a create route)
 * keeps its keys as written, so they are matched by Go's folding here too.
 */
function fieldOf(obj: Record<string, unknown>, name: string): { value: unknown } | undefined {
  if (name in obj) return { value: obj[name] };
  const folded = goFoldName(name);
  const key = Object.keys(obj).find((k) => goFoldName(k) === folded);
  return key === undefined ? undefined : { value: obj[key] };
}

/** Flat `action` and every `actions[].action`; non-string actions are returned as-is so they count as destructive. */
function collectActions(body: unknown): unknown[] {
  if (!body || typeof body !== 'object') return [body];
  const out: unknown[] = [];
  const obj = body as Record<string, unknown>;
  const action = fieldOf(obj, 'action');
  if (action) out.push(action.value);
  const actions = fieldOf(obj, 'actions');
  if (actions) {
    if (!Array.isArray(actions.value)) out.push(actions.value);
    else for (const item of actions.value) out.push(item && typeof item === 'object' && !Array.isArray(item) ? fieldOf(item as Record<string, unknown>, 'action')?.value : item);
  }
  if (Array.isArray(body)) out.push(...body.flatMap(collectActions));
  return out;
}
