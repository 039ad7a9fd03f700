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
