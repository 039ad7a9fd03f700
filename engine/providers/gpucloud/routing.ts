/**
 * The words that send a question to gpucloud: its names, its product phrases, its code patterns, and
 * the resource words of its catalogue (engine/providers/gpucloud/catalogue.ts, `terms` of each kind — never
 * copied here). Catalogue words are `generic` ("instances", "price"): they choose gpucloud only when no
 * other provider was named, so "list my ec2 instances" goes to cloud_a alone.
 */
import type { RoutingCapability } from '../../core/capabilities.js';
import { KINDS } from './catalogue.js';

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
 * last"): they route to the pseudo-kind `cost`, whose context is the cost read plan and whose built-in
 * answer is the burn, balance and runway (engine/producers/planner/answer.ts). Phrases, not "cost" or "per hour"
 * alone: "what does CPU.4V.16G cost per hour" asks for a price, not the account's burn.
 */
export const COST_KIND = 'cost';
export const COST_TERMS = [
  'spend', 'spent', 'spending', 'burn', 'burning', 'burn rate', 'runway', 'run out', 'runs out', 'running out', 'my cost', 'my costs', 'my bill', 'billing',
  'billed', 'budget', 'cost me', 'costs me', 'costing me', 'costing', 'balance last', 'money last', 'credit last', 'credits last', 'afford',
];

/**
 * A question about money or GPU counts ("how much does big cost per day", "which instances cost more than
 * 2 USD per hour", "how many GPUs are running"): its context is also what `cost summary` reads, so the
 * built-in answers price resources exactly as the cost capability does (volumes by type and size, spot
 * instances at the current spot price) and count the GPUs of clusters too. Words, not meaning: reading
 * more than needed costs a few GETs; reading less would leave a figure unpriced (then the answer declines).
 * Not "pay": "what am I paying for" asks what there is (the overview), not a figure; "how much do I pay"
 * has "how much".
 */
const MONEY_WORDS =
  /(?<![\p{L}\p{N}_])(?:costs?|costing|costly|costlier|price[sd]?|pricing|pricier|priciest|spend|spending|spent|burn|burning|bill|billed|billing|expensive|cheap|cheaper|cheapest|dearest|money|runway|usd|eur|gbp|dollars?|euros?|how much|hourly|daily|weekly|monthly|per (?:hour|day|week|month|year))(?![\p{L}\p{N}_])|[$€£]/iu;
const GPU_COUNT = /(?<![\p{L}\p{N}_])(?:how many|number of|total|sum|count)(?![\p{L}\p{N}_])[\s\S]*(?<![\p{L}\p{N}_])gpus?(?![\p{L}\p{N}_])|(?<![\p{L}\p{N}_])gpus?(?![\p{L}\p{N}_])[\s\S]*(?<![\p{L}\p{N}_])(?:in total|altogether|combined)(?![\p{L}\p{N}_])/iu;

/** "How long will it last", "how many days of credit": the runway, which needs the burn. */
const DURATION = /(?<![\p{L}\p{N}_])how (?:long|many (?:hours|days|weeks|months))(?![\p{L}\p{N}_])/iu;

export const readsCost = (question: string): boolean => MONEY_WORDS.test(question) || GPU_COUNT.test(question) || DURATION.test(question);

const kindOfTerm = (term: string) => KINDS.find((k) => k.terms.some((t) => t.toLowerCase() === term))?.kind;

export const GPUCLOUD_ROUTING: RoutingCapability = {
  names: GPUCLOUD_NAMES,
  specific: GPUCLOUD_PHRASES.map((term) => ({ term, kind: kindOfTerm(term) })),
  generic: [
    ...KINDS.flatMap((spec) => spec.terms.filter((t) => !GPUCLOUD_PHRASES.includes(t.toLowerCase())).map((term) => ({ term, kind: spec.kind }))),
    ...COST_TERMS.map((term) => ({ term, kind: COST_KIND })),
  ],
  shared: ['kubernetes', 'k8s', 'serverless', 'compute', 'storage', 'object storage'],
  patterns: [
    { label: 'instance type code', pattern: INSTANCE_TYPE_CODE, kind: 'instance-types' },
    { label: 'cluster type code', pattern: CLUSTER_TYPE_CODE, kind: 'cluster-types' },
  ],
  // The assistant's own cloud: a question that names no provider is about it (unless infra.default_provider says otherwise).
  default: true,
};
