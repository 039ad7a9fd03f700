/**
 * vps_a: a DigitalOcean-style API v2 as an HTTP JSON provider (engine/core/kits/http/provider.ts). One verb,
 * `["vps-a-api", METHOD, PATH]`: GET reads, anything else needs --destroyer (default deny). Lists are
 * `{"<kind>": […], "links": {"pages": {"next": …}}}`; the client follows `next` (same origin only),
 * bounded in pages and bytes. Questions about droplets and their cost are answered from its reads.
 */
import type { Config } from '../../../schemas/config.js';
import { oneRead } from '../../core/kits/http/token-integration.js';
import type { Page } from '../../core/kits/http/provider.js';
import { tokenApiProvider, type TokenTargetSpec } from '../../core/kits/http/token-target.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { VPS_A_READS, VPS_A_VERB } from './reads.js';

export const VPS_A_TOKEN: TokenTargetSpec = {
  name: 'vps_a',
  label: 'vps_a API',
  configToken: (c: Config) => c.vps_a?.api_token,
  configBaseUrl: (c: Config) => c.vps_a?.base_url,
  envNames: ['VPS_A_API_TOKEN'],
  defaultBaseUrl: 'https://api.digitalocean.com',
  storedField: 'api_token',
};

/** A list is the one array among the body's members (`droplets`, `volumes`…); the next page is `links.pages.next`. */
export function vpsAPage(body: unknown): Page {
  const o = obj(body);
  const key = Object.keys(o).find((k) => k !== 'links' && k !== 'meta' && Array.isArray(o[k]));
  const next = str(obj(obj(o.links).pages).next);
  return { items: key ? (o[key] as unknown[]) : undefined, body, next: key && next ? { path: next } : undefined };
}

export const vpsAProvider = tokenApiProvider({
  token: VPS_A_TOKEN,
  page: (body) => vpsAPage(body),
  reads: {
    label: 'the vps_a account (droplets)',
    prompt: 'vps_a is a VPS cloud: droplets with their size, region, status and price (price_hourly / price_monthly in USD, from the size).',
    specific: ['droplet', 'droplets'],
    generic: ['vps', 'servers'],
    reads: VPS_A_READS,
  },
  credentials: {
    what: 'vps_a API token',
    async test(read) {
      const [data] = await read(oneRead('vps_a', [VPS_A_VERB, 'GET', '/v2/account'], 'a cheap read: the account'));
      const a = obj(obj(data).account);
      return { detail: `account ${str(a.status) ?? '?'}, droplet limit ${String(a.droplet_limit ?? '?')}` };
    },
  },
  fake: async () => (await import('../../../emulator/fakes/vps_a.js')).startVpsAFake(),
});
