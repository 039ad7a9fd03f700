/**
 * issuetracker (a Linear-style issue tracker) as a provider: steps are requests to its GraphQL API
 * (`["issuetracker-api", "POST", "/graphql", "{\"query\": \"query …\"}"]`) through the HTTP toolkit. A
 * POST whose document holds only `query` operations reads; a `mutation` never does (default deny:
 * it needs --destroyer). Pages follow `pageInfo { hasNextPage endCursor }` by sending the same query
 * with `after`, bounded by the toolkit's pages and bytes. A GraphQL answer with `errors` and no
 * `data` is an error, and Linear's "400 + RATELIMITED / authentication error" answers are treated as
 * 429 and 401.
 *
 * Config (SPEC 2.5): `issuetracker.api_key` (or ISSUETRACKER_API_KEY or the credential backend),
 * `workspace_id` (optional; the key belongs to one workspace, so it only labels), `default_team` (the
 * team key "my team" means), `base_url` / ASSISTANT_ISSUETRACKER_BASE_URL (default api.linear.app).
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { OperationError, UsageError } from '../../core/errors.js';
import { fakeSandbox, oneRead, tokenCredentials } from '../../core/kits/http/token-integration.js';
import { resolveToken, type TokenSpec } from '../../core/kits/http/credentials.js';
import { isGraphqlRead } from '../../core/kits/http/graphql.js';
import { baseUrlFor, httpProvider, type Page } from '../../core/kits/http/provider.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { answerIssues, issuesRequest, mineIn, scopeOfRequest, teamIn, VIEWER_QUERY } from './reads.js';

export const ISSUETRACKER_DEFAULT_BASE_URL = 'https://api.linear.app';
const TOKEN: TokenSpec = { provider: 'issuetracker', key: 'api_key', env: ['ISSUETRACKER_API_KEY'] };
const GRAPHQL_PATH = '/graphql';

const errorsOf = (body: unknown) => (Array.isArray(obj(body).errors) ? (obj(body).errors as unknown[]).map(obj) : []);
const codeOf = (e: Record<string, unknown>) => `${str(obj(e.extensions).code) ?? ''} ${str(obj(e.extensions).type) ?? ''}`.toUpperCase();

/** A GraphQL page: the first connection in `data` (its `nodes`), the next page by `after: endCursor`. */
export function graphqlPage(body: unknown, _headers: Headers, request: { path: string; body?: string }): Page {
  const errors = errorsOf(body);
  const data = obj(obj(body).data);
  if (errors.length && !Object.keys(data).length) {
    throw new OperationError('graphql_error', `issuetracker: the query failed: ${errors.map((e) => str(e.message) ?? '?').join('; ').slice(0, 300).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')}`);
  }
  const connection = Object.values(data).map(obj).find((v) => Array.isArray(v.nodes));
  if (!connection) return { body };
  const info = obj(connection.pageInfo);
  let next: Page['next'];
  const cursor = str(info.endCursor);
  if (info.hasNextPage === true && cursor && request.body) {
    const doc = JSON.parse(request.body) as { query: string; variables?: Record<string, unknown> };
    // The same query with the cursor moved: a read stays a read.
    if (doc.variables?.after !== cursor) next = { body: JSON.stringify({ ...doc, variables: { ...(doc.variables ?? {}), after: cursor } }) };
  }
  return { items: connection.nodes as unknown[], body, next };
}

const capabilities: ProviderCapabilities = {
  routing: {
    names: ['issuetracker', 'issue tracker', 'linear'],
    specific: ['tickets', 'ticket', 'backlog', 'triage', 'sprint', 'team issues', 'assigned to me'],
    // "issues", "priority", "my team": common words select it only once it is set up.
    generic: ['issues', 'priority', 'priorities', 'urgent', 'my team', "my team's"],
    genericWhen: (config) => config.issuetracker !== undefined,
  },
  reads: {
    label: 'the issue tracker (issuetracker)',
    prompt:
      'issuetracker data is Linear GraphQL nodes of open issues (identifier, title, priority 1 Urgent … 4 Low, 0 No priority, priorityLabel, state, assignee, team, dueDate). A read cut short says so in `truncated`.',
    contextReads(question, { config }) {
      const scope = { team: teamIn(question) ?? (config.issuetracker?.default_team?.trim() || undefined), mine: mineIn(question) };
      return {
        commands: [{ args: ['issuetracker-api', 'POST', GRAPHQL_PATH, issuesRequest(scope)], reason: `context: open issues of ${scope.team ? `team ${scope.team}` : 'every team'}${scope.mine ? ' assigned to you' : ''} (a GraphQL query)` }],
        kinds: ['issuetracker/issues'],
      };
    },
  },
  answer: {
    understood: ['open', 'issue', 'issues', 'ticket', 'tickets', 'priority', 'priorities', 'urgent', 'high', 'medium', 'low', 'team', 'assigned', 'backlog', 'todo', 'triage'],
    answer(question, results) {
      const parts = results.flatMap((r) => {
        const scope = scopeOfRequest(r.args[3]);
        return scope ? [answerIssues(question, scope, r.data)] : [];
      });
      return parts.length ? parts.join('\n') : undefined;
    },
  },
  credentials: tokenCredentials({ name: 'issuetracker', tokenKey: 'api_key', envNames: ['ISSUETRACKER_API_KEY'] }, { title: 'issuetracker', what: 'issue tracker API key' }, async (read) => {
    const [me] = await read(oneRead('issuetracker', ['issuetracker-api', 'POST', GRAPHQL_PATH, JSON.stringify({ query: VIEWER_QUERY })], 'who the key belongs to (a cheap read)'));
    const data = obj(obj(me).data);
    const who = str(obj(data.viewer).displayName) ?? str(obj(data.viewer).name) ?? '?';
    const org = str(obj(data.organization).name);
    return { detail: `key of ${who}${org ? ` in ${org}` : ''}`, data: { viewer: who, organization: org } };
  }),
  sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/issuetracker.js')).startIssuetrackerFake(), 'api_key'),
};

export const issuetrackerProvider = httpProvider({
  name: 'issuetracker',
  label: 'issue tracker',
  async target(opts) {
    const token = await resolveToken(TOKEN, opts);
    if (!token.token) {
      throw new UsageError('issuetracker: no API key', { hint: 'set issuetracker.api_key or ISSUETRACKER_API_KEY, or `assistant credentials store issuetracker`' });
    }
    return {
      baseUrl: opts.override?.baseUrl ?? baseUrlFor('issuetracker', opts.config.issuetracker?.base_url, opts.env, ISSUETRACKER_DEFAULT_BASE_URL),
      // Linear: a personal API key goes as it is; an OAuth access token as a Bearer token.
      headers: { authorization: token.token.startsWith('lin_oauth_') ? `Bearer ${token.token}` : token.token },
      source: token.source,
      authenticated: true,
    };
  },
  isRead: (method, path, body) => method === 'POST' && path.split('?')[0]!.replace(/\/+$/, '') === GRAPHQL_PATH && isGraphqlRead(body),
  errorKind(status, text) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    const codes = errorsOf(body).map(codeOf).join(' ');
    if (/RATELIMITED|RATE_LIMITED/.test(codes)) return 'rate_limited';
    if (/AUTHENTICATION/.test(codes) || (status === 400 && /not authenticated/i.test(text))) return 'unauthorized';
    return undefined;
  },
  page: graphqlPage,
  capabilities,
});
