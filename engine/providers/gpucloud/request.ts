/**
 * A gpucloud step's one canonical request (DESIGN §8): method, decoded path, query and a body whose keys
 * are folded the way the API's Go decoder folds them. It is made once per step, when the plan is
 * validated (and again only when bindings change the step at run time); the destroyer gate, the pricer,
 * the name check and reservation, drift, failover and the report read it, and the step sends exactly it
 * (`requestTarget`, `requestBody`), so what was checked and priced is what the server gets.
 *
 * Anything a server could read in more than one way is refused instead of guessed at: paths a router
 * may normalise (./request.ts `canonicalPath`), a query key a mutating route does not read, a method
 * override (`?_method=DELETE`, a body key `X-HTTP-Method-Override`), two body keys that fill one field,
 * a body key decided at run time, numbers JavaScript cannot hold exactly.
 */
import { PLACEHOLDER_PATTERN } from '../../../schemas/plan-bindings.js';
import { goFieldOf, goFoldName } from '../../core/kits/http/go-json-keys.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { parseStrictJson } from '../../core/plan/strict-json.js';
import type { CanonicalRequest } from '../../core/provider.js';
import { changeRoute, isParam, WORDS_AT_ID, type ObjectShape, type Shape } from './routes.js';

export const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** A value quoted for a message, cut short: plans can carry 200 kB strings. */
export function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

// ------------------------------------------------------------------------------------------- the path

export type CanonicalPath = { ok: true; path: string; segments: string[]; query: [string, string][] } | { ok: false; problem: string };

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
 * a router, one optional trailing slash, and a query string without `action` or method-override keys,
 * placeholder keys or repeated keys. Route words (every segment but the ID) must be written lower case
 * without escapes.
 */
export function canonicalPath(raw: string): CanonicalPath {
  if (!raw.startsWith('/') || raw.startsWith('//')) return { ok: false, problem: 'it must be relative to the API origin and start with /v1/' };
  if (/[^\u0021-\u007e]/.test(raw)) return { ok: false, problem: 'spaces, control and non-ASCII characters must be percent-encoded' };
  if (raw.includes('#')) return { ok: false, problem: 'a fragment (#) has no meaning in an API path' };
  const q = raw.indexOf('?');
  const pathPart = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? [] : parseQuery(raw.slice(q + 1));
  if (!Array.isArray(query)) return { ok: false, problem: query.problem };

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
  return { ok: true, path: `/${segments.join('/')}`, segments, query };
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

/** Query keys that would make a server act as another method or action (Rails `_method`, `X-HTTP-Method-Override`). */
const overrides = (key: string) => {
  const word = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return word.includes('method') || word.includes('action');
};

function parseQuery(query: string): [string, string][] | { problem: string } {
  if (query === '') return [];
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (!QUERY_KEY.test(key)) return { problem: `query key ${show(key)} must be plain letters, digits, _ . - (no escapes or placeholders)` };
    if (overrides(key)) {
      return { problem: key.toLowerCase().includes('action') ? `an action in the query string (${show(key)}) is not allowed; actions go in the JSON body` : `query key ${show(key)} would override the request's method; refused` };
    }
    const lower = key.toLowerCase();
    if (seen.has(lower)) return { problem: `query key ${show(key)} is repeated (servers may keep either)` };
    seen.add(lower);
    if (!QUERY_VALUE.test(value)) return { problem: `query value for ${show(key)} has characters that must be percent-encoded` };
    if (/%(?:25|26|3[dD]|23)/.test(value)) return { problem: `query value for ${show(key)} escapes %, & , = or # (double encoding)` };
    let decoded: string;
    try {
      decoded = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return { problem: `query value for ${show(key)} has escapes that are not valid UTF-8` };
    }
    out.push([key, decoded]);
  }
  return out;
}

// ------------------------------------------------------------------------------------------- the body

type Folded = { value: unknown } | { problem: string };

/** How deep a body may nest (the API's bodies are a few levels deep; recursion must stay bounded). */
const MAX_DEPTH = 32;

/** Body keys that would make a server treat the request as another method (method-override middleware). */
function overridesMethod(key: string): boolean {
  const word = goFoldName(key).replace(/[^A-Z0-9]/g, '');
  return word === 'METHOD' || word.endsWith('METHODOVERRIDE') || word === 'HTTPMETHOD' || word === 'XHTTPMETHOD';
}

/**
 * The body with every key renamed to the field the API's decoder fills with it (exact name first, then
 * Go's case folding), or why it has no single reading. Keys that fill no known field stay as written;
 * two keys of one object that fold to one name are refused whether or not the field is known.
 */
export function foldBody(value: unknown, shape: Shape, at = '$', depth = 0): Folded {
  if (depth > MAX_DEPTH) return { problem: `${at} is nested deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    const item: Shape = typeof shape === 'object' && 'list' in shape ? (shape.list as Shape) : 'free';
    const out: unknown[] = [];
    for (const [i, v] of value.entries()) {
      const r = foldBody(v, item, `${at}[${i}]`, depth + 1);
      if ('problem' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }
  // JSON.parse reads 1e400 as Infinity (sent as null) and 2^53 + 1 as 2^53: what would be sent is not what was written.
  if (typeof value === 'number' && (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))) {
    return { problem: `${at} is a number too large to be read exactly` };
  }
  if (!value || typeof value !== 'object') return { value };
  const fields = typeof shape === 'object' && !('list' in shape) ? (shape as ObjectShape) : undefined;
  const names = fields ? Object.keys(fields) : [];
  const out: Record<string, unknown> = {};
  const filled = new Map<string, string>();
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (hasPlaceholder(key)) return { problem: `${at} has a key decided at run time (${show(key)})` };
    if (/\p{Cs}/u.test(key)) return { problem: `${at} has a key with a lone surrogate (${show(key)})` };
    if (overridesMethod(key)) return { problem: `${at} has the key ${show(key)}, which method-override middleware reads as another HTTP method; refused` };
    const field = fields ? goFieldOf(key, names) : undefined;
    const name = field ?? key;
    const slot = field ?? `\u0000${goFoldName(key)}`;
    const earlier = filled.get(slot);
    if (earlier !== undefined) {
      return { problem: `${at} has the keys ${show(earlier)} and ${show(key)}, which the API reads as one${field ? ` (${field})` : ''} (a Go decoder folds case; either may win)` };
    }
    filled.set(slot, key);
    const r = foldBody(v, field ? fields![field]! : 'free', `${at}.${name}`, depth + 1);
    if ('problem' in r) return r;
    // An own property whatever its name: `out["__proto__"] = …` would set the prototype instead, and a
    // reader would then see fields through it that the body sent does not hold.
    Object.defineProperty(out, name, { value: r.value, enumerable: true, writable: true, configurable: true });
  }
  return { value: out };
}

// ------------------------------------------------------------------------------------------- the request

export type Canonical = { ok: true; request: CanonicalRequest } | { ok: false; field: string; problem: string };

/** The segments of a canonical path (decoded; a segment never holds `/`: its escape is refused). */
export const segmentsOf = (req: CanonicalRequest): string[] => req.path.slice(1).split('/');

/** A route for a path no change route names: its ID position generalised, so a run-time binding cannot make it another. */
function shapeOf(segments: readonly string[]): string {
  return `/${segments.map((s, i) => (i === 2 ? '{id}' : s)).join('/')}`;
}

/** `["gpucloud-api", METHOD, PATH, BODY?]` in its canonical form, or why it has none (the step is refused, exit 2). */
export function canonicalRequest(args: readonly string[]): Canonical {
  const [, rawMethod = '', rawPath = '', bodyText] = args;
  if (hasPlaceholder(rawMethod)) return { ok: false, field: 'args[1]', problem: `the HTTP method is decided at run time (${show(rawMethod)})` };
  const method = rawMethod.trim().toUpperCase();
  if (!METHODS.has(method)) return { ok: false, field: 'args[1]', problem: `unknown HTTP method ${show(rawMethod)} (use GET, POST, PUT, PATCH or DELETE)` };
  const canon = canonicalPath(rawPath);
  if (!canon.ok) return { ok: false, field: 'args[2]', problem: `invalid path ${show(rawPath)}: ${canon.problem}` };
  const { segments } = canon;
  const changes = method !== 'GET';
  if (changes && segments[2] !== undefined && !hasPlaceholder(segments[2])) {
    const word = segments[2].toLowerCase().replace(/\..*$/, '');
    if (WORDS_AT_ID.has(word) && segments[2] !== word) {
      return { ok: false, field: 'args[2]', problem: `invalid path ${show(rawPath)}: ${show(segments[2])} stands where the route word "${word}" may be read (case folded or a suffix dropped)` };
    }
  }
  const route = changes ? changeRoute(method, segments) : undefined;
  if (changes) {
    const known = new Set(route?.query ?? []);
    const unknown = canon.query.map(([k]) => k).filter((k) => !known.has(k));
    if (unknown.length) {
      return { ok: false, field: 'args[2]', problem: `a ${method} request on ${route?.template ?? canon.path} takes no query ${unknown.map((k) => show(k)).join(', ')} (the API reads ${known.size ? [...known].join(', ') : 'none'} there)` };
    }
  }
  let body: unknown;
  if (bodyText !== undefined) {
    if (method === 'GET') return { ok: false, field: 'args[3]', problem: 'a GET request cannot carry a body' };
    const parsed = parseStrictJson(bodyText);
    if ('problem' in parsed) return { ok: false, field: 'args[3]', problem: `the body is ${parsed.problem.startsWith('not valid JSON') ? parsed.problem : `ambiguous: ${parsed.problem}`}` };
    const folded = foldBody(parsed.value, route?.body ?? 'free');
    if ('problem' in folded) return { ok: false, field: 'args[3]', problem: `the body has no single reading: ${folded.problem}` };
    body = folded.value;
  }
  return {
    ok: true,
    request: { method, path: canon.path, route: route?.template ?? shapeOf(segments), query: canon.query, ...(bodyText === undefined ? {} : { body }) },
  };
}

/** Every character but the unreserved ones escaped: one spelling per value. */
const strictEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The path and query the step sends: the canonical ones, each segment and value spelled one way. */
export function requestTarget(req: CanonicalRequest): string {
  const path = `/${segmentsOf(req).map(strictEncode).join('/')}`;
  return req.query.length ? `${path}?${req.query.map(([k, v]) => `${k}=${strictEncode(v)}`).join('&')}` : path;
}

/** The body the step sends: the canonical one (keys as the API names them). */
export function requestBody(req: CanonicalRequest): string | undefined {
  return req.body === undefined ? undefined : JSON.stringify(req.body);
}

/** The template words of a route and whether a segment list matches it. */
export function routeWords(template: string): string[] {
  return template.split('/').slice(1);
}

export { isParam };
