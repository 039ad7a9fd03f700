/**
 * edge (a Cloudflare-style CDN/DNS API v4) as a provider: steps are requests of the one verb `edge-api`
 * (`["edge-api", "GET", "/client/v4/zones/<id>/dns_records"]`) through the shared HTTP toolkit; paths
 * carry the API's `/client/v4` prefix, so `base_url` is the host alone. Only GETs read; changing a
 * record or a setting, purging the cache, needs --destroyer. Answers come in the `{success, errors,
 * result}` envelope; lists page with `page` / `per_page` up to `result_info.total_pages`, bounded by the
 * toolkit. The token: `edge.api_token`, EDGE_API_TOKEN, then the credential backend.
 */
import type { Page } from '../../core/kits/http/provider.js';
import { httpReadCapabilities } from '../../core/kits/http/read-catalogue.js';
import { fakeSandbox, nextWithParam, oneRead, tokenCredentials, tokenHttpProvider, type TokenIntegrationSpec } from '../../core/kits/http/token-integration.js';
import type { ArgProblem } from '../../core/provider.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { EDGE_API, EDGE_READS } from './reads.js';

/** The envelope's `result`: a list's items with the next page (`page + 1` while below `total_pages`), or the object. */
export function edgePage(body: unknown, _headers: Headers, request: { path: string }): Page {
  const b = obj(body);
  if (b.success !== true || !('result' in b)) return { body };
  if (!Array.isArray(b.result)) return { body: b.result };
  const info = obj(b.result_info);
  const page = Number(info.page);
  const total = Number(info.total_pages);
  if (!Number.isInteger(page) || !Number.isInteger(total) || page >= total) return { items: b.result, body };
  return { items: b.result, body, next: nextWithParam(request.path, 'page', String(page + 1)) };
}

const spec: TokenIntegrationSpec = {
  name: 'edge',
  label: 'CDN/DNS',
  tokenKey: 'api_token',
  envNames: ['EDGE_API_TOKEN'],
  defaultBaseUrl: 'https://api.cloudflare.com',
  page: edgePage,
  check(_method, path): ArgProblem[] {
    return path.startsWith(`${EDGE_API}/`) ? [] : [{ field: 'args[2]', message: `edge paths start with ${EDGE_API}/ (e.g. ${EDGE_API}/zones)` }];
  },
};

export const edgeProvider = tokenHttpProvider({
  ...spec,
  capabilities: {
    ...httpReadCapabilities({
      provider: 'edge',
      label: 'the CDN/DNS service (edge)',
      prompt: 'Zones are domains on the CDN/DNS service; DNS records show type, content, TTL (1 = auto) and whether traffic is proxied through the CDN; zone settings are id = value.',
      routing: {
        // Not the bare words "edge" or "cdn": "CloudFront edge locations" and "cdn" questions belong to cloud_a first.
        names: ['cloudflare'],
        specific: ['zone settings', 'ssl mode', 'proxied', 'dns only', 'page rules', 'waf'],
        generic: ['cdn', 'dns', 'dns record', 'dns records', 'cname', 'cnames', 'mx record', 'mx records', 'txt record', 'txt records', 'a record', 'a records', 'zone', 'zones', 'domain', 'domains', 'nameservers'],
      },
      reads: EDGE_READS,
    }),
    credentials: tokenCredentials(spec, { title: 'edge (CDN / DNS)', what: 'CDN/DNS API token' }, async (read) => {
      const [verified] = await read(oneRead('edge', ['edge-api', 'GET', `${EDGE_API}/user/tokens/verify`], 'verify the token (a cheap read)'));
      return { detail: `token status ${str(obj(verified).status) ?? '?'}`, data: { status: str(obj(verified).status) } };
    }),
    sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/edge.js')).startEdgeFake()),
  },
});
