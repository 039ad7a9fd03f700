/**
 * appplatform (a Vercel-style app platform) as a provider: steps are requests of the one verb
 * `appplatform-api` (`["appplatform-api", "GET", "/v6/deployments?limit=100"]`) through the shared HTTP
 * toolkit. Only GETs read; creating, promoting or deleting a deployment needs --destroyer. Lists page
 * with `until=<pagination.next>`, bounded by the toolkit. The token: `appplatform.api_token`,
 * APPPLATFORM_API_TOKEN, then the credential backend.
 */
import type { Page } from '../../core/kits/http/provider.js';
import { httpReadCapabilities } from '../../core/kits/http/read-catalogue.js';
import { fakeSandbox, nextWithParam, oneRead, tokenCredentials, tokenHttpProvider, type TokenIntegrationSpec } from '../../core/kits/http/token-integration.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { APPPLATFORM_READS } from './reads.js';

const LISTS = ['deployments', 'projects', 'teams', 'domains', 'aliases', 'envs'];

/** A list answer (`{deployments: […], pagination: {next}}`): its items, and the next page as `until=<next>` on the same path. */
export function appPlatformPage(body: unknown, _headers: Headers, request: { path: string }): Page {
  const b = obj(body);
  const key = LISTS.find((k) => Array.isArray(b[k]));
  if (!key || typeof b.pagination !== 'object') return { body };
  const next = obj(b.pagination).next;
  if (typeof next !== 'number' && !(typeof next === 'string' && next)) return { items: b[key] as unknown[], body };
  return { items: b[key] as unknown[], body, next: nextWithParam(request.path, 'until', String(next)) };
}

const spec: TokenIntegrationSpec = {
  name: 'appplatform',
  label: 'app platform',
  tokenKey: 'api_token',
  envNames: ['APPPLATFORM_API_TOKEN'],
  defaultBaseUrl: 'https://api.vercel.com',
  page: appPlatformPage,
};

export const appPlatformProvider = tokenHttpProvider({
  ...spec,
  capabilities: {
    ...httpReadCapabilities({
      provider: 'appplatform',
      label: 'the app platform (appplatform)',
      prompt: 'Deployments are newest first; state is READY, ERROR, BUILDING, QUEUED, INITIALIZING or CANCELED; target "production" or preview.',
      routing: {
        // Not "app platform": other clouds sell one under that name (vps_a's).
        names: ['appplatform', 'vercel'],
        // "deployments" alone is gpucloud's too (its container and job deployments): these phrases are this platform's.
        specific: [
          'preview deployment', 'preview deployments', 'production deployment', 'production deployments', 'failed deployment', 'failed deployments',
          'deployment failed', 'deployments failed', 'latest deployment', 'latest deployments', 'last deployment', 'deployment status', 'deploy preview',
          'deploy previews', 'vercel project', 'vercel projects',
        ],
        generic: ['deploys', 'builds'],
        // Common words ("builds") reach it only once its section is set up.
        genericWhen: (config) => Boolean(config.appplatform),
      },
      reads: APPPLATFORM_READS,
    }),
    credentials: tokenCredentials(spec, { title: 'appplatform', what: 'app platform API token' }, async (read) => {
      const [me] = await read(oneRead('appplatform', ['appplatform-api', 'GET', '/v2/user'], 'the token\'s user (a cheap read)'));
      const user = obj(obj(me).user);
      return { detail: `user ${str(user.username) ?? str(user.email) ?? '?'}`, data: { user: str(user.username) } };
    }),
    sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/appplatform.js')).startAppPlatformFake()),
  },
});
