/**
 * Vocabulary of question routing. gpucloud's resource words come from the resource catalogue
 * (engine/gpucloud/catalogue.ts, `terms` of each kind) and are never copied here; this file only adds
 * the provider's names, its product phrases and its code patterns, plus small lists for the other
 * clouds (cloud_a's list is extended by `cloud_a.service_keywords` in the config).
 *
 * Strength: a `name` or `specific` match selects a provider outright. `generic` words (the catalogue's
 * "instances", "volumes", "price"…) select gpucloud only when no other provider was named or
 * implied, so "list my ec2 instances" goes to cloud_a alone.
 */
import { KINDS } from '../gpucloud/catalogue.js';
import { AWS_READS } from '../cloud_a/reads.js';
import type { TermSpec } from './match.js';

export const ROUTE_PROVIDERS = ['gpucloud', 'cloud_a', 'cloud_b', 'cloud_c'] as const;
export type RouteProvider = (typeof ROUTE_PROVIDERS)[number];

/**
 * `resource`: a word for a resource another provider's catalogue lists and gpucloud's does not
 * ("buckets", "queues", "databases" from cloud_a's reads): it picks that provider when no provider is
 * named and no gpucloud word is used, before the default.
 */
export type Strength = 'name' | 'specific' | 'generic' | 'resource';

export interface RouteTerm {
  provider: RouteProvider;
  strength: Strength;
  /** gpucloud resource kind the term is about. */
  kind?: string;
}

/**
 * gpucloud instance-type codes: `1V100.6V`, `8A100.176V`, `1H100.80S.22V`, `1RTX6000ADA.10V`, `CPU.4V.16G`.
 * A sentence-ending dot is allowed after the code.
 */
export const INSTANCE_TYPE_CODE = /(?<![\p{L}\p{N}_.])(?:\d{1,2}[A-Z][A-Z0-9]*|CPU)(?:\.\d+[A-Z]+)+(?![\p{L}\p{N}_])(?!\.[\p{L}\p{N}])/giu;

/** Instant Cluster type codes: `16H100`, `16B200`, `32B200` (upper case as the API writes them). */
export const CLUSTER_TYPE_CODE = /(?<![\p{L}\p{N}_.])\d{1,3}[A-Z]{1,3}\d{2,4}(?![\p{L}\p{N}_])(?!\.\d)/gu;

/** The provider's own name, its brand name and its former name. */
export const GPUCLOUD_NAMES = ['gpucloud', 'verda', 'datacrunch'];

/** Product phrases that only gpucloud uses (their kind is looked up in the catalogue). */
export const GPUCLOUD_PHRASES = [
  'instant cluster',
  'instant clusters',
  'serverless container',
  'serverless containers',
  'job deployment',
  'job deployments',
  'container deployment',
  'container deployments',
];

/**
 * Questions about what the account costs ("what am I spending per hour", "how long will my balance
 * last"): they route to the pseudo-kind `cost`, whose context is the cost read plan (machines/ask.ts)
 * and whose built-in answer is the burn, balance and runway (engine/planner/answer.ts). Phrases, not
 * "cost" or "per hour" alone: "what does CPU.4V.16G cost per hour" asks for a price, not the account's burn.
 */
export const COST_KIND = 'cost';
export const COST_TERMS = [
  'spending', 'burn', 'burning', 'burn rate', 'runway', 'run out', 'runs out', 'running out', 'my cost', 'my costs', 'my bill', 'billing',
  'billed', 'budget', 'cost me', 'costs me', 'costing me', 'costing', 'balance last', 'money last', 'credit last', 'credits last', 'afford',
];

export const OTHER_PROVIDER_TERMS: Record<Exclude<RouteProvider, 'gpucloud'>, { names: string[]; specific: string[] }> = {
  cloud_a: {
    names: ['aws', 'amazon web services', 'amazon'],
    specific: ['ec2', 's3', 'lambda', 'iam', 'rds', 'cloudwatch', 'cloudtrail', 'dynamodb', 'ecs', 'eks', 'fargate', 'cloudformation', 'route53', 'route 53', 'sqs', 'sns', 'ebs', 'elb', 'ami', 'amis', 'vpc', 'vpcs', 'sagemaker', 'cloudfront', 'aurora'],
  },
  cloud_b: {
    names: ['gcp', 'google cloud', 'google cloud platform'],
    specific: ['gce', 'compute engine', 'gke', 'cloud run', 'bigquery', 'gcs', 'cloud functions', 'cloud sql', 'pubsub', 'pub/sub', 'app engine', 'gcloud'],
  },
  cloud_c: {
    names: ['azure', 'microsoft azure'],
    specific: ['aks', 'blob storage', 'cosmos db', 'cosmosdb', 'resource group', 'resource groups', 'app service', 'azure functions', 'entra', 'key vault'],
  },
};

/** Words for what gpucloud sells too (its Kubernetes clusters, serverless containers): never a sign of cloud_a alone. */
const SHARED_TECHNOLOGY = new Set(['kubernetes', 'k8s', 'serverless', 'compute', 'storage', 'object storage']);

function kindOfTerm(term: string): string | undefined {
  return KINDS.find((k) => k.terms.some((t) => t.toLowerCase() === term))?.kind;
}

/**
 * All routing terms. `serviceKeywords` is `cloud_a.service_keywords` from the config: each service
 * name and each of its keywords becomes a cloud_a term.
 */
export function routeTerms(serviceKeywords?: Record<string, string[]>): TermSpec<RouteTerm>[] {
  const specs: TermSpec<RouteTerm>[] = [];
  const seen = new Set<string>();
  const add = (term: string, data: RouteTerm, pattern?: RegExp) => {
    const t = term.trim().toLowerCase();
    if (!t) return;
    const key = `${t}|${data.provider}|${data.kind ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    specs.push({ term: t, data, pattern });
  };
  for (const name of GPUCLOUD_NAMES) add(name, { provider: 'gpucloud', strength: 'name' });
  for (const phrase of GPUCLOUD_PHRASES) add(phrase, { provider: 'gpucloud', strength: 'specific', kind: kindOfTerm(phrase) });
  for (const spec of KINDS) {
    for (const term of spec.terms) {
      if (GPUCLOUD_PHRASES.includes(term.toLowerCase())) continue;
      add(term, { provider: 'gpucloud', strength: 'generic', kind: spec.kind });
    }
  }
  for (const term of COST_TERMS) add(term, { provider: 'gpucloud', strength: 'generic', kind: COST_KIND });
  add('instance type code', { provider: 'gpucloud', strength: 'specific', kind: 'instance-types' }, new RegExp(INSTANCE_TYPE_CODE.source, INSTANCE_TYPE_CODE.flags));
  add('cluster type code', { provider: 'gpucloud', strength: 'specific', kind: 'cluster-types' }, new RegExp(CLUSTER_TYPE_CODE.source, CLUSTER_TYPE_CODE.flags));
  for (const [provider, { names, specific }] of Object.entries(OTHER_PROVIDER_TERMS) as [RouteProvider, { names: string[]; specific: string[] }][]) {
    for (const n of names) add(n, { provider, strength: 'name' });
    for (const s of specific) add(s, { provider, strength: 'specific' });
  }
  // Resource words of the other providers' catalogues (only cloud_a has one), except any word gpucloud's
  // vocabulary uses too ("instances", "storage" of "block storage") and the technologies both sell.
  const gpucloudWords = new Set(specs.filter((t) => t.data.provider === 'gpucloud').flatMap((t) => t.term.split(/[\s_-]+/)));
  for (const read of AWS_READS) {
    for (const word of read.words) {
      const w = word.toLowerCase();
      if (w.split(/\s+/).some((part) => gpucloudWords.has(part)) || SHARED_TECHNOLOGY.has(w)) continue;
      add(w, { provider: 'cloud_a', strength: 'resource' });
    }
  }
  for (const [service, keywords] of Object.entries(serviceKeywords ?? {})) {
    add(service, { provider: 'cloud_a', strength: 'specific' });
    for (const k of keywords ?? []) add(k, { provider: 'cloud_a', strength: 'specific' });
  }
  return specs;
}
