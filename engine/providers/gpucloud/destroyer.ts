import { PLACEHOLDER_PATTERN } from '../../../schemas/plan-bindings.js';
import { findDuplicateKey } from '../../core/plan/strict-json.js';

/**
 * The destroyer rule (SPEC 7.3, DESIGN.md §3), decided from the parsed request only — never from
 * reasons or labels. Every request path is first brought to one canonical form (`canonicalPath`);
 * anything a server could normalise in more than one way is invalid instead of guessed at, and the
 * rules below are matched against the canonical segments. README "The destroyer gate" lists them.
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
  /** Why a request on this route is destructive ([] when it is not), from its body. */
  check: (route: string, body: string | undefined, path: string) => string[];
}

const purgesQueue = (_route: string, _body: string | undefined, path: string) => [`${path} drops every queued request`];

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

export function destructiveReasons(method: string, path: string, body: string | undefined): string[] {
  // A value bound at run time must not be able to turn a harmless step into a destructive one, so
  // whatever decides *what* a request does (method, resource path, action, keys) may not be a placeholder.
  if (hasPlaceholder(method)) return [`HTTP method decided at run time ("${method}")`];
  const verb = method.trim().toUpperCase();
  if (verb === 'GET' || verb === 'HEAD') return [];
  const canon = canonicalPath(path);
  if (!canon.ok) return [`path ${show(path)} cannot be classified (${canon.problem}); treated as destructive`];
  if (verb === 'DELETE') return [`HTTP DELETE ${canon.path}`];
  const [version, collection] = canon.segments;
  if (hasPlaceholder(version ?? '') || hasPlaceholder(collection ?? '')) return [`resource path decided at run time ("${path}")`];
  const reasons: string[] = [];
  for (const rule of DESTROYER_RULES) {
    if (!rule.methods.has(verb)) continue;
    const match = matchRoute(rule.route, canon.segments);
    if (match === 'no') continue;
    if (match === 'at-run-time') reasons.push(`${canon.path} may become ${rule.route} once its placeholders are bound`);
    else reasons.push(...rule.check(rule.route, body, canon.path));
  }
  return reasons;
}

/**
 * Whether canonical segments are the route: 'yes', 'no', or 'at-run-time' when a placeholder stands
 * where the route has a fixed word (`/v1/instances/<X>` may become `/v1/instances/action`).
 */
function matchRoute(route: string, segments: string[]): 'yes' | 'no' | 'at-run-time' {
  const want = route.split('/').slice(1);
  if (want.length !== segments.length) return 'no';
  let runtime = false;
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const s = segments[i]!;
    if (/^\{\w+\}$/.test(w)) continue;
    // Servers differ in case folding and in dropping a `.suffix` (format suffix matching), so a word
    // in an ID position matches either way.
    const lower = s.toLowerCase();
    if (lower === w || lower.startsWith(`${w}.`)) continue;
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
  return (route: string, body: string | undefined): string[] => {
    if (body === undefined || body.trim() === '') return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`unparseable body on action path ${route} (treated as destructive)`];
    }
    const dup = findDuplicateKey(body);
    if (dup) return [`${route} body repeats the key "${dup.key}" (servers may keep either; treated as destructive)`];
    if (placeholderInKeys(parsed)) return [`${route} body has a key decided at run time`];
    const folded = foldedDuplicateKey(parsed);
    if (folded) return [`${route} body has keys equal but for case ("${folded}"; Go-style decoders match keys case-insensitively; treated as destructive)`];
    return collectActions(parsed)
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

/** A value quoted for a message, cut short: plans can carry 200 kB strings. */
export function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function hasPlaceholder(text: string): boolean {
  return new RegExp(PLACEHOLDER_PATTERN.source).test(text);
}

export type CanonicalPath = { ok: true; path: string; segments: string[] } | { ok: false; problem: string };

const PLACEHOLDER = PLACEHOLDER_PATTERN.source;
/** A raw path segment: unreserved characters, placeholders and percent-escapes, nothing else. */
const RAW_SEGMENT = new RegExp(`^(?:[A-Za-z0-9._~-]|${PLACEHOLDER}|%[0-9A-Fa-f]{2})+$`);
/** A fixed route word (`v1`, `instances`, `purge-queue`): written exactly, lower case, no escapes. */
const ROUTE_WORD = /^[a-z0-9][a-z0-9_-]*$/;
/** ASCII a server might treat as structure or normalise away when it arrives escaped. */
const ESCAPE_FORBIDDEN = /[\u0000-\u0020\u007f/\\%;?#.A-Za-z0-9_~-]/;
const QUERY_KEY = /^[A-Za-z0-9_.-]+$/;
const QUERY_VALUE = new RegExp(`^(?:[A-Za-z0-9._~,:+-]|${PLACEHOLDER}|%[0-9A-Fa-f]{2})*$`);

/**
 * The one canonical form of a request path, or why there is none. Servers and proxies normalise paths
 * differently (matrix `;params`, trailing dots, `%2F`, double encoding, case, `.`/`..`, spaces), so
 * instead of predicting each, only paths with a single reading are accepted: `/v1/<collection>[/<id>
 * [/<word>…]]` with unreserved characters, placeholders and escapes of characters that mean nothing to
 * a router, one optional trailing slash, and a query string without `action`, placeholder keys or
 * repeated keys. Route words (every segment but the ID) must be written lower case without escapes.
 */
export function canonicalPath(raw: string): CanonicalPath {
  if (!raw.startsWith('/') || raw.startsWith('//')) return { ok: false, problem: 'it must be relative to the API origin and start with /v1/' };
  if (/[^\u0021-\u007e]/.test(raw)) return { ok: false, problem: 'spaces, control and non-ASCII characters must be percent-encoded' };
  if (raw.includes('#')) return { ok: false, problem: 'a fragment (#) has no meaning in an API path' };
  const q = raw.indexOf('?');
  const pathPart = q < 0 ? raw : raw.slice(0, q);
  const queryProblem = q < 0 ? undefined : checkQuery(raw.slice(q + 1));
  if (queryProblem) return { ok: false, problem: queryProblem };

  const rawSegments = pathPart.slice(1).split('/');
  if (rawSegments.length > 1 && rawSegments.at(-1) === '') rawSegments.pop(); // one trailing slash
  if (rawSegments[0] !== 'v1') return { ok: false, problem: 'it must start with /v1/' };
  const segments: string[] = [];
  for (const [i, seg] of rawSegments.entries()) {
    if (seg === '') return { ok: false, problem: 'empty path segment (//)' };
    if (!RAW_SEGMENT.test(seg)) return { ok: false, problem: `segment ${show(seg)} has characters a server may treat as structure (; , = \\ and the like)` };
    const decoded = decodeSegment(seg);
    if (typeof decoded !== 'string') return { ok: false, problem: decoded.problem };
    if (decoded === '.' || decoded === '..') return { ok: false, problem: '. and .. segments' };
    if (decoded.endsWith('.')) return { ok: false, problem: `segment ${show(seg)} ends with a dot, which some servers drop` };
    const isId = i === 2;
    if (!isId && !hasPlaceholder(seg) && !ROUTE_WORD.test(seg)) {
      return { ok: false, problem: `route word ${show(seg)} must be written in lower case without escapes` };
    }
    segments.push(decoded);
  }
  if (segments.length < 2) return { ok: false, problem: 'it names no resource' };
  return { ok: true, path: `/${segments.join('/')}`, segments };
}

/** Decodes the escapes of one segment once; an escape of a structural or unreserved character is refused. */
function decodeSegment(seg: string): string | { problem: string } {
  for (const m of seg.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const byte = parseInt(m[1]!, 16);
    if (byte < 0x80 && ESCAPE_FORBIDDEN.test(String.fromCharCode(byte))) {
      return { problem: `"${m[0]}" escapes a character that must be written as is or not at all (/, \\, %, ;, ., letters, spaces)` };
    }
  }
  try {
    return decodeURIComponent(seg);
  } catch {
    return { problem: `segment ${show(seg)} has escapes that are not valid UTF-8` };
  }
}

function checkQuery(query: string): string | undefined {
  if (query === '') return undefined;
  const seen = new Set<string>();
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (!QUERY_KEY.test(key)) return `query key ${show(key)} must be plain letters, digits, _ . - (no escapes or placeholders)`;
    const lower = key.toLowerCase();
    if (lower.includes('action')) return `an action in the query string (${show(key)}) is not allowed; actions go in the JSON body`;
    if (seen.has(lower)) return `query key ${show(key)} is repeated (servers may keep either)`;
    seen.add(lower);
    if (!QUERY_VALUE.test(value)) return `query value for ${show(key)} has characters that must be percent-encoded`;
    if (/%(?:25|26|3[dD]|23)/.test(value)) return `query value for ${show(key)} escapes %, & , = or # (double encoding)`;
  }
  return undefined;
}

function placeholderInKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(placeholderInKeys);
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).some(([k, v]) => hasPlaceholder(k) || placeholderInKeys(v));
  }
  return false;
}

/** A key that another key of the same object equals when case is ignored, anywhere in the body. */
function foldedDuplicateKey(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = foldedDuplicateKey(v);
      if (found) return found;
    }
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const seen = new Set<string>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const lower = k.toLowerCase();
    if (seen.has(lower)) return k;
    seen.add(lower);
    const found = foldedDuplicateKey(v);
    if (found) return found;
  }
  return undefined;
}

/** The value of a key matched as Go's encoding/json matches struct fields: ignoring case. */
function fieldOf(obj: Record<string, unknown>, name: string): { value: unknown } | undefined {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : { value: obj[key] };
}

/** Flat `action` and every `actions[].action` (keys in any case); non-string actions are returned as-is so they count as destructive. */
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
