/**
 * errtracker (a Sentry-style error tracker) as a provider: steps are requests to its web API
 * (`["errtracker-api", "GET", "/api/0/projects/acme/backend/issues/?query=is%3Aunresolved&sort=freq"]`)
 * through the HTTP toolkit (default deny, bounded paging, 429/Retry-After). Sentry pages with a Link
 * header whose `rel="next"` carries `results="true"` while there is more, and `results="false"` on the
 * last page (the link is there even then: following it would be an endless loop on an empty page).
 *
 * Config (SPEC 2.5): `errtracker.auth_token` (or ERRTRACKER_AUTH_TOKEN or the credential backend),
 * `org_slug`, `default_project`, `host` (default the SaaS host sentry.io; a self-hosted or EU host
 * overrides it), and `base_url` / ASSISTANT_ERRTRACKER_BASE_URL, which override `host`.
 */
import type { Config } from '../../../schemas/config.js';
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { UsageError } from '../../core/errors.js';
import { fakeSandbox, oneRead, tokenCredentials } from '../../core/kits/http/token-integration.js';
import { resolveToken, type TokenSpec } from '../../core/kits/http/credentials.js';
import { baseUrlFor, httpProvider, type Page } from '../../core/kits/http/provider.js';
import { arr, obj, str } from '../../core/kits/cli/reads.js';
import { answerErrReads, errReadsFor, projectIn, type ErrScope } from './reads.js';

/** SPEC 2.5: the default host is the SaaS one; `host` overrides it (self-hosted, or `de.sentry.io` for the EU). */
export const ERRTRACKER_DEFAULT_HOST = 'sentry.io';
const TOKEN: TokenSpec = { provider: 'errtracker', key: 'auth_token', env: ['ERRTRACKER_AUTH_TOKEN'] };

/** `host` as a URL: a bare name is https (`de.sentry.io` → `https://de.sentry.io`). */
export function hostUrl(host: string | undefined): string {
  const h = (host?.trim() || ERRTRACKER_DEFAULT_HOST).replace(/\/+$/, '');
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(h) ? h : `https://${h}`;
}

/** Where the API is: `base_url`, else ASSISTANT_ERRTRACKER_BASE_URL, else `host`, else sentry.io. */
export function errtrackerBaseUrl(config: Config, env: Record<string, string | undefined>): string {
  return baseUrlFor('errtracker', config.errtracker?.base_url, env, hostUrl(config.errtracker?.host));
}

/** Sentry's Link header: `<url>; rel="next"; results="true"; cursor="0:100:0"`; no more pages when results="false". */
export function sentryLinkPage(body: unknown, headers: Headers): Page {
  let next: string | undefined;
  for (const part of (headers.get('link') ?? '').split(/,(?=\s*<)/)) {
    const url = /<([^>]+)>/.exec(part)?.[1];
    if (!url || !/;\s*rel="?next"?/i.test(part)) continue;
    // Without a `results` attribute (another server), a next link means more.
    if (!/;\s*results="?false"?/i.test(part)) next = url;
  }
  return { items: Array.isArray(body) ? body : undefined, body, next: next ? { path: next } : undefined };
}

/** `acme/backend` in the question: an organization and a project, as Sentry's own CLI names them. */
export function orgProjectIn(question: string): ErrScope | undefined {
  const m = /(?<![\w./:-])([a-z0-9][a-z0-9_-]{1,49})\/([a-z0-9][a-z0-9_.-]{1,99})(?![\w/])/i.exec(question);
  return m ? { org: m[1]!, project: m[2]!.replace(/[.]+$/, '') } : undefined;
}

function scopeFor(question: string, config: Config): ErrScope {
  const named = orgProjectIn(question);
  if (named) return named;
  const org = config.errtracker?.org_slug?.trim();
  if (!org) {
    throw new UsageError('errtracker: which organization? errtracker.org_slug is not set', {
      hint: 'set errtracker.org_slug (and errtracker.default_project) in ~/.assistant.yaml, or name both in the question ("unresolved errors in acme/backend")',
    });
  }
  return { org, project: projectIn(question) ?? (config.errtracker?.default_project?.trim() || undefined) };
}

const capabilities: ProviderCapabilities = {
  routing: {
    names: ['errtracker', 'sentry', 'error tracker', 'error tracking'],
    // Single words here: a phrase's parts ("issues") would keep the issue tracker's generic words out.
    specific: ['stack trace', 'stack traces', 'unresolved'],
    // "why did my instance crash", "any errors on my instances": common words select it only once it is set up.
    generic: ['errors', 'error rate', 'exceptions', 'exception', 'crashes', 'crash'],
    genericWhen: (config) => Boolean(config.errtracker?.org_slug),
  },
  reads: {
    label: 'the error tracker (errtracker)',
    prompt:
      'errtracker data is Sentry web API JSON: unresolved issues (shortId, title, culprit, level, count = events in the stats period as a string, userCount, firstSeen, lastSeen) of one project or of the whole organization, or the projects. A read cut short says so in `truncated`.',
    contextReads(question, { config }) {
      const named = projectIn(question) ?? orgProjectIn(question)?.project;
      const scope = scopeFor(question, config);
      const reads = errReadsFor(question, Boolean(named));
      return {
        commands: reads.map((r) => ({ args: ['errtracker-api', 'GET', r.path(scope)], reason: `context: ${r.key === 'issues' ? `unresolved issues by frequency of ${scope.project ? `${scope.org}/${scope.project}` : scope.org}` : `the projects of ${scope.org}`}` })),
        kinds: reads.map((r) => `errtracker/${r.key}`),
      };
    },
  },
  answer: {
    understood: ['unresolved', 'error', 'errors', 'issue', 'issues', 'events', 'users', 'frequent', 'frequency', 'most', 'top', 'noisy', 'project', 'projects', 'happen', 'happening', 'crash', 'crashes', 'exception', 'exceptions', 'broken', 'breaking'],
    answer(question, results) {
      const parts = answerErrReads(question, results);
      return parts.length ? parts.join('\n') : undefined;
    },
  },
  credentials: tokenCredentials({ name: 'errtracker', tokenKey: 'auth_token', envNames: ['ERRTRACKER_AUTH_TOKEN'] }, { title: 'errtracker (error tracker)', what: 'error tracker auth token' }, async (read) => {
    const [orgs] = await read(oneRead('errtracker', ['errtracker-api', 'GET', '/api/0/organizations/'], 'the organizations the token sees (a cheap read)'));
    const slugs = arr(Array.isArray(orgs) ? orgs : obj(orgs).items).map((o) => str(obj(o).slug)).filter(Boolean);
    return { detail: `the token sees ${slugs.length} organization${slugs.length === 1 ? '' : 's'}${slugs.length ? `: ${slugs.join(', ')}` : ''}`, data: { organizations: slugs } };
  }),
  sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/errtracker.js')).startErrtrackerFake(), 'auth_token'),
};

export const errtrackerProvider = httpProvider({
  name: 'errtracker',
  label: 'error tracker',
  async target(opts) {
    const token = await resolveToken(TOKEN, opts);
    if (!token.token) {
      throw new UsageError('errtracker: no auth token', { hint: 'set errtracker.auth_token or ERRTRACKER_AUTH_TOKEN, or `assistant credentials store errtracker`' });
    }
    return {
      baseUrl: opts.override?.baseUrl ?? errtrackerBaseUrl(opts.config, opts.env),
      headers: { authorization: `Bearer ${token.token}` },
      source: token.source,
      authenticated: true,
    };
  },
  page: sentryLinkPage,
  capabilities,
});
