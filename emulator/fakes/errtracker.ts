/**
 * A local stand-in for a Sentry-style error tracker's web API (errtracker): the wire format of
 * sentry.io for what `ask` reads — `GET /api/0/organizations/` (the token's organizations),
 * `/api/0/organizations/{org}/projects/`, `/api/0/organizations/{org}/issues/` and
 * `/api/0/projects/{org}/{project}/issues/` (`query=is:unresolved`, `sort=freq|date`, `limit`,
 * `cursor`) — issues with Sentry's fields (`shortId`, `count` as a string, `userCount`, `lastSeen`…),
 * cursor paging in the Link header (`rel="next"; results="true|false"; cursor="0:100:0"`), Sentry's
 * error bodies (`{"detail": "Invalid token"}`), 429 + Retry-After on demand and the hostile modes
 * of fake-server.ts. It knows one organization, `acme`, with projects `backend` and `web`.
 */
import { startFakeService, type FakeRequest, type FakeResponse, type FakeService } from './fake-server.js';

export const ERRTRACKER_FAKE_TOKEN = 'sntrys_fakeErrtrackerToken0123456789abcdef';

export interface ErrtrackerFakeOptions {
  token?: string;
  /** Largest `limit` it honours (Sentry: 100); small values force paging in tests. */
  maxPerPage?: number;
  /** Unresolved issues seeded in `backend` besides the named ones (paging tests). */
  extraIssues?: number;
}

export interface ErrtrackerFake extends FakeService {
  org: string;
}

const detail = (status: number, text: string): FakeResponse => ({ status, body: { detail: text } });

function seed(extra: number) {
  const projects = [
    { id: '2', slug: 'backend', name: 'backend', platform: 'python' },
    { id: '3', slug: 'web', name: 'web', platform: 'javascript' },
  ];
  const at = (d: number) => new Date(Date.UTC(2026, 10, 25 - d, 8, 30, 0)).toISOString();
  let id = 4500;
  const issue = (project: (typeof projects)[number], shortId: string, title: string, culprit: string, count: number, users: number, status = 'unresolved', level = 'error', seen = 0) => ({
    id: String(++id),
    shortId,
    title,
    culprit,
    level,
    status,
    substatus: status === 'unresolved' ? 'ongoing' : null,
    count: String(count),
    userCount: users,
    firstSeen: at(seen + 9),
    lastSeen: at(seen),
    permalink: `https://acme.sentry.io/issues/${id}/`,
    isUnhandled: level === 'fatal' || level === 'error',
    type: 'error',
    metadata: { type: title.split(':')[0], value: title.split(': ')[1] ?? '' },
    project,
    numComments: 0,
    assignedTo: null,
    stats: { '24h': [[Math.floor(Date.UTC(2026, 10, 25) / 1000), Math.ceil(count / 14)]] },
  });
  const [backend, web] = projects as [(typeof projects)[number], (typeof projects)[number]];
  const issues = [
    issue(backend, 'BACKEND-3', 'ZeroDivisionError: division by zero', 'app.billing.ratio', 1204, 87),
    issue(backend, 'BACKEND-7', 'KeyError: user_id', 'app.api.session', 3410, 412, 'unresolved', 'error', 1),
    issue(backend, 'BACKEND-9', 'TimeoutError: upstream took 30s', 'app.jobs.sync', 95, 3, 'unresolved', 'warning', 2),
    issue(backend, 'BACKEND-2', 'OperationalError: too many connections', 'app.db.pool', 8000, 900, 'resolved'),
    issue(web, 'WEB-12', "TypeError: Cannot read properties of undefined (reading 'map')", 'src/cart/list.tsx', 640, 210),
    ...Array.from({ length: extra }, (_, i) => issue(backend, `BACKEND-${100 + i}`, `ValueError: case ${i + 1}`, 'app.misc', 10 - (i % 10), 1, 'unresolved', 'error', 3)),
  ];
  return { projects, issues };
}

export async function startErrtrackerFake(opts: ErrtrackerFakeOptions = {}): Promise<ErrtrackerFake> {
  const org = 'acme';
  const data = seed(opts.extraIssues ?? 0);
  const maxPerPage = opts.maxPerPage ?? 100;

  /** One page with Sentry's cursor Link header (`previous` and `next`, each with `results`). */
  const paged = (req: FakeRequest, all: unknown[]): FakeResponse => {
    const limit = Math.min(maxPerPage, Math.max(1, Number(req.url.searchParams.get('limit')) || 100));
    const cursor = req.url.searchParams.get('cursor') ?? '0:0:0';
    const offset = Math.max(0, Number(cursor.split(':')[1]) || 0);
    let items = all.slice(offset, offset + limit);
    let more = offset + limit < all.length;
    let origin = req.base;
    if (req.hostile === 'huge') items = Array.from({ length: 2000 }, (_, i) => ({ ...(all[0] as object), id: String(i), title: 'x'.repeat(4096) }));
    if (req.hostile === 'endless') (items = all.slice(0, limit)), (more = true);
    if (req.hostile === 'offorigin') (origin = 'http://127.0.0.2:9'), (more = true);
    const link = (c: string, rel: string, results: boolean) => {
      const u = new URL(`${req.url.pathname}${req.url.search}`, origin);
      u.searchParams.set('cursor', c);
      return `<${u.toString()}>; rel="${rel}"; results="${results}"; cursor="${c}"`;
    };
    const prev = `0:${Math.max(0, offset - limit)}:1`;
    const next = `0:${offset + limit}:0`;
    return { status: 200, body: items, headers: { link: `${link(prev, 'previous', offset > 0)}, ${link(next, 'next', more)}` } };
  };

  const issuesOf = (req: FakeRequest, project?: string) => {
    const query = req.url.searchParams.get('query') ?? 'is:unresolved';
    let list = data.issues.filter((i) => !project || i.project.slug === project);
    if (/\bis:unresolved\b/.test(query)) list = list.filter((i) => i.status === 'unresolved');
    if (/\bis:resolved\b/.test(query)) list = list.filter((i) => i.status === 'resolved');
    const sort = req.url.searchParams.get('sort') ?? 'date';
    return [...list].sort((a, b) => (sort === 'freq' ? Number(b.count) - Number(a.count) : b.lastSeen.localeCompare(a.lastSeen)));
  };

  const fake = await startFakeService({
    token: opts.token ?? ERRTRACKER_FAKE_TOKEN,
    credential: (req) => /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1]?.trim(),
    unauthorized: (req) => (req.headers.authorization ? detail(401, 'Invalid token') : detail(401, 'Authentication credentials were not provided.')),
    rateLimited: () => detail(429, 'You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds'),
    route(req) {
      if (req.method !== 'GET') return detail(405, `Method "${req.method}" not allowed.`);
      const p = req.url.pathname.replace(/\/?$/, '/');
      if (p === '/api/0/organizations/') return { status: 200, body: [{ id: '1', slug: org, name: 'Acme' }] };
      let m = /^\/api\/0\/organizations\/([^/]+)\/(projects|issues)\/$/.exec(p);
      if (m) {
        if (decodeURIComponent(m[1]!) !== org) return detail(404, 'The requested resource does not exist');
        return m[2] === 'projects' ? paged(req, data.projects) : paged(req, issuesOf(req));
      }
      m = /^\/api\/0\/projects\/([^/]+)\/([^/]+)\/issues\/$/.exec(p);
      if (m) {
        const project = decodeURIComponent(m[2]!);
        if (decodeURIComponent(m[1]!) !== org || !data.projects.some((x) => x.slug === project)) return detail(404, 'The requested resource does not exist');
        return paged(req, issuesOf(req, project));
      }
      return detail(404, 'The requested resource does not exist');
    },
  });
  return { ...fake, org };
}
