/**
 * A local fake of the app-platform API (Vercel-style REST): deployments (`GET /v6/deployments`),
 * projects (`GET /v9/projects`), the token's user (`GET /v2/user`). Wire format as the public reference
 * gives it: lists `{deployments | projects, pagination: {count, next, prev}}`, newest first, the next page
 * asked with `until=<pagination.next>` (a timestamp in ms), `limit` at most 100, a team chosen with
 * `teamId`; errors `{error: {code, message}}`. Backs `--sandbox` and the tests.
 */
import { randomBytes } from 'node:crypto';
import { bearerToken, startJsonFake, type FakeReply, type FakeRequest, type HostileMode, type JsonFake } from './json-fake.js';

export const APPPLATFORM_FAKE_TEAM_ID = 'team_k8Xq2LmN4pR7sT1v';

export interface AppPlatformFakeOptions {
  token?: string;
  /** How many deployments there are (default: the eight seeded ones; more are generated, older). */
  deployments?: number;
}

interface Deployment {
  uid: string;
  name: string;
  state: string;
  target: 'production' | null;
  created: number;
  branch: string;
}

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const H = 3_600_000;

const SEED: Omit<Deployment, 'uid'>[] = [
  { name: 'storefront', state: 'READY', target: 'production', created: T0, branch: 'main' },
  { name: 'storefront', state: 'ERROR', target: null, created: T0 - 1 * H, branch: 'feat/checkout' },
  { name: 'docs-site', state: 'BUILDING', target: null, created: T0 - 2 * H, branch: 'docs/api' },
  { name: 'docs-site', state: 'READY', target: 'production', created: T0 - 5 * H, branch: 'main' },
  { name: 'admin-panel', state: 'ERROR', target: 'production', created: T0 - 8 * H, branch: 'main' },
  { name: 'admin-panel', state: 'READY', target: 'production', created: T0 - 30 * H, branch: 'main' },
  { name: 'storefront', state: 'CANCELED', target: null, created: T0 - 50 * H, branch: 'wip' },
  { name: 'storefront', state: 'QUEUED', target: null, created: T0 - 70 * H, branch: 'renovate/deps' },
];

const PROJECTS = [
  { id: 'prj_storefront1', name: 'storefront', framework: 'nextjs', createdAt: T0 - 400 * H, updatedAt: T0 },
  { id: 'prj_docssite002', name: 'docs-site', framework: 'astro', createdAt: T0 - 300 * H, updatedAt: T0 - 2 * H },
  { id: 'prj_adminpanel3', name: 'admin-panel', framework: 'vite', createdAt: T0 - 200 * H, updatedAt: T0 - 8 * H },
];

const error = (status: number, code: string, message: string): FakeReply => ({ status, body: { error: { code, message } } });

function deploymentObject(d: Deployment) {
  const url = `${d.name}-${d.uid.slice(4, 13).toLowerCase().replace(/[^a-z0-9]/g, 'x')}-acme.vercel.app`;
  return {
    uid: d.uid,
    name: d.name,
    url,
    created: d.created,
    createdAt: d.created,
    buildingAt: d.created + 1000,
    ready: d.state === 'READY' ? d.created + 60_000 : undefined,
    source: 'git',
    state: d.state,
    readyState: d.state,
    type: 'LAMBDAS',
    target: d.target,
    projectId: PROJECTS.find((p) => p.name === d.name)?.id ?? 'prj_unknown',
    creator: { uid: 'usr_1', email: 'ada@example.com', username: 'ada' },
    inspectorUrl: `https://vercel.example/acme/${d.name}/${d.uid}`,
    meta: { githubCommitRef: d.branch, githubCommitMessage: `deploy ${d.branch}` },
  };
}

/** Items older than `until` (ms), newest first, `limit` of them; `pagination.next` is the last one's time. */
function timePage<T extends { at: number }>(items: T[], q: URLSearchParams, key: string, render: (t: T) => unknown, mode: HostileMode | undefined): FakeReply {
  const limit = q.has('limit') ? Number(q.get('limit')) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return error(400, 'bad_request', 'Invalid query parameter `limit`: should be <= 100');
  const until = q.has('until') ? Number(q.get('until')) : Infinity;
  if (Number.isNaN(until)) return error(400, 'bad_request', 'Invalid query parameter `until`');
  if (mode === 'endless') {
    const at = Number.isFinite(until) ? until - 1 : T0;
    return { body: { [key]: items.slice(0, 1).map(render), pagination: { count: 1, next: at, prev: at + 1 } } };
  }
  const older = items.filter((i) => i.at < until);
  const page = older.slice(0, limit);
  const more = older.length > limit;
  return { body: { [key]: page.map(render), pagination: { count: page.length, next: more ? page.at(-1)!.at : null, prev: page[0]?.at ?? null } } };
}

export async function startAppPlatformFake(opts: AppPlatformFakeOptions = {}): Promise<JsonFake> {
  const uid = () => `dpl_${randomBytes(12).toString('base64url')}`;
  const deployments: Deployment[] = SEED.map((d) => ({ ...d, uid: uid() }));
  for (let i = deployments.length; i < (opts.deployments ?? 0); i++) deployments.push({ uid: uid(), name: 'storefront', state: 'READY', target: null, created: T0 - (100 + i) * H, branch: `pr-${i}` });
  deployments.sort((a, b) => b.created - a.created);

  function handle(req: FakeRequest, mode: HostileMode | undefined): FakeReply {
    const team = req.query.get('teamId');
    if (team !== null && team !== APPPLATFORM_FAKE_TEAM_ID) return error(403, 'forbidden', 'Not authorized: Trying to access resource under scope "' + team + '". You must re-authenticate to this scope or use a token with access to this scope.');
    if (req.method === 'GET' && req.path === '/v6/deployments') {
      let list = mode === 'huge' ? Array.from({ length: 100 }, (_, i) => ({ uid: uid(), name: `huge-${i}-${'x'.repeat(60_000)}`, state: 'READY', target: null, created: T0 - i, branch: 'main' })) : deployments;
      const state = req.query.get('state');
      if (state) list = list.filter((d) => state.split(',').includes(d.state));
      const project = req.query.get('projectId');
      if (project) list = list.filter((d) => PROJECTS.find((p) => p.id === project)?.name === d.name);
      return timePage(list.map((d) => ({ d, at: d.created })), req.query, 'deployments', (x) => deploymentObject(x.d), mode);
    }
    if (req.method === 'GET' && req.path === '/v9/projects') {
      return timePage(PROJECTS.map((p) => ({ p, at: p.updatedAt })), req.query, 'projects', (x) => x.p, mode);
    }
    if (req.method === 'GET' && req.path === '/v2/user') return { body: { user: { id: 'usr_1', email: 'ada@example.com', name: 'Ada Lovelace', username: 'ada' } } };
    return error(404, 'not_found', 'The requested path was not found');
  }

  return startJsonFake(
    {
      tokenOf: bearerToken,
      unauthorized: () => ({ error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } }),
      rateLimited: () => ({ error: { code: 'rate_limited', message: 'Rate limit exceeded', limit: { remaining: 0, reset: Math.ceil(Date.now() / 1000) + 1, total: 100 } } }),
      handle,
    },
    { token: opts.token },
  );
}
