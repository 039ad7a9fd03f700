/**
 * vps_b: a Hetzner-Cloud-style API v1 as an HTTP JSON provider (engine/core/kits/http/provider.ts). One verb,
 * `["vps-b-api", METHOD, PATH]`: GET reads, anything else needs --destroyer (default deny). Lists are
 * `{"<kind>": […], "meta": {"pagination": {"next_page": n}}}`; the client asks for `page=n` of the same
 * path, bounded in pages and bytes. Questions about servers and their cost are answered from its reads.
 */
import type { Config } from '../../../schemas/config.js';
import { oneRead } from '../../core/kits/http/token-integration.js';
import type { Page } from '../../core/kits/http/provider.js';
import { tokenApiProvider, type TokenTargetSpec } from '../../core/kits/http/token-target.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { VPS_B_READS, VPS_B_VERB } from './reads.js';

export const VPS_B_TOKEN: TokenTargetSpec = {
  name: 'vps_b',
  label: 'vps_b API',
  configToken: (c: Config) => c.vps_b?.api_token,
  configBaseUrl: (c: Config) => c.vps_b?.base_url,
  envNames: ['VPS_B_API_TOKEN'],
  defaultBaseUrl: 'https://api.hetzner.cloud',
  storedField: 'api_token',
};

/** A list is the one array among the body's members; the next page is the same path with `page=<meta.pagination.next_page>`. */
export function vpsBPage(body: unknown, request: { path: string }): Page {
  const o = obj(body);
  const key = Object.keys(o).find((k) => k !== 'meta' && Array.isArray(o[k]));
  const next = obj(obj(o.meta).pagination).next_page;
  if (!key || typeof next !== 'number' || !Number.isInteger(next) || next < 1) return { items: key ? (o[key] as unknown[]) : undefined, body };
  const url = new URL(request.path, 'http://base.invalid');
  url.searchParams.set('page', String(next));
  return { items: o[key] as unknown[], body, next: { path: `${url.pathname}${url.search}` } };
}

export const vpsBProvider = tokenApiProvider({
  token: VPS_B_TOKEN,
  page: (body, _headers, request) => vpsBPage(body, request),
  maxPages: 10,
  reads: {
    label: 'the vps_b project (servers)',
    prompt: 'vps_b is a VPS cloud: servers with their server type, location, status and price (the server type\'s gross price in the server\'s location, EUR incl. VAT); server types list prices per location.',
    specific: ['server type', 'server types'],
    generic: ['vps', 'servers'],
    reads: VPS_B_READS,
  },
  credentials: {
    what: 'vps_b API token',
    async test(read) {
      const [data] = await read(oneRead('vps_b', [VPS_B_VERB, 'GET', '/v1/pricing'], 'a cheap read: the price list'));
      const p = obj(obj(data).pricing);
      return { detail: `prices in ${str(p.currency) ?? '?'} (VAT ${str(p.vat_rate) ?? '?'}%)` };
    },
  },
  fake: async () => (await import('../../../emulator/fakes/vps_b.js')).startVpsBFake(),
});
