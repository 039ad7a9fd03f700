/**
 * A local stand-in for a GitHub-style code host's REST API v3 (repohost): the wire format of
 * api.github.com for what `ask` reads — `GET /user`, `/repos/{o}/{r}`, `/repos/{o}/{r}/issues`
 * (pull requests included, with `pull_request`), `/pulls`, `/actions/runs` (`{ total_count,
 * workflow_runs }`), `/commits/{ref}/check-runs` (`{ total_count, check_runs }`) — with
 * `page`/`per_page` paging and `Link: <…>; rel="next", <…>; rel="last"`, GitHub's error bodies
 * (`{"message":"Bad credentials","documentation_url":…,"status":"401"}`), public-repository reads
 * without a token, 429 + Retry-After on demand and the hostile modes of fake-server.ts. Every
 * repository name serves the seeded repository (`acme/widgets`), so `--sandbox` works for any.
 */
import { pageParams, startFakeService, withParam, type FakeRequest, type FakeResponse, type FakeService } from './fake-server.js';

export const REPOHOST_FAKE_TOKEN = 'ghp_fakeRepohostToken0123456789abcdefABCD';

export interface RepohostFakeOptions {
  token?: string;
  /** Largest `per_page` it honours (GitHub: 100); small values force paging in tests. */
  maxPerPage?: number;
  /** Open issues seeded besides the named ones (paging tests). */
  extraIssues?: number;
  /** Whether the repository is private (then every read needs the token). */
  private?: boolean;
}

export interface RepohostFake extends FakeService {
  owner: string;
  repo: string;
}

const DOCS = 'https://docs.github.com/rest';
const error = (status: number, message: string): FakeResponse => ({ status, body: { message, documentation_url: DOCS, status: String(status) } });
const user = (login: string) => ({ login, id: login.length * 1000 + 7, type: 'User', html_url: `https://github.com/${login}` });

function seed(owner: string, repo: string, extra: number) {
  const at = (d: number) => new Date(Date.UTC(2026, 10, 20 + d, 9, 0, 0)).toISOString();
  const html = (kind: string, n: number) => `https://github.com/${owner}/${repo}/${kind}/${n}`;
  const issues = [
    { number: 41, title: 'Crash when the config file is empty', labels: ['bug', 'p1'], by: 'mira' },
    { number: 38, title: 'Document the --timeout flag', labels: ['docs'], by: 'jon' },
    { number: 35, title: 'Retry uploads on 503', labels: ['enhancement'], by: 'ana' },
    ...Array.from({ length: extra }, (_, i) => ({ number: 1000 + i, title: `Backlog item ${i + 1}`, labels: ['backlog'], by: 'bot' })),
  ].map((i, k) => ({
    id: 5000 + i.number,
    number: i.number,
    title: i.title,
    state: 'open',
    user: user(i.by),
    labels: i.labels.map((name, j) => ({ id: 90 + j, name, color: 'ededed' })),
    comments: k % 3,
    created_at: at(-k),
    updated_at: at(0),
    html_url: html('issues', i.number),
  }));
  const pulls = [
    { number: 44, title: 'Add retry budget to uploads', head: 'retry-budget', sha: '4f2a9c1d0b7e8a6f5c3d2e1f0a9b8c7d6e5f4a3b', by: 'ana', draft: false },
    { number: 43, title: 'WIP: new config loader', head: 'config-loader', sha: '9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b', by: 'mira', draft: true },
  ].map((p, k) => ({
    id: 7000 + p.number,
    number: p.number,
    title: p.title,
    state: 'open',
    draft: p.draft,
    user: user(p.by),
    head: { ref: p.head, sha: p.sha, label: `${owner}:${p.head}` },
    base: { ref: 'main', label: `${owner}:main` },
    created_at: at(-k),
    updated_at: at(0),
    html_url: html('pull', p.number),
  }));
  // The issues list of GitHub carries the pull requests too, marked with `pull_request`.
  const issueList = [...issues, ...pulls.map((p) => ({ id: p.id + 1, number: p.number, title: p.title, state: 'open', user: p.user, labels: [], comments: 0, created_at: p.created_at, updated_at: p.updated_at, html_url: p.html_url, pull_request: { url: `/repos/${owner}/${repo}/pulls/${p.number}`, html_url: p.html_url } }))].sort((a, b) => b.number - a.number);
  const run = (id: number, name: string, branch: string, sha: string, status: string, conclusion: string | null, n: number) => ({
    id,
    name,
    path: `.github/workflows/${name.toLowerCase()}.yml`,
    head_branch: branch,
    head_sha: sha,
    event: 'push',
    status,
    conclusion,
    run_number: n,
    html_url: `https://github.com/${owner}/${repo}/actions/runs/${id}`,
    created_at: at(-id % 5),
    updated_at: at(0),
  });
  const mainSha = '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b';
  const runs = [
    run(9005, 'CI', 'main', mainSha, 'completed', 'failure', 212),
    run(9004, 'Release', 'main', mainSha, 'in_progress', null, 31),
    run(9003, 'Lint', 'main', mainSha, 'completed', 'success', 140),
    run(9002, 'CI', 'main', '0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e', 'completed', 'success', 211),
  ];
  const checks = [
    { id: 8001, name: 'build (ubuntu-latest)', head_sha: mainSha, status: 'completed', conclusion: 'failure', started_at: at(0), completed_at: at(0) },
    { id: 8002, name: 'build (macos-latest)', head_sha: mainSha, status: 'completed', conclusion: 'success', started_at: at(0), completed_at: at(0) },
    { id: 8003, name: 'lint', head_sha: mainSha, status: 'completed', conclusion: 'success', started_at: at(0), completed_at: at(0) },
  ];
  return { issueList, pulls, runs, checks, mainSha };
}

export async function startRepohostFake(opts: RepohostFakeOptions = {}): Promise<RepohostFake> {
  const owner = 'acme';
  const repo = 'widgets';
  const data = seed(owner, repo, opts.extraIssues ?? 0);
  const maxPerPage = opts.maxPerPage ?? 100;

  /** One page of a list with GitHub's Link header; the hostile modes bend it. */
  const paged = (req: FakeRequest, all: unknown[], wrap?: (items: unknown[]) => unknown): FakeResponse => {
    const { page, perPage: asked } = pageParams(req.url);
    const perPage = Math.min(asked, maxPerPage);
    let items = all.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const links: string[] = [];
    if (req.hostile === 'huge') items = Array.from({ length: 2000 }, (_, i) => ({ ...(all[0] as object), number: i, title: 'x'.repeat(4096) }));
    if (req.hostile === 'endless') items = all.slice(0, perPage); // a full page, every time
    if (req.hostile === 'endless') links.push(`<${withParam(req.base, req.url, 'page', String(page + 1))}>; rel="next"`);
    else if (req.hostile === 'offorigin') links.push(`<${withParam('http://127.0.0.2:9', req.url, 'page', String(page + 1))}>; rel="next"`);
    else if (page < last) links.push(`<${withParam(req.base, req.url, 'page', String(page + 1))}>; rel="next"`, `<${withParam(req.base, req.url, 'page', String(last))}>; rel="last"`);
    return { status: 200, body: wrap ? wrap(items) : items, headers: links.length ? { link: links.join(', ') } : {} };
  };

  const fake = await startFakeService({
    token: opts.token ?? REPOHOST_FAKE_TOKEN,
    credential: (req) => /^(?:Bearer|token)\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1]?.trim(),
    unauthorized: (req) => (req.headers.authorization ? error(401, 'Bad credentials') : error(401, 'Requires authentication')),
    rateLimited: () => ({ ...error(429, 'API rate limit exceeded. Please wait a few minutes before you try again.'), headers: { 'x-ratelimit-remaining': '0' } }),
    // A public repository reads without a token; the account (`/user`) never does.
    anonymous: (req) => !opts.private && req.method === 'GET' && req.url.pathname.startsWith('/repos/'),
    route(req) {
      if (req.method !== 'GET') return error(404, 'Not Found');
      const p = req.url.pathname.replace(/\/+$/, '');
      if (p === '/user') return { status: 200, body: user('octo-dev') };
      const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(p);
      if (!m) return error(404, 'Not Found');
      const rest = m[3] ?? '';
      const state = req.url.searchParams.get('state') ?? 'open';
      if (rest === '') return { status: 200, body: { id: 1296269, name: decodeURIComponent(m[2]!), full_name: `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`, private: Boolean(opts.private), default_branch: 'main', open_issues_count: data.issueList.length } };
      if (rest === '/issues') return paged(req, state === 'closed' ? [] : data.issueList);
      if (rest === '/pulls') return paged(req, state === 'closed' ? [] : data.pulls);
      if (rest === '/actions/runs') return paged(req, data.runs, (items) => ({ total_count: data.runs.length, workflow_runs: items }));
      const c = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
      if (c) {
        const ref = decodeURIComponent(c[1]!);
        const known = ref === 'HEAD' || ref === 'main' || ref === data.mainSha;
        if (!known) return error(422, `No commit found for SHA: ${ref}`);
        return paged(req, data.checks, (items) => ({ total_count: data.checks.length, check_runs: items }));
      }
      return error(404, 'Not Found');
    },
  });
  return { ...fake, owner, repo };
}
