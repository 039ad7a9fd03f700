/**
 * Tags for `cost tags --key <tag>`. Where a resource's tags come from, first match wins:
 * 1. the API's own `tags: [{key, value}]` on instances, volumes and clusters (the wire reference, GO
 *    main 2026-08; the emulator and older accounts send none);
 * 2. the convention the issue allows for an API without tags: `key=value` words in the resource's
 *    `description` (instances and clusters have one: `hostname: train-1, description: "team=vision env=prod"`);
 * 3. a volume with neither inherits the tags of the instance it is attached to, and a cluster's shared
 *    file system those of its cluster (an OS volume is part of its machine's cost).
 * Keys match case-insensitively; values are kept as written.
 */
import type { CostResource } from '../gpucloud/cost.js';

export type Tags = Record<string, string>;
export type TagSource = 'api' | 'description' | 'instance' | 'cluster';

/** `key=value` words of a description: key of letters, digits, `_ . - /`; value up to the next blank, comma or semicolon. */
const DESCRIPTION_TAG = /(?:^|[\s,;])([A-Za-z0-9_][A-Za-z0-9_.\-/]{0,62})=([^\s,;]{1,127})/g;

export function tagsOfDescription(description: unknown): Tags {
  const out: Tags = {};
  if (typeof description !== 'string') return out;
  for (const m of description.matchAll(DESCRIPTION_TAG)) out[m[1]!] ??= m[2]!;
  return out;
}

export function tagsOfApi(tags: unknown): Tags {
  const out: Tags = {};
  if (!Array.isArray(tags)) return out;
  for (const t of tags as { key?: unknown; value?: unknown }[]) {
    if (t && typeof t.key === 'string' && t.key) out[t.key] = typeof t.value === 'string' ? t.value : '';
  }
  return out;
}

/** A record's own tags: the API's, else its description's. */
export function ownTags(record: { tags?: unknown; description?: unknown }): { tags: Tags; source?: TagSource } {
  const api = tagsOfApi(record.tags);
  if (Object.keys(api).length) return { tags: api, source: 'api' };
  const desc = tagsOfDescription(record.description);
  return Object.keys(desc).length ? { tags: desc, source: 'description' } : { tags: {} };
}

export function tagValue(tags: Tags | undefined, key: string): string | undefined {
  if (!tags) return undefined;
  const k = Object.keys(tags).find((t) => t.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : tags[k];
}

export interface TagGroup {
  /** null: the resources without this tag. */
  value: string | null;
  hourly_cost: number;
  monthly_forecast: number;
  resources: { kind: string; id: string; name: string; hourly_cost: number | null; tag_from?: TagSource }[];
}

export interface CostByTag {
  provider: string;
  currency: string;
  key: string;
  as_of: string;
  based_on: string;
  hourly_cost: number;
  groups: TagGroup[];
}

export const TAG_BASIS =
  "tags from the API's `tags` field, else `key=value` words in an instance's or cluster's description; volumes without their own inherit their instance's or cluster's; costs at today's hourly prices, monthly = hourly × 720";

/** Cost grouped by the value of one tag, most expensive first, the untagged group last. */
export function costByTag(resources: readonly CostResource[], key: string, meta: { provider: string; currency: string; as_of: string }): CostByTag {
  const groups = new Map<string | null, TagGroup>();
  for (const r of resources) {
    const value = tagValue(r.tags, key) ?? null;
    let g = groups.get(value);
    if (!g) groups.set(value, (g = { value, hourly_cost: 0, monthly_forecast: 0, resources: [] }));
    g.hourly_cost += r.hourly_cost ?? 0;
    g.monthly_forecast = g.hourly_cost * 720;
    g.resources.push({ kind: r.kind, id: r.id, name: r.name, hourly_cost: r.hourly_cost, ...(value !== null && r.tag_from ? { tag_from: r.tag_from } : {}) });
  }
  const sorted = [...groups.values()].sort((a, b) => (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) || b.hourly_cost - a.hourly_cost || String(a.value).localeCompare(String(b.value)));
  return { ...meta, key, based_on: TAG_BASIS, hourly_cost: resources.reduce((s, r) => s + (r.hourly_cost ?? 0), 0), groups: sorted };
}
