import { normalizeApiPath } from '../gpucloud/catalogue.js';
import { PLACEHOLDER_PATTERN } from '../../schemas/plan.js';

/**
 * The destroyer rule (SPEC 7.3, DESIGN.md §3), decided from the parsed request only — never from
 * reasons or labels. Returns why a gpucloud-api request is destructive, or [] when it is not.
 */
const DESTRUCTIVE_INSTANCE_ACTIONS = new Set(['delete', 'discontinue', 'force_shutdown', 'delete_stuck', 'hibernate']);
const DESTRUCTIVE_CLUSTER_ACTIONS = new Set(['discontinue', 'delete']);
const DESTRUCTIVE_VOLUME_ACTIONS = new Set(['delete']);

const ACTION_PATHS: Record<string, Set<string>> = {
  '/v1/instances': DESTRUCTIVE_INSTANCE_ACTIONS,
  '/v1/clusters': DESTRUCTIVE_CLUSTER_ACTIONS,
  '/v1/volumes': DESTRUCTIVE_VOLUME_ACTIONS,
};

export function destructiveReasons(method: string, path: string, body: string | undefined): string[] {
  // A value bound at run time must not be able to turn a harmless step into a destructive one, so
  // whatever decides *what* a request does (method, resource path, action, keys) may not be a placeholder.
  if (hasPlaceholder(method)) return [`HTTP method decided at run time ("${method}")`];
  const verb = method.trim().toUpperCase();
  if (verb === 'GET' || verb === 'HEAD') return [];
  const classified = classificationPath(path);
  if (verb === 'DELETE') return [`HTTP DELETE ${classified}`];
  if (hasPlaceholder(classified.split('/').slice(0, 3).join('/'))) return [`resource path decided at run time ("${path}")`];
  const actionSet = ACTION_PATHS[classified.toLowerCase()];
  if (!actionSet) return [];
  if (body === undefined || body.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`unparseable body on action path ${classified} (treated as destructive)`];
  }
  if (placeholderInKeys(parsed)) return [`${classified} body has a key decided at run time`];
  const actions = collectActions(parsed);
  return actions
    .filter((a) => typeof a !== 'string' || hasPlaceholder(a) || actionSet.has(a.trim().toLowerCase()))
    .map((a) =>
      typeof a !== 'string'
        ? `${classified} action of unexpected type (treated as destructive)`
        : hasPlaceholder(a)
          ? `${classified} action decided at run time ("${a}")`
          : `${classified} action "${a}"`,
    );
}

function hasPlaceholder(text: string): boolean {
  return new RegExp(PLACEHOLDER_PATTERN.source).test(text);
}

/**
 * The path as the server will route it: parsed exactly as the request URL will be (the URL parser drops
 * tabs and newlines, turns `\\` into `/`, resolves `.`, `..`, `%2e%2e`), then percent-decoded, with
 * control characters removed, slashes folded and no trailing slash. Judging anything else would let a
 * path that looks harmless reach a destructive route.
 */
export function classificationPath(path: string): string {
  let p: string;
  try {
    p = new URL(`http://gpucloud.invalid${path.startsWith('/') ? '' : '/'}${path}`).pathname;
  } catch {
    p = path;
  }
  try {
    p = decodeURIComponent(p);
  } catch {
    // a malformed escape stays as written; the argument check rejects such paths anyway
  }
  return normalizeApiPath(p.replace(/[\u0000-\u001f\u007f]/g, ''));
}

function placeholderInKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(placeholderInKeys);
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).some(([k, v]) => hasPlaceholder(k) || placeholderInKeys(v));
  }
  return false;
}

/** Flat `action` and every `actions[].action`; non-string actions are returned as-is so they count as destructive. */
function collectActions(body: unknown): unknown[] {
  if (!body || typeof body !== 'object') return [body];
  const out: unknown[] = [];
  const obj = body as Record<string, unknown>;
  if ('action' in obj) out.push(obj.action);
  if ('actions' in obj) {
    if (!Array.isArray(obj.actions)) out.push(obj.actions);
    else for (const item of obj.actions) out.push(item && typeof item === 'object' ? (item as Record<string, unknown>).action : item);
  }
  if (Array.isArray(body)) out.push(...body.flatMap(collectActions));
  return out;
}
