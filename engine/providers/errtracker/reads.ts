/**
 * errtracker (a Sentry-style error tracker) reads for `ask`: the unresolved issues of a project (or of
 * the whole organization) by frequency, and the organization's projects. Each read is one
 * `errtracker-api` GET of the Sentry web API (`/api/0/…`); answers without a model come from the same
 * table.
 */
import { capped, obj, readsNamedBy, str } from '../../core/kits/cli/reads.js';
import { printable, resultItems } from '../../core/kits/http/results.js';

export interface ErrScope {
  org: string;
  project?: string;
}

export interface ErrReadSpec {
  key: 'issues' | 'projects';
  words: string[];
  byDefault: boolean;
  path(scope: ErrScope): string;
}

const enc = encodeURIComponent;
/** The stats period the counts cover (Sentry's `statsPeriod`). */
export const ERR_STATS_PERIOD = '14d';

export const ERR_READS: readonly ErrReadSpec[] = [
  {
    key: 'issues',
    words: ['error', 'errors', 'issue', 'issues', 'exception', 'exceptions', 'crash', 'crashes', 'unresolved', 'frequent', 'top', 'noisy', 'bugs'],
    byDefault: true,
    path: (s) => {
      const q = `query=${enc('is:unresolved')}&sort=freq&statsPeriod=${ERR_STATS_PERIOD}&limit=100`;
      return s.project ? `/api/0/projects/${enc(s.org)}/${enc(s.project)}/issues/?${q}` : `/api/0/organizations/${enc(s.org)}/issues/?${q}`;
    },
  },
  {
    key: 'projects',
    words: ['project', 'projects'],
    byDefault: false,
    path: (s) => `/api/0/organizations/${enc(s.org)}/projects/`,
  },
];

const namedBy = readsNamedBy(ERR_READS);

/** The reads a question asks for ("which projects" reads projects only; otherwise the issues). */
export function errReadsFor(question: string, scoped: boolean): ErrReadSpec[] {
  const chosen = namedBy(question);
  const issues = ERR_READS[0]!;
  const projects = ERR_READS[1]!;
  // "errors in project api" names a project: that is a scope, not a request for the project list.
  if (scoped && chosen.has(issues)) chosen.delete(projects);
  const picked = ERR_READS.filter((s) => chosen.has(s));
  return picked.length ? picked : [issues];
}

/** `project api`, `the checkout project`, `in api-gateway` is not enough: the word "project" must be there. */
export function projectIn(question: string): string | undefined {
  const skip = /^(the|my|our|this|that|which|each|every|a|an|all|any|its|per|list|lists|names?|most|more|has|have|had|is|are|was|were|with|in|on|for|of|and|or|to|by|at|errors?|issues?|exceptions?|crash(es)?|slugs?|settings?)$/i;
  const after = /\bproject\s+[`'"]?([A-Za-z0-9][\w.-]*)/i.exec(question)?.[1];
  if (after && !skip.test(after)) return after.replace(/[.]+$/, '');
  const before = /\b([A-Za-z0-9][\w.-]*)\s+project\b/i.exec(question)?.[1];
  if (before && !skip.test(before) && !/^(sentry|errtracker|which|what|each|every|per|the)$/i.test(before)) return before;
  return undefined;
}

export function errReadOf(path: string): ErrReadSpec | undefined {
  const p = path.split('?')[0]!;
  if (/\/issues\/?$/.test(p)) return ERR_READS[0];
  if (/\/projects\/?$/.test(p)) return ERR_READS[1];
  return undefined;
}

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0);

/** Where a step's path points, for the answer's heading (`acme/backend`, `acme (all projects)`). */
function scopeOf(path: string): string {
  const p = /^\/api\/0\/projects\/([^/]+)\/([^/]+)\//.exec(path);
  if (p) return `${decodeURIComponent(p[1]!)}/${decodeURIComponent(p[2]!)}`;
  const o = /^\/api\/0\/organizations\/([^/]+)\//.exec(path);
  return o ? `${decodeURIComponent(o[1]!)} (all projects)` : 'errtracker';
}

export function answerErrReads(question: string, results: readonly { args: readonly string[]; data: unknown }[]): string[] {
  const parts: string[] = [];
  for (const r of results) {
    const path = r.args[2] ?? '';
    const spec = errReadOf(path);
    if (!spec) continue;
    const { items, truncated: cutShort, unreadable } = resultItems(r.data);
    const truncated = cutShort ?? unreadable;
    const cut = truncated ? ` (incomplete: ${truncated})` : '';
    const scope = scopeOf(path);
    if (!items.length && truncated) {
      parts.push(`${scope}: the ${spec.key === 'issues' ? 'unresolved issues' : 'projects'} could not be read whole: ${truncated}.`);
      continue;
    }
    if (spec.key === 'projects') {
      const names = items.map((p) => printable(`- ${str(obj(p).slug) ?? str(obj(p).name) ?? '?'}${str(obj(p).platform) ? ` (${str(obj(p).platform)})` : ''}`));
      parts.push(items.length ? [`${scope.replace(' (all projects)', '')}: ${items.length} project${items.length === 1 ? '' : 's'}${cut}:`, ...capped(names)].join('\n') : `${scope}: no projects${cut}.`);
      continue;
    }
    // Most frequent first, by the events counted in the stats period (Sentry sends counts as strings).
    const issues = items.map(obj).filter((i) => (str(i.status) ?? 'unresolved') === 'unresolved').sort((a, b) => num(b.count) - num(a.count));
    if (!issues.length) {
      parts.push(`${scope}: no unresolved issues${cut}.`);
      continue;
    }
    const head = `${scope}: ${issues.length} unresolved issue${issues.length === 1 ? '' : 's'}`;
    if (/\bhow many\b/i.test(question)) {
      parts.push(`${head}${cut}.`);
      continue;
    }
    const lines = issues.map((i) => {
      const seen = str(i.lastSeen)?.slice(0, 10);
      const facts = [`${num(i.count)} events`, i.userCount !== undefined ? `${num(i.userCount)} users` : undefined, str(i.level), seen && `last seen ${seen}`].filter(Boolean).join(', ');
      return printable(`- ${str(i.shortId) ?? str(i.id) ?? '?'} ${str(i.title) ?? ''}${str(i.culprit) ? ` in ${str(i.culprit)}` : ''} (${facts})`);
    });
    parts.push([`${head}, most frequent first (events in the last ${ERR_STATS_PERIOD})${cut}:`, ...capped(lines)].join('\n'));
  }
  return parts;
}
