/**
 * repohost (a GitHub-style code host) as a provider: steps are requests to its REST API v3
 * (`["repohost-api", "GET", "/repos/acme/widgets/pulls?state=open"]`) through the HTTP toolkit
 * (engine/core/kits/http/provider.ts: default deny, bounded paging by `Link: rel="next"`, 429/Retry-After).
 * Config `repohost.token` (optional for public repositories) or REPOHOST_TOKEN or the credential
 * backend; `repohost.owner` + `repohost.repo` name the repository questions are about (a question may
 * name another, `acme/widgets`); `repohost.base_url` / ASSISTANT_REPOHOST_BASE_URL for GitHub
 * Enterprise (`https://host/api/v3`) and the fake.
 */
import type { Config } from '../../../schemas/config.js';
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { tokenField } from '../../core/credential-sources.js';
import { repohostScan, repohostSources } from './credentials.js';
import { UsageError } from '../../core/errors.js';
import { fakeSandbox, oneRead } from '../../core/kits/http/token-integration.js';
import { resolveToken, type TokenSpec } from '../../core/kits/http/credentials.js';
import { isGraphqlRead } from '../../core/kits/http/graphql.js';
import { baseUrlFor, httpProvider, linkHeaderPage, type Page } from '../../core/kits/http/provider.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { answerRepoReads, repoReadsFor, type RepoRef } from './reads.js';

export const REPOHOST_DEFAULT_BASE_URL = 'https://api.github.com';
const TOKEN: TokenSpec = { provider: 'repohost', key: 'token', env: ['REPOHOST_TOKEN'] };

/**
 * Where git reaches the code host whose API is `repohost.base_url`: the API's own origin (GitHub
 * Enterprise serves git and `/api/v3` on one host) and, for api.github.com, github.com. A repohost token
 * goes to git only there (deploy's clone).
 */
export function codeHostGitOrigins(config: Config, env: Record<string, string | undefined>): string[] {
  const api = new URL(baseUrlFor('repohost', config.repohost?.base_url, env, REPOHOST_DEFAULT_BASE_URL));
  return api.hostname === 'api.github.com' ? [api.origin, `${api.protocol}//github.com`] : [api.origin];
}

/** `acme/widgets` named in the question (not a URL's path, not `and/or`-like words of one letter). */
export function repoInQuestion(question: string): RepoRef | undefined {
  for (const m of question.matchAll(/(?<![\w./:-])([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{2,100})(?![\w/])/g)) {
    const [, owner, repo] = m;
    if (owner!.length < 2 || /^(and|or|pub|sub|in|out|on|off|n|a)$/i.test(owner!)) continue;
    return { owner: owner!, repo: repo!.replace(/\.git$/, '').replace(/[.]+$/, '') };
  }
  return undefined;
}

/** The repository a question is about: named in it, else `repohost.owner`/`repohost.repo`. */
export function repoFor(question: string, config: Config): RepoRef {
  const named = repoInQuestion(question);
  if (named) return named;
  const owner = config.repohost?.owner?.trim();
  const repo = config.repohost?.repo?.trim();
  if (owner && repo) return { owner, repo };
  throw new UsageError('repohost: which repository? none is configured and the question names none', {
    hint: 'set repohost.owner and repohost.repo in ~/.assistant.yaml, or name it in the question ("open PRs in acme/widgets")',
  });
}

/** GitHub pages lists as JSON arrays; workflow and check runs come wrapped (`{ total_count, workflow_runs }`). */
function repohostPage(body: unknown, headers: Headers, request: { path: string }): Page {
  const page = linkHeaderPage(body, headers);
  const o = obj(body);
  // CI status is about the newest runs: one page of them, never the whole history.
  if (Array.isArray(o.workflow_runs)) return { items: o.workflow_runs, body, next: undefined };
  if (Array.isArray(o.check_runs)) return { items: o.check_runs, body, next: page.next };
  void request;
  return page;
}

const repoLabel = (path: string) => {
  const m = /^\/repos\/([^/]+)\/([^/?]+)/.exec(path);
  return m ? `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}` : 'repohost';
};

const capabilities: ProviderCapabilities = {
  routing: {
    names: ['repohost', 'github', 'code host', 'gh'],
    specific: [
      'pull request',
      'pull requests',
      'pr',
      'prs',
      'merge request',
      'merge requests',
      'ci',
      'github actions',
      'workflow run',
      'workflow runs',
      'check runs',
      'repo',
      'repos',
      'repository',
      'repositories',
    ],
    // "issues" is the issue tracker's word; GitHub issues are asked for by name or with the PRs.
    generic: ['build', 'builds', 'workflows', 'pipeline', 'pipelines'],
    genericWhen: (config) => Boolean(config.repohost?.owner && config.repohost?.repo),
  },
  reads: {
    label: 'the code host (repohost)',
    prompt: 'repohost data is GitHub REST API v3 JSON: issues (without pull requests), pull requests, workflow runs (newest first) and check runs of one repository. A read cut short says so in `truncated`.',
    contextReads(question, { config }) {
      const repo = repoFor(question, config);
      const reads = repoReadsFor(question);
      return {
        commands: reads.map((r) => ({ args: ['repohost-api', 'GET', r.path(repo, question)], reason: `context: ${r.label} of ${repo.owner}/${repo.repo}` })),
        kinds: reads.map((r) => `repohost/${r.key}`),
      };
    },
  },
  answer: {
    understood: ['open', 'closed', 'issue', 'issues', 'bug', 'bugs', 'failing', 'failed', 'passing', 'green', 'red', 'broken', 'draft', 'drafts', 'status', 'latest', 'check', 'checks', 'workflow', 'workflows', 'runs', 'run', 'branch', 'main', 'pull', 'requests', 'review', 'reviews', 'merge', 'labels', 'tests'],
    answer(question, results) {
      const byRepo = new Map<string, { args: readonly string[]; data: unknown }[]>();
      for (const r of results) byRepo.set(repoLabel(r.args[2] ?? ''), [...(byRepo.get(repoLabel(r.args[2] ?? '')) ?? []), r]);
      const parts = [...byRepo].flatMap(([repo, rs]) => answerRepoReads(question, repo, rs));
      return parts.length ? parts.join('\n') : undefined;
    },
  },
  credentials: {
    sources: repohostSources,
    what: 'code host token',
    fields: [tokenField('token', 'code host token')],
    scan: repohostScan,
    // deploy's clone hands the token to git, at the code host's git origins only.
    gitOrigins: ({ config, env }) => codeHostGitOrigins(config, env),
    async test(read) {
      const [user] = await read(oneRead('repohost', ['repohost-api', 'GET', '/user'], 'who the token belongs to (a cheap read)'));
      return { detail: `token of @${str(obj(user).login) ?? '?'}`, data: { login: str(obj(user).login) } };
    },
  },
  sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/repohost.js')).startRepohostFake()),
};

export const repohostProvider = httpProvider({
  name: 'repohost',
  label: 'code host',
  async target(opts) {
    const token = await resolveToken(TOKEN, opts);
    const baseUrl = opts.override?.baseUrl ?? baseUrlFor('repohost', opts.config.repohost?.base_url, opts.env, REPOHOST_DEFAULT_BASE_URL);
    return {
      baseUrl,
      headers: {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(token.token ? { authorization: `Bearer ${token.token}` } : {}),
      },
      source: token.token ? token.source : 'no token (public repositories only; repohost.token, REPOHOST_TOKEN or `credentials store repohost`)',
      authenticated: Boolean(token.token),
    };
  },
  // The GraphQL API (`POST /graphql`) reads when its document holds only queries.
  isRead: (method, path, body) => method === 'POST' && path.split('?')[0]!.replace(/\/+$/, '').endsWith('/graphql') && isGraphqlRead(body),
  page: repohostPage,
  capabilities,
});
