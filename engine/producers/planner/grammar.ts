/**
 * The small grammar of the built-in planner: it reads a request into an Intent, deterministically
 * and offline. Resource words come from the resource catalogue (kind names, aliases and terms);
 * verbs and the few value patterns (instance-type codes, location codes, sizes, names) are here.
 */
import { KINDS } from '../../providers/gpucloud/catalogue.js';
import { TermMatcher, termPattern, type TermMatch } from '../../core/routing/match.js';
import { CLUSTER_TYPE_CODE, INSTANCE_TYPE_CODE } from '../../providers/gpucloud/routing.js';

export type InstanceAction = 'start' | 'shutdown' | 'hibernate' | 'delete' | 'discontinue' | 'force_shutdown';

export type Intent =
  | { type: 'list'; kinds: string[]; location?: string; names: string[] }
  | {
      type: 'create-instance';
      instanceType?: string;
      gpuModel?: string;
      gpuCount?: number;
      hostnames: string[];
      count?: number;
      location?: string;
      image?: string;
      spot: boolean;
      /** Capacity alternatives (issue 31): more types or locations to fall back on, or a region of locations. */
      choices?: LocationChoices;
    }
  | { type: 'instance-action'; action: InstanceAction; names: string[]; ids: string[]; all: boolean; status?: string }
  | { type: 'create-cluster'; clusterType?: string; hostname?: string; location?: string; kubernetes: boolean; count?: number }
  | { type: 'discontinue-cluster'; names: string[]; ids: string[] }
  | { type: 'create-volume'; name?: string; size?: number; volumeType: string; location?: string; attachTo?: string; count?: number; shutdownFirst: boolean }
  | { type: 'volume-action'; action: 'attach' | 'detach' | 'delete'; volume?: string; instance?: string }
  | { type: 'unsupported'; reason: string };

/** "in FIN-01 or FIN-02", "anywhere (in Europe)", "an H100 or an A100": what a create may fall back on. */
export interface LocationChoices {
  /** Every location code written, in order (two or more). */
  locations: string[];
  /** `any` location, or those of a region (`europe`). */
  region?: 'any' | 'europe';
  /** Further instance-type codes or GPU models written after the first ("or an A100"). */
  moreTypes: string[];
  moreGpuModels: string[];
  /** The words that said it, for accounting for every word of the request. */
  words: string[];
}

const REGION_ANY = /\b(anywhere|any\s+(?:location|region|datacenter|datacentre)|wherever)\b/i;
const REGION_EUROPE = /\b(?:anywhere\s+)?(?:in|within|across)\s+(?:the\s+)?(europe|eu)\b/i;

/** The capacity alternatives a create request asks for, or undefined when it names one place and one type. */
export function findChoices(text: string): LocationChoices | undefined {
  const words: string[] = [];
  const europe = REGION_EUROPE.exec(text);
  const any = REGION_ANY.exec(text);
  if (europe) words.push(europe[0]);
  if (any) words.push(any[0]);
  // Choices are joined by "or" ("FIN-01 or FIN-02"); "and" asks for more than one thing, which is not a choice.
  const orJoined = (matches: RegExpMatchArray[]) => matches.every((m, i) => i === 0 || /\bor\b/i.test(text.slice(matches[i - 1]!.index! + matches[i - 1]![0].length, m.index)));
  const all = (re: RegExp) => {
    const matches = [...text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'))];
    return orJoined(matches) ? matches : matches.slice(0, 1);
  };
  const locations = [...new Set(all(LOCATION_UPPER).map((m) => m[1]!.toUpperCase()))];
  const types = [...new Set(all(INSTANCE_TYPE_CODE).map((m) => m[0].toUpperCase()))];
  const models = types.length ? [] : [...new Set(all(GPU_MODEL_ALL).map((m) => m[2]!.replace(/\s+/g, '').toUpperCase()))];
  const region = europe ? 'europe' : any ? 'any' : undefined;
  if (!region && locations.length < 2 && types.length < 2 && models.length < 2) return undefined;
  return { locations: locations.length > 1 || region ? locations : [], region, moreTypes: types.slice(1), moreGpuModels: models.slice(1), words };
}

export type Verb = 'list' | 'create' | 'start' | 'shutdown' | 'hibernate' | 'delete' | 'discontinue' | 'force_shutdown' | 'attach' | 'detach';

const VERBS: { verb: Verb; words: string[] }[] = [
  { verb: 'force_shutdown', words: ['force shutdown', 'force shut down', 'force stop', 'force-stop', 'force-shutdown', 'force power off'] },
  { verb: 'create', words: ['create', 'spin up', 'spin-up', 'launch', 'provision', 'deploy', 'make', 'set up', 'setup', 'bring up', 'fire up', 'start up', 'rent', 'order', 'add', 'new', 'get me', 'build', 'allocate'] },
  { verb: 'start', words: ['start', 'boot', 'power on', 'turn on', 'switch on', 'resume', 'wake up', 'restore'] },
  { verb: 'shutdown', words: ['shut down', 'shutdown', 'shut off', 'stop', 'power off', 'power down', 'turn off', 'switch off', 'halt'] },
  { verb: 'hibernate', words: ['hibernate', 'suspend'] },
  { verb: 'delete', words: ['delete', 'destroy', 'remove', 'terminate', 'get rid of', 'tear down', 'teardown', 'nuke', 'decommission'] },
  { verb: 'discontinue', words: ['discontinue'] },
  { verb: 'attach', words: ['attach', 'mount'] },
  { verb: 'detach', words: ['detach', 'unmount'] },
  { verb: 'list', words: ['list', 'show', 'display', 'what', "what's", 'which', 'how many', 'how much', 'are there', 'is there', 'do i have', 'tell me', 'get', 'see', 'view', 'check', 'print', 'fetch', 'find', 'describe', 'enumerate'] },
];

/** What the built-in planner can do, for refusals: "create, start, shut down, …". */
const PLANNER_VERBS = 'create, start, shut down, force-shut down, hibernate, delete, discontinue, attach, detach and list';

const verbMatcher = new TermMatcher(VERBS.flatMap(({ verb, words }) => words.map((term) => ({ term, data: verb }))));

export type ResourceObject = 'instance' | 'cluster' | 'volume' | 'other';

/** Catalogue kind → which thing a create/action verb acts on. */
function objectOfKind(kind: string): ResourceObject {
  if (kind === 'instances' || kind === 'instance-types') return 'instance';
  if (kind === 'clusters' || kind === 'cluster-types') return 'cluster';
  if (kind === 'volumes' || kind === 'volume-types') return 'volume';
  return 'other';
}

/**
 * Words the planner reads as a kind though the routing does not: "how much have I spent" plans a read
 * of the balance (the one account figure a read plan shows), while the answers read "spend" as the burn
 * (engine/providers/gpucloud/routing.ts COST_TERMS) and never answer it with the balance.
 */
const PLAN_ONLY_TERMS: Record<string, readonly string[]> = { balance: ['spend', 'spent'] };

/** Every word of a kind for the planner: its name, singular, aliases, routing terms and plan-only terms. */
const planWords = (k: (typeof KINDS)[number]) => [k.kind, k.singular, ...k.aliases, ...k.terms, ...(PLAN_ONLY_TERMS[k.kind] ?? [])];

/** Kind words: every kind's name, singular, aliases and routing terms (hyphens read as spaces). */
const kindMatcher = new TermMatcher(
  KINDS.flatMap((k) => {
    const words = new Set(planWords(k).map((w) => w.toLowerCase().replace(/-/g, ' ')));
    return [...words].map((term) => ({ term, data: k.kind }));
  }),
);

export function matchKinds(text: string): TermMatch<string>[] {
  return kindMatcher.match(text);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Location codes such as FIN-01: written in upper case, or after "in/at/location/region". */
const LOCATION_UPPER = /(?<![\w-])([A-Z]{2,5}-\d{1,3})(?![\w-])/;
const LOCATION_AFTER_WORD = /\b(?:in|at|location|region|datacenter|datacentre)\s+([A-Za-z]{2,5}-\d{1,3})(?![\w-])/i;
const SIZE = /(\d+(?:\.\d+)?)\s*(tib|tb|t|gib|gb|g)\b/i;
const NAME = /\b(?:called|named|name\s+it|hostname|with\s+(?:the\s+)?(?:host)?name|name)\s*[:=]?\s+["'`]?([A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)["'`]?/i;
const STOPWORDS = new Set(['a', 'an', 'the', 'my', 'it', 'all', 'every', 'everything', 'them', 'this', 'that', 'please', 'instance', 'instances', 'cluster', 'clusters', 'volume', 'volumes', 'vm', 'server', 'box', 'machine', 'and', 'to', 'in', 'on', 'of', 'for', 'with', 'now', 'called', 'named']);

/**
 * Words that carry no request of their own (articles, pronouns, politeness, auxiliaries). Whatever
 * else a request says must be explained by the grammar, or the built-in planner refuses it.
 */
export const FILLER = new Set(
  (
    'a an the my me mine i i\'d i\'m im whats what\'s we us our you your it its them they their this that these those some any all every each both ' +
    'please pls kindly can could would will should shall may might do does did is are was were be been being have has had ' +
    'to for with in at on of from into by as via using use and or also just now right currently again back up fresh new another ' +
    'like want need needs give let lets let\'s there here so too hey hi hello thanks thank ok okay quickly asap real ' +
    'called named name hostname type kind single default key current overview exist exists existing left about account ' +
    'deployed registered available running more info information details detail status state'
  ).split(' '),
);

/** A kind word inside a name ("box" in big-box, "a100" in demo-a100) is part of the name, not a kind. */
function insideName(text: string, start: number, end: number): boolean {
  return /[\p{L}\p{N}_][-.]$/u.test(text.slice(Math.max(0, start - 2), start)) || /^[-.][\p{L}\p{N}_]/u.test(text.slice(end, end + 2));
}

export function findUuids(text: string): string[] {
  return [...text.matchAll(UUID)].map((m) => m[0].toLowerCase());
}

/** "in the moon datacenter", "region mars": a location the catalogue check can refuse by name. */
const LOCATION_LOOSE = [
  /\b(?:in|at)\s+(?:the\s+)?["'`]?([\p{L}\p{N}][\p{L}\p{N}_-]*)["'`]?\s+(?:datacenter|datacentre|data\s+center|region|location|dc)\b/iu,
  /\b(?:datacenter|datacentre|region|location)\s+["'`]?(?!(?:is|are|was|with|and|or|for|to|of|in|on)\b)([\p{L}\p{N}][\p{L}\p{N}_-]*)/iu,
];

export function findLocation(text: string): string | undefined {
  const strict = LOCATION_AFTER_WORD.exec(text)?.[1] ?? LOCATION_UPPER.exec(text)?.[1];
  if (strict) return strict.toUpperCase();
  for (const re of LOCATION_LOOSE) {
    const m = re.exec(text)?.[1];
    if (m) return m.toUpperCase();
  }
  return undefined;
}

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, 'a couple of': 2, 'a pair of': 2 };
const VAGUE_COUNT = /\b(a few|several|some|many|multiple|a bunch of|lots of|a lot of)\s+(?:new\s+)?(?:[\w.]+\s+){0,2}?(instances|vms|servers|machines|boxes|nodes|volumes|disks|clusters)\b/i;
const COUNT = /(?<![\w.-])(\d+(?![\d.]|\s*(?:tib|tb|t|gib|gb|g|x|×)\b)|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a pair of)\s+(?:new\s+|more\s+|identical\s+|separate\s+|spot\s+)?(?:(?!(?:called|named|in|at|with)\b)[\w.-]+\s+){0,2}?(instances?|vms?|servers?|machines?|box(?:es)?|nodes?|volumes?|disks?|clusters?)\b/i;

/** How many resources a create asks for ("3 instances", "two H100 boxes"); NaN when vague ("a few"). */
export function findCount(text: string): { count: number; text: string; at: number } | undefined {
  const vague = VAGUE_COUNT.exec(text);
  if (vague) return { count: Number.NaN, text: vague[1]!, at: vague.index };
  const m = COUNT.exec(text);
  if (!m) return undefined;
  const word = m[1]!.toLowerCase();
  const count = /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS[word.replace(/\s+/g, ' ')]!;
  return { count, text: m[1]!, at: m.index };
}

const NAME_KEYWORD = /\b(?:called|named|name\s+it|names?|hostnames?|with\s+(?:the\s+)?(?:host)?names?)\s*[:=]?\s+/i;
const NAME_SHAPE = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?$/;

/** Every name in "called a1, a2 and a3" (stops at a word that is a verb, a resource or a filler word). */
export function findNames(text: string): string[] {
  const m = NAME_KEYWORD.exec(text);
  if (!m) return [];
  const tokens = text.slice(m.index + m[0].length).split(/(\s*,\s*|\s+)/).filter((t) => t.trim() !== '' || t.includes(','));
  const names: string[] = [];
  let expectName = true;
  for (const raw of tokens) {
    const t = raw.trim();
    if (t === ',' || t === '') {
      if (expectName) break;
      expectName = true;
      continue;
    }
    const word = t.replace(/^["'`]+|["'`?!.,;:]+$/g, '');
    if (!expectName) {
      if (/^(and|&)$/i.test(word)) {
        expectName = true;
        continue;
      }
      break;
    }
    // The first word after "called" is the name even when it is a filler word ("called default");
    // later ones must not be ("called a1 and a2 in FIN-01" stops at "in").
    const lower = word.toLowerCase();
    if (!NAME_SHAPE.test(word) || STOPWORDS.has(lower) || (names.length && FILLER.has(lower)) || verbMatcher.match(word).length) break;
    names.push(word);
    expectName = false;
  }
  return names;
}

export function findName(text: string): string | undefined {
  const m = NAME.exec(text);
  const name = m?.[1];
  return name && !STOPWORDS.has(name.toLowerCase()) ? name : undefined;
}

/** The size as written ("200 GB"), for accounting for the words of a request. */
export function findSizeText(text: string): string | undefined {
  return SIZE.exec(text)?.[0];
}

export function findSizeGb(text: string): number | undefined {
  const m = SIZE.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.round(/^t/i.test(m[2]!) ? n * 1000 : n);
}

export function findInstanceType(text: string): string | undefined {
  const m = new RegExp(INSTANCE_TYPE_CODE.source, INSTANCE_TYPE_CODE.flags).exec(text);
  return m?.[0].toUpperCase();
}

export function findClusterType(text: string): string | undefined {
  const upper = new RegExp(CLUSTER_TYPE_CODE.source, CLUSTER_TYPE_CODE.flags).exec(text);
  if (upper) return upper[0];
  // Accept lower-case codes such as 16h100 as long as they are not part of an instance-type code.
  const lower = /(?<![\p{L}\p{N}_.])(\d{1,3}[a-z]{1,3}\d{2,4})(?![\p{L}\p{N}_])(?!\.\d)/u.exec(text);
  return lower?.[1]?.toUpperCase();
}

const GPU_MODEL_ALL = /(?:\b(\d{1,2})\s*(?:x\s*|×\s*)?)?\b(h100|h200|b200|b300|a100|v100|l40s|a6000|rtx\s?6000(?:\s?ada)?|rtx\s?a6000|gh200)s?\b/gi;

/** GPU model words ("h100", "8x a100") for picking an instance type from the catalogue. */
export function findGpuModel(text: string): { model: string; count?: number; text: string } | undefined {
  const m = /(?:\b(\d{1,2})\s*(?:x\s*|×\s*)?)?\b(h100|h200|b200|b300|a100|v100|l40s|a6000|rtx\s?6000(?:\s?ada)?|rtx\s?a6000|gh200)s?\b/i.exec(text);
  if (!m) return undefined;
  return { model: m[2]!.replace(/\s+/g, '').toUpperCase(), count: m[1] ? Number(m[1]) : undefined, text: m[0] };
}

/** The word(s) after a verb, skipping articles and resource nouns: "shut down the instance train-1" → train-1. */
export function targetAfter(text: string, from: number): string | undefined {
  const rest = text.slice(from);
  const tokens = rest.split(/[\s,;]+/).map((t) => t.replace(/^["'`]+|["'`?!.,]+$/g, ''));
  for (const t of tokens) {
    if (!t) continue;
    if (STOPWORDS.has(t.toLowerCase())) continue;
    if (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(t)) return t;
    return undefined;
  }
  return undefined;
}

/** True when `text` contains a verb of the grammar ("delete", "shut down"). */
export function hasVerb(text: string): boolean {
  return verbMatcher.match(text).length > 0;
}

function firstVerb(text: string): TermMatch<Verb> | undefined {
  return verbMatcher.match(text)[0];
}

const NOUN_OBJECTS: { re: RegExp; object: ResourceObject }[] = [
  { re: /\b(instant\s+)?clusters?\b/i, object: 'cluster' },
  { re: /\b(volumes?|disks?|block storage|shared file system|sfs)\b/i, object: 'volume' },
  { re: /\b(instances?|vms?|servers?|box(es)?|machines?|gpus?|nodes?)\b/i, object: 'instance' },
];

/** What the request acts on: the first resource mentioned after the verb (codes count). */
function objectAfter(text: string, from: number): ResourceObject | undefined {
  const rest = text.slice(from);
  const candidates: { at: number; object: ResourceObject }[] = [];
  for (const m of matchKinds(rest)) {
    const o = objectOfKind(m.data);
    if (o !== 'other' || !['availability', 'balance'].includes(m.data)) candidates.push({ at: m.start, object: o });
  }
  const code = new RegExp(INSTANCE_TYPE_CODE.source, INSTANCE_TYPE_CODE.flags).exec(rest);
  if (code) candidates.push({ at: code.index, object: 'instance' });
  const ccode = new RegExp(CLUSTER_TYPE_CODE.source, CLUSTER_TYPE_CODE.flags).exec(rest);
  if (ccode) candidates.push({ at: ccode.index, object: 'cluster' });
  for (const { re, object } of NOUN_OBJECTS) {
    const m = re.exec(rest);
    if (m) candidates.push({ at: m.index, object });
  }
  // "instance types"/"cluster images" are matched as kinds; a kind "other" (ssh keys, secrets…) counts too.
  candidates.sort((a, b) => a.at - b.at);
  return candidates[0]?.object;
}

function mentions(text: string, re: RegExp): boolean {
  return re.test(text);
}

/** "shut train-1 down", "turn train-2 back on" → "shut down train-1", "turn on train-2". */
function joinSplitVerbs(text: string): string {
  return text.replace(/\b(shut|turn|power|switch)\s+([A-Za-z0-9][\w.-]*)\s+(?:back\s+)?(down|off|on)\b/i, '$1 $3 $2');
}

export function parseIntent(question: string): Intent {
  const text = joinSplitVerbs(normaliseQuestion(question).replace(/[?!]+$/, ''));
  const lower = text.toLowerCase();
  const verb = firstVerb(text);
  const typeCode = findInstanceType(text);
  let v: Verb | undefined = verb?.data;
  const after = verb ? verb.end : 0;

  // "start a new 1V100.6V instance" and "I need an 8H100.80S.176V named big" are creates.
  if (v === 'start' && (typeCode || /\bnew\b/i.test(text))) v = 'create';
  if (!v && typeCode && /\b(i need|i want|i'd like|give me|get me|need)\b/i.test(text)) v = 'create';

  if (v === 'create') {
    const object = objectAfter(text, after) ?? (typeCode ? 'instance' : undefined);
    const count = findCount(text)?.count;
    if (object === 'cluster') {
      return {
        type: 'create-cluster',
        count,
        clusterType: findClusterType(text),
        hostname: findName(text),
        location: findLocation(text),
        kubernetes: mentions(lower, /\b(kubernetes|k8s|kube)\b/),
      };
    }
    if (object === 'volume') {
      const attach = /\b(?:attach(?:ed)?|mount(?:ed)?)\s+(?:it\s+)?(?:to|on)\s+(?:the\s+)?(?:instance\s+|vm\s+|server\s+)?["'`]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9])/i.exec(text);
      const forInstance = /\b(?:for|on)\s+(?:the\s+)?(?:instance|vm|server)\s+["'`]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9])/i.exec(text);
      return {
        type: 'create-volume',
        name: findName(text),
        size: findSizeGb(text),
        volumeType: /\bhdd\b/i.test(text) ? 'HDD' : /\b(shared|sfs|nfs|shared file system)\b/i.test(text) ? 'NVMe_Shared' : 'NVMe',
        location: findLocation(text),
        attachTo: attach?.[1] ?? forInstance?.[1],
        count,
        // "… attach it to train-1 and shut it down first": the request allows stopping the instance.
        shutdownFirst: verbMatcher.match(text).some((m) => m.data === 'shutdown'),
      };
    }
    if (object === 'instance') {
      const gpu = typeCode ? undefined : findGpuModel(text);
      const counted = findCount(text);
      // "2 H100 instances" is two instances of one H100, "8x H100" one instance with eight.
      const sameNumber = gpu?.count !== undefined && counted && new RegExp(`(?<![\\w.])${counted.text}\\s+${gpu.model}`, 'i').test(text.replace(/\s+/g, ' '));
      const gpuCount = sameNumber ? undefined : gpu?.count;
      return {
        type: 'create-instance',
        instanceType: typeCode,
        gpuModel: gpu?.model,
        gpuCount,
        count: counted?.count,
        hostnames: findNames(text),
        location: findLocation(text),
        image: /\bimage\s+["'`]?([a-z0-9][a-z0-9_.-]*[a-z0-9])/i.exec(text)?.[1],
        spot: /\bspot\b/i.test(text),
        choices: findChoices(text),
      };
    }
    return { type: 'unsupported', reason: 'the built-in planner can create instances, Instant Clusters and volumes only' };
  }

  if (v === 'attach' || v === 'detach') {
    const volume = /\b(?:volume|disk)\s+["'`]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9])/i.exec(text.slice(after))?.[1];
    const instance = /\b(?:to|from|on)\s+(?:the\s+)?(?:instance\s+|vm\s+|server\s+)?["'`]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9])/i.exec(text.slice(after))?.[1];
    return { type: 'volume-action', action: v, volume: volume && !STOPWORDS.has(volume.toLowerCase()) ? volume : undefined, instance };
  }

  if (v === 'start' || v === 'shutdown' || v === 'hibernate' || v === 'delete' || v === 'discontinue' || v === 'force_shutdown') {
    const kinds = matchKinds(text).map((m) => m.data);
    const object: ResourceObject = kinds.includes('clusters') ? 'cluster' : kinds.includes('volumes') ? 'volume' : 'instance';
    const named = findName(text) ?? targetAfter(text, after);
    const all = /\b(all|every|everything)\b/i.test(text);
    if (object === 'cluster') {
      if (v !== 'delete' && v !== 'discontinue') return { type: 'unsupported', reason: 'Instant Clusters can only be discontinued' };
      return { type: 'discontinue-cluster', names: named ? [named] : [], ids: findUuids(text) };
    }
    if (object === 'volume') {
      if (v !== 'delete') return { type: 'unsupported', reason: 'volumes can be created, attached, detached or deleted' };
      const volume = /\b(?:volume|disk)\s+["'`]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9])/i.exec(text)?.[1];
      return { type: 'volume-action', action: 'delete', volume: volume && !STOPWORDS.has(volume.toLowerCase()) ? volume : named };
    }
    const status = /\b(running|offline|stopped|hibernated|idle)\b/i.exec(text)?.[1]?.toLowerCase();
    return {
      type: 'instance-action',
      action: v,
      names: named && !all ? [named] : [],
      ids: findUuids(text),
      all,
      status: status === 'stopped' ? 'offline' : status === 'idle' ? 'running' : status,
    };
  }

  // Reading: list/show anything in the catalogue.
  const matched = matchKinds(text).filter((m) => !insideName(text, m.start, m.end));
  let kinds = [...new Set(matched.map((m) => m.data))];
  const availabilityByWord = matched.some((m) => m.data === 'availability' && /^available$/i.test(m.text));
  // Status words ("running", "idle") are instance terms, but "clusters running" is about clusters.
  const instancesOnlyByStatus = matched.filter((m) => m.data === 'instances').every((m) => /^(running|idle)$/i.test(m.text));
  if (instancesOnlyByStatus && kinds.length > 1) kinds = kinds.filter((k) => k !== 'instances');
  if (availabilityByWord && kinds.length > 1) {
    // "which instance types are available" asks for availability; "what locations are available" for locations.
    kinds = kinds.includes('instance-types') ? kinds.filter((k) => k !== 'instance-types') : kinds.filter((k) => k !== 'availability');
  }
  if (kinds.length && (v === 'list' || !v)) {
    // Words left over are names of records to show ("show instance train-2"); the planner checks them.
    const byLocation = kinds.some((k) => k === 'availability' || k === 'cluster-availability');
    const location = byLocation ? findLocation(text) : undefined;
    const names = unexplainedWords(text, { verbs: [], reading: true, values: location ? [location] : [] });
    return { type: 'list', kinds, location, names };
  }
  // "rename demo-a100 to big": a request that starts with a verb the planner lacks is about that verb, not about a missing resource.
  const leading = /^[a-z]+/i.exec(text)?.[0].toLowerCase();
  const unknownVerb = !v && leading && !STOPWORDS.has(leading) && !matchKinds(leading).length && !/^(i|we|you|please|can|could|would|should)$/.test(leading);
  return {
    type: 'unsupported',
    reason: v
      ? `the built-in planner does not know how to "${verb!.text}" that`
      : unknownVerb
        ? `the built-in planner does not know how to "${leading}" (it can ${PLANNER_VERBS})`
        : 'the request names no gpucloud resource the built-in planner knows',
  };
}

/** Every kind word of the catalogue, matched everywhere (overlaps included) so that none is left over. */
let kindPatterns: { kind: string; re: RegExp }[] | undefined;
/** Built on first use: every CLI command loads this module, few plan. */
function kindPatternList(): { kind: string; re: RegExp }[] {
  kindPatterns ??= KINDS.flatMap((k) =>
    [...new Set(planWords(k).map((w) => w.toLowerCase().replace(/-/g, ' ')))].map((w) => ({ kind: k.kind, re: termPattern(w) })),
  );
  return kindPatterns;
}
const NOUN_KIND: Record<ResourceObject, string> = { instance: 'instances', cluster: 'clusters', volume: 'volumes', other: '' };

const VALUE_PATTERNS: RegExp[] = [
  new RegExp(INSTANCE_TYPE_CODE.source, INSTANCE_TYPE_CODE.flags),
  new RegExp(CLUSTER_TYPE_CODE.source, CLUSTER_TYPE_CODE.flags + 'i'),
  UUID,
  /(\d+(?:\.\d+)?)\s*(tib|tb|t|gib|gb|g)\b/gi,
  /(?:\b\d{1,2}\s*(?:x\s*|×\s*)?)?\b(h100|h200|b200|b300|a100|v100|l40s|a6000|rtx\s?6000(?:\s?ada)?|rtx\s?a6000|gh200)s?\b/gi,
];

export interface Explained {
  /** Verbs the plan carries out besides the first one ("attach" in "create a volume and attach it"). */
  verbs: Verb[];
  /** A read: every reading verb is explained, and change verbs only as "can I deploy". */
  reading?: boolean;
  /** Values the plan uses as written: names, hostnames, image, location, type, size, quantity words. */
  values: string[];
  /** Catalogue kinds whose words the plan accounts for (a change); a read accounts for every kind. */
  kinds?: string[];
}

/** Curly quotes and odd spaces read as plain ones. */
export function normaliseQuestion(question: string): string {
  return question.replace(/[“”„«»]/g, '"').replace(/[‘’‚]/g, "'").replace(/[\u00a0\u2000-\u200b\u202f\u3000]/g, ' ').trim();
}

/**
 * The words of a request that neither the grammar nor the plan accounts for ("rename", "poem",
 * "then delete it"). The built-in planner refuses a request with any: a plan that does less or
 * other than asked must not pass for the answer.
 */
export function unexplainedWords(question: string, explained: Explained): string[] {
  const text = joinSplitVerbs(normaliseQuestion(question));
  const mask = Array.from(text, () => false);
  const cover = (start: number, end: number) => {
    for (let i = start; i < end; i++) mask[i] = true;
  };
  const verbs = verbMatcher.match(text);
  verbs.forEach((m, i) => {
    const modal = /\b(?:can|could|may)\s+(?:i|we)\s+$|\bto\s+$/i.test(text.slice(0, m.start));
    const ok = i === 0 || explained.verbs.includes(m.data) || (explained.reading && (m.data === 'list' || modal));
    if (ok) cover(m.start, m.end);
  });
  const glued = (start: number, end: number) => insideName(text, start, end);
  const kinds = explained.reading ? undefined : new Set(explained.kinds ?? []);
  const patterns = [
    ...kindPatternList().filter((p) => !kinds || kinds.has(p.kind)).map((p) => p.re),
    ...NOUN_OBJECTS.filter((n) => !kinds || kinds.has(NOUN_KIND[n.object])).map((n) => n.re),
    // A read names types, sizes and ids freely; a change explains each value it uses (explained.values).
    ...(kinds ? [] : VALUE_PATTERNS),
  ];
  for (const re of patterns) {
    for (const m of text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'))) {
      if (!glued(m.index, m.index + m[0].length)) cover(m.index, m.index + m[0].length);
    }
  }
  for (const value of explained.values.filter(Boolean)) {
    for (const m of text.matchAll(termPattern(value))) cover(m.index, m.index + m[0].length);
  }
  const rest = Array.from(text, (c, i) => (mask[i] ? ' ' : c)).join('');
  return rest
    .split(/[^\p{L}\p{N}_.'’-]+/u)
    .map((w) => w.replace(/^[.'’-]+|[.'’-]+$/g, ''))
    .filter((w) => w && !FILLER.has(w.toLowerCase().replace(/’/g, "'")));
}
