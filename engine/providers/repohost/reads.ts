/**
 * repohost (a GitHub-style code host) reads for `ask`: open issues, open pull requests, CI status
 * (the latest workflow runs, and the check runs of a ref when the question asks about checks). Each
 * read is one `repohost-api` GET of the REST API v3 wire format; the answers without a model are built
 * from the same table.
 */
import { containsTerm } from '../../core/routing/match.js';
import { arr, listParagraph, obj, readsChooser, str, type CliRecord } from '../../core/kits/cli/reads.js';
import { resultItems } from '../../core/kits/http/results.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface RepoReadSpec {
  key: 'issues' | 'pulls' | 'ci' | 'checks';
  label: string;
  singular: string;
  words: string[];
  byDefault: boolean;
  path(repo: RepoRef, question: string): string;
  records(items: unknown[]): CliRecord[];
}

const enc = encodeURIComponent;
const repoPath = (r: RepoRef) => `/repos/${enc(r.owner)}/${enc(r.repo)}`;
const login = (v: unknown) => str(obj(v).login);
const shortSha = (v: unknown) => str(v)?.slice(0, 7);

/** `on main`, `branch release/1.2`, `for v2.0`: the ref a question names, else HEAD (the default branch). */
export function refIn(question: string): string {
  const m = /\b(?:on|branch|for|of|at)\s+(?:the\s+)?(?:branch\s+)?[`'"]?([A-Za-z0-9][\w./-]*[A-Za-z0-9])[`'"]?/i.exec(question);
  const word = m?.[1];
  if (!word || /^(my|the|our|this|that|a|an|repo|repository|ci|pr|prs|it|github|repohost)$/i.test(word) || word.includes('/')) return 'HEAD';
  return word;
}

export const REPO_READS: readonly RepoReadSpec[] = [
  {
    key: 'issues',
    label: 'open issues',
    singular: 'open issue',
    words: ['issue', 'issues', 'bug', 'bugs', 'ticket', 'tickets'],
    byDefault: true,
    path: (r) => `${repoPath(r)}/issues?state=open&per_page=100`,
    // The issues list carries pull requests too (they have `pull_request`): those are the PR read's.
    records: (items) =>
      items
        .filter((i) => obj(i).pull_request === undefined)
        .map((i) => {
          const o = obj(i);
          const labels = arr(o.labels).map((l) => str(obj(l).name) ?? str(l)).filter(Boolean);
          return { name: `#${String(o.number)} ${str(o.title) ?? ''}`.trim(), detail: [labels.join(', '), login(o.user) && `@${login(o.user)}`].filter(Boolean).join('; ') || undefined };
        }),
  },
  {
    key: 'pulls',
    label: 'open pull requests',
    singular: 'open pull request',
    words: ['pr', 'prs', 'pull request', 'pull requests', 'pull', 'pulls', 'merge request', 'merge requests', 'review', 'reviews'],
    byDefault: true,
    path: (r) => `${repoPath(r)}/pulls?state=open&per_page=100`,
    records: (items) =>
      items.map((p) => {
        const o = obj(p);
        const branches = str(obj(o.head).ref) && `${str(obj(o.head).ref)} → ${str(obj(o.base).ref) ?? '?'}`;
        return { name: `#${String(o.number)} ${str(o.title) ?? ''}`.trim(), state: o.draft === true ? 'draft' : undefined, detail: [branches, login(o.user) && `@${login(o.user)}`].filter(Boolean).join('; ') || undefined };
      }),
  },
  {
    key: 'ci',
    label: 'workflows (latest run of each)',
    singular: 'workflow (latest run)',
    words: ['ci', 'build', 'builds', 'workflow', 'workflows', 'actions', 'pipeline', 'pipelines', 'failing', 'passing', 'tests', 'red', 'green', 'status', 'runs'],
    byDefault: true,
    // The newest runs only (one page): CI status is about now, not the run history.
    path: (r) => `${repoPath(r)}/actions/runs?per_page=50`,
    records: (items) => {
      const latest = new Map<string, Record<string, unknown>>();
      for (const run of items) {
        const o = obj(run);
        const name = str(o.name) ?? str(o.path) ?? '?';
        if (!latest.has(name)) latest.set(name, o); // the API lists the newest first
      }
      return [...latest.entries()].map(([name, o]) => ({
        name,
        state: str(o.conclusion) ?? str(o.status),
        detail: [str(o.head_branch), shortSha(o.head_sha), o.run_number !== undefined ? `run #${String(o.run_number)}` : undefined].filter(Boolean).join(', ') || undefined,
      }));
    },
  },
  {
    key: 'checks',
    label: 'check runs',
    singular: 'check run',
    words: ['check', 'checks', 'check run', 'check runs'],
    byDefault: false,
    path: (r, q) => `${repoPath(r)}/commits/${enc(refIn(q))}/check-runs?per_page=100`,
    records: (items) => items.map((c) => ({ name: str(obj(c).name) ?? '?', state: str(obj(c).conclusion) ?? str(obj(c).status), detail: shortSha(obj(c).head_sha) })),
  },
];

/** The reads a question asks for, or the default set (issues, pull requests, CI). */
export const repoReadsFor: (question: string) => RepoReadSpec[] = readsChooser(REPO_READS);

/** The read of a step's path (`/repos/o/r/pulls?…` → pulls). */
export function repoReadOf(path: string): RepoReadSpec | undefined {
  const p = path.split('?')[0]!;
  if (/\/check-runs$/.test(p)) return REPO_READS.find((r) => r.key === 'checks');
  if (/\/actions\/runs$/.test(p)) return REPO_READS.find((r) => r.key === 'ci');
  if (/\/pulls$/.test(p)) return REPO_READS.find((r) => r.key === 'pulls');
  if (/\/issues$/.test(p)) return REPO_READS.find((r) => r.key === 'issues');
  return undefined;
}


/** Failing first, then running, then the rest: what a CI question wants to see. */
const CI_ORDER = ['failure', 'timed_out', 'startup_failure', 'cancelled', 'action_required', 'in_progress', 'queued', 'waiting', 'pending'];
const ciRank = (s?: string) => (s && CI_ORDER.includes(s) ? CI_ORDER.indexOf(s) : CI_ORDER.length);

/** One paragraph per read: how many, which, and whether the list was cut short. */
export function answerRepoReads(question: string, repo: string, results: readonly { args: readonly string[]; data: unknown }[]): string[] {
  const parts: string[] = [];
  for (const r of results) {
    const spec = repoReadOf(r.args[2] ?? '');
    if (!spec) continue;
    const { items, truncated: cutShort, unreadable } = resultItems(r.data, ['workflow_runs', 'check_runs']);
    const truncated = cutShort ?? unreadable;
    let records = spec.records(items);
    if (spec.key === 'ci' || spec.key === 'checks') records = [...records].sort((a, b) => ciRank(a.state) - ciRank(b.state));
    const cut = truncated ? ` (incomplete: ${truncated})` : '';
    if (!records.length && truncated && items.length) {
      parts.push(`${repo}: no ${spec.label} among the ${items.length} items read${cut}.`);
      continue;
    }
    if (!records.length && truncated) {
      parts.push(`${repo}: the ${spec.label} could not be read whole: ${truncated}.`);
      continue;
    }
    if (!records.length) {
      parts.push(`${repo}: no ${spec.label}${cut}.`);
      continue;
    }
    const states = [...new Set(records.map((x) => x.state).filter((s): s is string => Boolean(s)))];
    const asked = states.find((s) => containsTerm(question, s)) ?? (spec.key !== 'pulls' && /\bfail(ing|ed|s)?\b|\bred\b|\bbroken\b/i.test(question) && states.includes('failure') ? 'failure' : undefined);
    const shown = asked ? records.filter((x) => x.state === asked) : records;
    const head = `${repo}: ${shown.length} ${shown.length === 1 ? spec.singular : spec.label}${asked ? ` (${asked})` : ''}`;
    // The CI tally goes with the list, not with a bare count.
    const summary = !/\bhow many\b/i.test(question) && (spec.key === 'ci' || spec.key === 'checks') ? ciSummary(records) : '';
    parts.push(listParagraph(question, `${head}${summary}${cut}`, shown));
  }
  return parts;
}

function ciSummary(records: CliRecord[]): string {
  const count = (pred: (s?: string) => boolean) => records.filter((r) => pred(r.state)).length;
  const failing = count((s) => ciRank(s) < 5);
  const running = count((s) => s === 'in_progress' || s === 'queued' || s === 'waiting' || s === 'pending');
  const passing = count((s) => s === 'success');
  return ` — ${failing} failing, ${running} running, ${passing} passing`;
}
