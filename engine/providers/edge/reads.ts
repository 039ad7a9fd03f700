/**
 * What `ask` reads from the CDN/DNS service: zones (of `edge.account_id` when set), and the DNS records
 * and settings of one zone — the one the question names (`example.com`), else `edge.default_zone`. A
 * zone given by name is looked up first (`GET /zones?name=…`, its id bound to a placeholder); a zone
 * id (32 hex digits) is used as it is. Every step is a read-only GET of the `edge-api` verb.
 */
import type { Config } from '../../../schemas/config.js';
import type { PlanCommand } from '../../../schemas/plan.js';
import { arr, obj, str } from '../../core/kits/cli/reads.js';
import type { HttpReadSpec } from '../../core/kits/http/read-catalogue.js';

export const EDGE_API = '/client/v4';
const ZONE_ID = /^[0-9a-f]{32}$/i;
/** A domain name in a question (`example.com`, `shop.example.co.uk`): letters, digits, hyphens, dots, a letter TLD. */
const DOMAIN = /(?<![\w.@/-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![\w-]|\.[a-z0-9])/gi;

function accountQuery(config: Config): string {
  const account = config.edge?.account_id?.trim();
  return account ? `&account.id=${encodeURIComponent(account)}` : '';
}

/** The zone a question is about: a domain it names, else the configured default zone. */
export function zoneFor(config: Config, question: string): string | undefined {
  const named = [...question.matchAll(DOMAIN)].map((m) => m[1]!.toLowerCase()).find((d) => !/\.(ts|js|json|yaml|yml|md|txt)$/.test(d));
  return named ?? (config.edge?.default_zone?.trim() || undefined);
}

/** The steps that reach `/zones/<id>/<what>`: a lookup by name first when the zone is not an id. */
function zoneSteps(config: Config, question: string, what: string, binding: string, reason: string): PlanCommand[] {
  const zone = zoneFor(config, question);
  if (!zone) return [];
  if (ZONE_ID.test(zone)) return [{ args: ['edge-api', 'GET', `${EDGE_API}/zones/${zone}/${what}`], reason }];
  return [
    { args: ['edge-api', 'GET', `${EDGE_API}/zones?name=${encodeURIComponent(zone)}${accountQuery(config)}`], reason: `context: the id of zone ${zone}`, produces: { [binding]: '$[0].id' } },
    { args: ['edge-api', 'GET', `${EDGE_API}/zones/<${binding}>/${what}`], reason: `${reason} (${zone})` },
  ];
}

const ttl = (v: unknown) => (v === 1 ? 'ttl auto' : typeof v === 'number' ? `ttl ${v}` : undefined);

export const EDGE_READS: readonly HttpReadSpec[] = [
  {
    key: 'dns',
    label: 'DNS records',
    singular: 'DNS record',
    words: ['dns', 'record', 'records', 'cname', 'cnames', 'mx', 'txt', 'aaaa', 'a record', 'a records', 'proxied', 'resolve', 'resolves', 'points', 'ip', 'ttl'],
    byDefault: true,
    commands: (config, question) => zoneSteps(config, question, 'dns_records?per_page=100', 'EDGE_DNS_ZONE_ID', 'context: the DNS records of the zone'),
    records: (data) =>
      arr(data)
        .map(obj)
        .map((r) => ({
          name: str(r.name) ?? '?',
          detail: [str(r.type), str(r.content), ttl(r.ttl), r.proxied === true ? 'proxied' : r.proxied === false ? 'DNS only' : undefined].filter(Boolean).join(' ') || undefined,
          tags: [str(r.type)?.toLowerCase() ?? '', r.proxied ? 'proxied' : 'dns-only'],
        })),
    tagWords: {
      a: ['a record', 'a records'],
      aaaa: ['aaaa', 'ipv6 records'],
      cname: ['cname', 'cnames'],
      mx: ['mx', 'mail'],
      txt: ['txt'],
      proxied: ['proxied'],
      'dns-only': ['dns only', 'not proxied', 'unproxied'],
    },
  },
  {
    key: 'settings',
    label: 'zone settings',
    singular: 'zone setting',
    words: ['setting', 'settings', 'ssl', 'tls', 'https', 'http3', 'http/3', 'ipv6', 'cache', 'caching', 'security level', 'development mode', 'min tls'],
    byDefault: false,
    commands: (config, question) => zoneSteps(config, question, 'settings', 'EDGE_SETTINGS_ZONE_ID', 'context: the settings of the zone'),
    records: (data) => arr(data).map(obj).map((s) => ({ name: str(s.id) ?? '?', detail: typeof s.value === 'object' ? JSON.stringify(s.value) : String(s.value), tags: [str(s.id) ?? ''] })),
    tagWords: {
      ssl: ['ssl', 'ssl mode', 'encryption mode'],
      min_tls_version: ['min tls', 'minimum tls', 'tls version'],
      tls_1_3: ['tls 1.3', 'tls1.3'],
      always_use_https: ['always use https', 'https redirect', 'always https'],
      http3: ['http3', 'http/3'],
      ipv6: ['ipv6'],
      security_level: ['security level'],
      cache_level: ['cache level', 'caching level'],
      development_mode: ['development mode', 'dev mode'],
      browser_cache_ttl: ['browser cache'],
    },
  },
  {
    key: 'zones',
    label: 'zones',
    singular: 'zone',
    words: ['zone', 'zones', 'domain', 'domains', 'nameserver', 'nameservers', 'site', 'sites', 'plan', 'plans'],
    byDefault: true,
    commands: (config) => [{ args: ['edge-api', 'GET', `${EDGE_API}/zones?per_page=50${accountQuery(config)}`], reason: 'context: the zones' }],
    records: (data) =>
      arr(data)
        .map(obj)
        .map((z) => ({ name: str(z.name) ?? '?', state: str(z.status), detail: [str(obj(z.plan).name), z.paused === true ? 'paused' : undefined].filter(Boolean).join(', ') || undefined })),
    stateWords: { pending: ['pending', 'not active', 'inactive'], active: ['active'] },
  },
];
