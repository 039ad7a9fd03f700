/**
 * The small grammar of the built-in planner: it reads a request into an Intent, deterministically
 * and offline. Resource words come from the resource catalogue (kind names, aliases and terms);
 * verbs and the few value patterns (instance-type codes, location codes, sizes, names) are here.
 */
import { KINDS } from '../gpucloud/catalogue.js';
import { TermMatcher, type TermMatch } from '../routing/match.js';
import { CLUSTER_TYPE_CODE, INSTANCE_TYPE_CODE } from '../routing/terms.js';

export type InstanceAction = 'start' | 'shutdown' | 'hibernate' | 'delete' | 'discontinue' | 'force_shutdown';

export type Intent =
  | { type: 'list'; kinds: string[]; location?: string; names: string[] }
  | { type: 'create-instance'; instanceType?: string; gpuModel?: string; gpuCount?: number; hostname?: string; location?: string; image?: string; spot: boolean }
  | { type: 'instance-action'; action: InstanceAction; names: string[]; ids: string[]; all: boolean; status?: string }
  | { type: 'create-cluster'; clusterType?: string; hostname?: string; location?: string; kubernetes: boolean }
  | { type: 'discontinue-cluster'; names: string[]; ids: string[] }
  | { type: 'create-volume'; name?: string; size?: number; volumeType: string; location?: string; attachTo?: string }
  | { type: 'volume-action'; action: 'attach' | 'detach' | 'delete'; volume?: string; instance?: string }
  | { type: 'unsupported'; reason: string };

type Verb = 'list' | 'create' | 'start' | 'shutdown' | 'hibernate' | 'delete' | 'discontinue' | 'force_shutdown' | 'attach' | 'detach';

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

const verbMatcher = new TermMatcher(VERBS.flatMap(({ verb, words }) => words.map((term) => ({ term, data: verb }))));

export type ResourceObject = 'instance' | 'cluster' | 'volume' | 'other';

/** Catalogue kind → which thing a create/action verb acts on. */
function objectOfKind(kind: string): ResourceObject {
  if (kind === 'instances' || kind === 'instance-types') return 'instance';
  if (kind === 'clusters' || kind === 'cluster-types') return 'cluster';
  if (kind === 'volumes' || kind === 'volume-types') return 'volume';
  return 'other';
}

/** Kind words: every kind's name, singular, aliases and routing terms (hyphens read as spaces). */
const kindMatcher = new TermMatcher(
  KINDS.flatMap((k) => {
    const words = new Set([k.kind, k.singular, ...k.aliases, ...k.terms].map((w) => w.toLowerCase().replace(/-/g, ' ')));
    return [...words].map((term) => ({ term, data: k.kind }));
  }),
);

export function matchKinds(text: string): TermMatch<string>[] {
  return kindMatcher.match(text);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Location codes such as FIN-01: written in upper case, or after "in/at/location/region". */
const LOCATION_UPPER = /(?<![\w-])([A-Z]{3}-\d{2})(?![\w-])/;
const LOCATION_AFTER_WORD = /\b(?:in|at|location|region|datacenter|datacentre)\s+([A-Za-z]{3}-\d{2})(?![\w-])/i;
const SIZE = /(\d+(?:\.\d+)?)\s*(tib|tb|t|gib|gb|g)\b/i;
const NAME = /\b(?:called|named|name\s+it|hostname|with\s+(?:the\s+)?(?:host)?name|name)\s*[:=]?\s+["'`]?([A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)["'`]?/i;
const STOPWORDS = new Set(['a', 'an', 'the', 'my', 'it', 'all', 'every', 'everything', 'them', 'this', 'that', 'please', 'instance', 'instances', 'cluster', 'clusters', 'volume', 'volumes', 'vm', 'server', 'box', 'machine', 'and', 'to', 'in', 'on', 'of', 'for', 'with', 'now', 'called', 'named']);

export function findUuids(text: string): string[] {
  return [...text.matchAll(UUID)].map((m) => m[0].toLowerCase());
}

export function findLocation(text: string): string | undefined {
  return (LOCATION_AFTER_WORD.exec(text)?.[1] ?? LOCATION_UPPER.exec(text)?.[1])?.toUpperCase();
}

export function findName(text: string): string | undefined {
  const m = NAME.exec(text);
  const name = m?.[1];
  return name && !STOPWORDS.has(name.toLowerCase()) ? name : undefined;
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

/** GPU model words ("h100", "8x a100") for picking an instance type from the catalogue. */
export function findGpuModel(text: string): { model: string; count?: number } | undefined {
  const m = /(?:\b(\d{1,2})\s*(?:x\s*|×\s*)?)?\b(h100|h200|b200|b300|a100|v100|l40s|a6000|rtx\s?6000(?:\s?ada)?|rtx\s?a6000|gh200)\b/i.exec(text);
  if (!m) return undefined;
  return { model: m[2]!.replace(/\s+/g, '').toUpperCase(), count: m[1] ? Number(m[1]) : undefined };
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
  const text = joinSplitVerbs(question.trim().replace(/[?!]+$/, ''));
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
    if (object === 'cluster') {
      return {
        type: 'create-cluster',
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
      };
    }
    if (object === 'instance') {
      const gpu = typeCode ? undefined : findGpuModel(text);
      return {
        type: 'create-instance',
        instanceType: typeCode,
        gpuModel: gpu?.model,
        gpuCount: gpu?.count,
        hostname: findName(text),
        location: findLocation(text),
        image: /\bimage\s+["'`]?([a-z0-9][a-z0-9_.-]*[a-z0-9])/i.exec(text)?.[1],
        spot: /\bspot\b/i.test(text),
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
  const matched = matchKinds(text);
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
    const candidate = findName(text) ?? targetAfter(text, after);
    return { type: 'list', kinds, location: findLocation(text), names: candidate ? [candidate] : [] };
  }
  return {
    type: 'unsupported',
    reason: v ? `the built-in planner does not know how to "${verb!.text}" that` : 'the request names no gpucloud resource the built-in planner knows',
  };
}
