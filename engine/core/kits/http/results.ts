/**
 * What an HTTP integration's answer sees of one step result: its items, the toolkit's note when
 * paging was cut (`{ items, truncated }`), or why there is nothing to show (the answer was not JSON).
 * One reading for every integration's built-in answers.
 */
import { arr, obj, str } from '../cli/reads.js';

export interface ResultItems {
  items: unknown[];
  /** The toolkit cut the read short (pages, bytes); the answer must say so. */
  truncated?: string;
  /** The read could not be used at all (an HTML page instead of JSON…). */
  unreadable?: string;
}

/** `wrapped` names the field a wrapped list is in (`workflow_runs`), for answers read from a single page. */
export function resultItems(data: unknown, wrapped: readonly string[] = []): ResultItems {
  if (Array.isArray(data)) return { items: data };
  if (typeof data === 'string') return { items: [], unreadable: `the answer was not JSON (${JSON.stringify(data.slice(0, 60))}…)` };
  const o = obj(data);
  if (Array.isArray(o.items) || o.truncated !== undefined) return { items: arr(o.items), truncated: str(o.truncated) };
  for (const w of wrapped) if (Array.isArray(o[w])) return { items: o[w] as unknown[] };
  return { items: [] };
}

/** Text from a service (titles, names) never carries control characters (a terminal escape) to the terminal. */
export { printable } from '../cli/reads.js';
