/**
 * A local stand-in for a Linear-style issue tracker's GraphQL API (issuetracker): `POST /graphql`
 * with the wire format of api.linear.app for what `ask` reads — `viewer`/`organization`, and
 * `issues(filter, first, after, orderBy)` returning `{ nodes, pageInfo { hasNextPage endCursor } }`
 * with Linear's fields (identifier, priority 0–4 and priorityLabel, state { name type }, assignee,
 * team { key }) — honouring the filters the provider sends (team key, state type `nin`, assignee
 * `isMe`). It answers errors the GraphQL way (`{"errors":[{"message", "extensions":{"code"…}}]}`):
 * 401 for a wrong key, 429 + Retry-After on demand, a `mutation` refused and recorded (tests prove
 * none is ever sent without --destroyer), and the hostile modes of fake-server.ts. It is not a
 * GraphQL engine: it recognises the two documents the provider sends.
 */
import { startFakeService, type FakeRequest, type FakeResponse, type FakeService } from './fake-server.js';

export const ISSUETRACKER_FAKE_TOKEN = 'lin_api_fakeIssuetrackerKey0123456789abcdef';

export interface IssuetrackerFakeOptions {
  token?: string;
  /** Largest `first` it honours (Linear: 250); small values force paging in tests. */
  maxPerPage?: number;
  /** Open ENG issues seeded besides the named ones (paging tests). */
  extraIssues?: number;
}

export interface IssuetrackerFake extends FakeService {
  /** The mutations that reached it (there must be none from a read). */
  mutations(): string[];
}

const gqlError = (status: number, message: string, code: string, type: string): FakeResponse => ({
  status,
  body: { errors: [{ message, extensions: { code, type, userPresentableMessage: message } }] },
});

const LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];

function seed(extra: number) {
  const teams = { ENG: { key: 'ENG', name: 'Engineering' }, OPS: { key: 'OPS', name: 'Operations' } };
  const states = {
    triage: { name: 'Triage', type: 'triage' },
    backlog: { name: 'Backlog', type: 'backlog' },
    todo: { name: 'Todo', type: 'unstarted' },
    doing: { name: 'In Progress', type: 'started' },
    done: { name: 'Done', type: 'completed' },
    canceled: { name: 'Canceled', type: 'canceled' },
  };
  const me = { id: 'u-1', name: 'Dana Dev', displayName: 'dana' };
  const ana = { id: 'u-2', name: 'Ana Ops', displayName: 'ana' };
  const issue = (team: keyof typeof teams, n: number, title: string, priority: number, state: keyof typeof states, assignee: typeof me | null, dueDate: string | null = null) => ({
    id: `${team}-${n}-id`,
    identifier: `${team}-${n}`,
    title,
    priority,
    priorityLabel: LABELS[priority],
    url: `https://linear.app/acme/issue/${team}-${n}`,
    dueDate,
    updatedAt: new Date(Date.UTC(2026, 10, 25, 12, 0, n % 60)).toISOString(),
    state: states[state],
    assignee,
    team: teams[team],
  });
  const issues = [
    issue('ENG', 12, 'Checkout fails for EU cards', 1, 'doing', me, '2026-11-27'),
    issue('ENG', 15, 'Rotate the signing keys', 2, 'todo', ana),
    issue('ENG', 9, 'Flaky upload test', 3, 'backlog', null),
    issue('ENG', 20, 'Customer asks for CSV export', 0, 'triage', null),
    issue('ENG', 3, 'Tidy the README', 4, 'todo', me),
    issue('ENG', 1, 'Set up CI', 2, 'done', me),
    issue('ENG', 2, 'Old spike', 3, 'canceled', null),
    issue('OPS', 4, 'Renew the TLS certificate', 2, 'todo', ana, '2026-12-01'),
    ...Array.from({ length: extra }, (_, i) => issue('ENG', 100 + i, `Backlog item ${i + 1}`, 4, 'backlog', null)),
  ];
  return { me, issues };
}

/** The variables of a request (Linear sends them beside the query). */
type Vars = { filter?: { team?: { key?: { eq?: string } }; state?: { type?: { nin?: string[]; in?: string[] } }; assignee?: { isMe?: { eq?: boolean } } }; first?: number; after?: string };

export async function startIssuetrackerFake(opts: IssuetrackerFakeOptions = {}): Promise<IssuetrackerFake> {
  const data = seed(opts.extraIssues ?? 0);
  const maxPerPage = opts.maxPerPage ?? 250;
  const mutations: string[] = [];

  const issues = (req: FakeRequest, vars: Vars): FakeResponse => {
    const f = vars.filter ?? {};
    let list = data.issues;
    if (f.team?.key?.eq) list = list.filter((i) => i.team.key === f.team!.key!.eq);
    if (f.state?.type?.nin) list = list.filter((i) => !f.state!.type!.nin!.includes(i.state.type));
    if (f.state?.type?.in) list = list.filter((i) => f.state!.type!.in!.includes(i.state.type));
    if (f.assignee?.isMe?.eq) list = list.filter((i) => i.assignee?.id === data.me.id);
    list = [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const first = Math.min(maxPerPage, Math.max(1, Number(vars.first) || 50));
    const offset = vars.after ? Number(Buffer.from(vars.after, 'base64url').toString().replace(/^offset:/, '')) || 0 : 0;
    let nodes: unknown[] = list.slice(offset, offset + first);
    let hasNextPage = offset + first < list.length;
    if (req.hostile === 'huge') nodes = Array.from({ length: 2000 }, (_, i) => ({ ...list[0], identifier: `ENG-${i}`, title: 'x'.repeat(4096) }));
    if (req.hostile === 'endless') (nodes = list.slice(0, first)), (hasNextPage = true);
    const endCursor = Buffer.from(`offset:${offset + first}`).toString('base64url');
    return { status: 200, body: { data: { issues: { nodes, pageInfo: { hasNextPage, endCursor: nodes.length ? endCursor : null } } } } };
  };

  const fake = await startFakeService({
    token: opts.token ?? ISSUETRACKER_FAKE_TOKEN,
    credential: (req) => {
      const h = String(req.headers.authorization ?? '').trim();
      return h ? h.replace(/^Bearer\s+/i, '') : undefined;
    },
    unauthorized: () => gqlError(401, 'Authentication required, not authenticated', 'AUTHENTICATION_ERROR', 'authentication error'),
    rateLimited: () => gqlError(429, 'Rate limit exceeded', 'RATELIMITED', 'ratelimited'),
    route(req) {
      if (req.method !== 'POST' || req.url.pathname !== '/graphql') return { status: 404, body: 'Not Found' };
      let doc: { query?: string; variables?: Vars };
      try {
        doc = JSON.parse(req.body) as typeof doc;
      } catch {
        return gqlError(400, 'Body is not valid JSON', 'BAD_USER_INPUT', 'invalid input');
      }
      const query = doc.query ?? '';
      if (/^\s*mutation\b|}\s*mutation\b/.test(query)) {
        mutations.push(query);
        return gqlError(400, 'Mutations are not served by this fake', 'FORBIDDEN', 'forbidden');
      }
      if (/\bviewer\s*{/.test(query)) return { status: 200, body: { data: { viewer: data.me, organization: { name: 'Acme', urlKey: 'acme' } } } };
      if (/\bissues\s*\(/.test(query)) return issues(req, doc.variables ?? {});
      return gqlError(400, 'Cannot query this document on the fake', 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
    },
  });
  return { ...fake, mutations: () => [...mutations] };
}
