import { normalizeApiPath } from '../gpucloud/catalogue.js';

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
  const verb = method.trim().toUpperCase();
  if (verb === 'DELETE') return [`HTTP DELETE ${normalizeApiPath(path)}`];
  const actionSet = ACTION_PATHS[normalizeApiPath(path).toLowerCase()];
  if (!actionSet || verb === 'GET' || verb === 'HEAD') return [];
  if (body === undefined || body.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`unparseable body on action path ${normalizeApiPath(path)} (treated as destructive)`];
  }
  const actions = collectActions(parsed);
  return actions
    .filter((a) => typeof a !== 'string' || actionSet.has(a.trim().toLowerCase()))
    .map((a) => (typeof a === 'string' ? `${normalizeApiPath(path)} action "${a}"` : `${normalizeApiPath(path)} action of unexpected type (treated as destructive)`));
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
