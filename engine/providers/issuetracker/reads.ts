/**
 * issuetracker (a Linear-style issue tracker) reads for `ask`: a team's open issues by priority, as one
 * GraphQL `query` (a read: never a `mutation`) POSTed to `/graphql`, paged by `pageInfo.endCursor`.
 * The answers without a model come from the same nodes.
 */
import { capped, obj, str } from '../../core/kits/cli/reads.js';
import { printable, resultItems } from '../../core/kits/http/results.js';

/** The open issues of a team (or of every team the key sees), newest activity first; the answer orders by priority. */
export const OPEN_ISSUES_QUERY = [
  'query OpenIssues($filter: IssueFilter, $first: Int, $after: String) {',
  '  issues(filter: $filter, first: $first, after: $after, orderBy: updatedAt) {',
  '    nodes { identifier title priority priorityLabel url dueDate updatedAt state { name type } assignee { name displayName } team { key name } }',
  '    pageInfo { hasNextPage endCursor }',
  '  }',
  '}',
].join('\n');

export const VIEWER_QUERY = 'query Viewer { viewer { id name displayName } organization { name urlKey } }';

export interface IssueScope {
  team?: string;
  mine: boolean;
}

/** `team ENG`, `the OPS team`, `ENG's issues`: a team key (2–7 capitals or digits, starting with a letter). */
export function teamIn(question: string): string | undefined {
  const m = /\bteam\s+([A-Z][A-Z0-9]{1,6})\b/.exec(question) ?? /\b([A-Z][A-Z0-9]{1,6})(?:'s)?\s+(?:team|issues|tickets|backlog)\b/.exec(question);
  return m && !/^(PR|PRS|CI|API|MY|THE|OUR|AND|OR)$/.test(m[1]!) ? m[1] : undefined;
}

/** "assigned to me", "my issues" (not "my team's issues"). */
export function mineIn(question: string): boolean {
  return /\bassigned to me\b|\bmy (open )?(issues|tickets)\b|\bon my plate\b/i.test(question);
}

export function issuesRequest(scope: IssueScope, after?: string): string {
  const filter: Record<string, unknown> = { state: { type: { nin: ['completed', 'canceled'] } } };
  if (scope.team) filter.team = { key: { eq: scope.team } };
  if (scope.mine) filter.assignee = { isMe: { eq: true } };
  return JSON.stringify({ query: OPEN_ISSUES_QUERY, variables: { filter, first: 50, ...(after ? { after } : {}) } });
}

/** Linear's priorities: 1 Urgent, 2 High, 3 Medium, 4 Low, 0 No priority (last). */
const PRIORITY_LABELS: Record<number, string> = { 0: 'No priority', 1: 'Urgent', 2: 'High', 3: 'Medium', 4: 'Low' };
const rank = (p: number) => (p >= 1 && p <= 4 ? p : 5);
const MAX_NAMES = 25;

/** Which priorities the question asks for (`urgent`, `high priority`), if any. */
function askedPriorities(question: string): number[] | undefined {
  const asked: number[] = [];
  if (/\burgent\b/i.test(question)) asked.push(1);
  if (/\bhigh(?:[- ]priority)?\b/i.test(question) && !/\bhigh(?:est)? to low(?:est)?\b/i.test(question)) asked.push(2);
  return asked.length ? asked : undefined;
}

export function answerIssues(question: string, scope: IssueScope, data: unknown): string {
  const { items, truncated: cutShort, unreadable } = resultItems(data);
  const truncated = cutShort ?? unreadable;
  const cut = truncated ? ` (incomplete: ${truncated})` : '';
  const whose = `${scope.team ? `team ${scope.team}` : 'all teams'}${scope.mine ? ', assigned to you' : ''}`;
  if (!items.length && truncated) return `issuetracker (${whose}): the open issues could not be read whole: ${truncated}.`;
  const issues = items.map(obj).sort((a, b) => rank(Number(a.priority)) - rank(Number(b.priority)) || String(a.identifier).localeCompare(String(b.identifier), 'en', { numeric: true }));
  const wanted = askedPriorities(question);
  const shown = wanted ? issues.filter((i) => wanted.includes(Number(i.priority))) : issues;
  const label = (i: Record<string, unknown>) => str(i.priorityLabel) ?? PRIORITY_LABELS[Number(i.priority)] ?? 'No priority';
  const head = `issuetracker (${whose}): ${shown.length} open issue${shown.length === 1 ? '' : 's'}${wanted ? ` (${wanted.map((p) => PRIORITY_LABELS[p]!.toLowerCase()).join(', ')})` : ''}`;
  if (!shown.length) return `${head}${cut}.`;
  if (/\bhow many\b/i.test(question)) {
    const counts = new Map<string, number>();
    for (const i of shown) counts.set(label(i), (counts.get(label(i)) ?? 0) + 1);
    return `${head}: ${[...counts].map(([l, n]) => `${n} ${l.toLowerCase()}`).join(', ')}${cut}.`;
  }
  const lines = shown.map((i) => {
    const who = str(obj(i.assignee).displayName) ?? str(obj(i.assignee).name);
    const facts = [label(i), str(obj(i.state).name), who && `@${who}`, str(i.dueDate) && `due ${str(i.dueDate)}`].filter(Boolean).join('; ');
    return printable(`- ${str(i.identifier) ?? '?'} ${str(i.title) ?? ''} (${facts})`);
  });
  return [`${head}, by priority${cut}:`, ...capped(lines, MAX_NAMES)].join('\n');
}

/** The scope a step's body asked for (the answer's heading). */
export function scopeOfRequest(body: string | undefined): IssueScope | undefined {
  try {
    const doc = JSON.parse(body ?? '') as { query?: string; variables?: { filter?: Record<string, unknown> } };
    if (!doc.query?.includes('issues(')) return undefined;
    const f = doc.variables?.filter ?? {};
    return { team: str(obj(obj(f.team).key).eq), mine: obj(obj(f.assignee).isMe).eq === true };
  } catch {
    return undefined;
  }
}
