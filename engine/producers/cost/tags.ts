/**
 * Cost grouped by a tag's value (`cost tags --key <tag>`). Where a gpucloud resource's tags come from is
 * engine/providers/gpucloud/tags.ts; keys match case-insensitively, values are kept as written.
 */
import type { CostResource } from '../../core/capabilities.js';

type Tags = Record<string, string>;
type TagSource = NonNullable<CostResource['tag_from']>;

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

/** What grouping by tag needs of a priced resource (any provider's; gpucloud's CostResource is one). */
export interface TaggedCost {
  kind: string;
  id: string;
  name: string;
  hourly_cost: number | null;
  tags?: Tags;
  tag_from?: TagSource;
}

/** Cost grouped by the value of one tag, most expensive first, the untagged group last. */
export function costByTag(resources: readonly TaggedCost[], key: string, meta: { provider: string; currency: string; as_of: string }): CostByTag {
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
