/**
 * What a question asks, as far as the built-in answers (answer.ts) understand it: which kinds, which
 * named resources, filters (status with or without "not", location, GPU or CPU, GPU model, spot), a
 * superlative ("cheapest"), an attribute of a named resource ("the IP of demo-a100"), a yes/no or
 * "how many" form. Every word must be understood: the ones that are not are returned in `unknown`,
 * and the answerer declines such a question instead of answering another one (a list of everything
 * for "which instances were created by Bob").
 *
 * Names come from the data just read (hostnames, volume names, type codes), kinds from the routing
 * terms (engine/core/routing/), the rest from the small lexicon below.
 */
import { KINDS, type KindSpec } from '../../providers/gpucloud/catalogue.js';
import type { TermMatch } from '../../core/routing/match.js';
import type { RouteTerm } from '../../core/routing/terms.js';
import { COST_KIND } from '../../providers/gpucloud/routing.js';
import { currencyOf, findComparisons, PERIOD_OF, SLASH_PERIOD, slashPeriod, type Comparison, type Period } from './amounts.js';

export type Attribute = 'ip' | 'status' | 'type' | 'location' | 'price' | 'spot_price' | 'size' | 'created' | 'id' | 'image' | 'gpus' | 'memory' | 'name';

export interface Superlative {
  attribute: Attribute;
  /** true: the most (most expensive, largest, newest); false: the least. */
  highest: boolean;
  /** As written ("cheapest", "most expensive"). */
  words: string;
}

export interface StatusFilter {
  status: string;
  /** "not attached", "aren't running", "unattached". */
  not: boolean;
}

export interface NamedRecord {
  kind: string;
  spec: KindSpec;
  record: Record<string, unknown>;
  /** The name as written in the question. */
  text: string;
  /** Where it is written first. */
  at?: number;
}

export interface Question {
  text: string;
  /** Starts like "is …", "are …", "do I have …": answered with Yes or No first. */
  yesNo: boolean;
  /** "how many", "number of". */
  count: boolean;
  statuses: StatusFilter[];
  /** Location codes named (FIN-01), upper case. */
  locations: string[];
  processor?: 'gpu' | 'cpu';
  /** GPU models named (h100, a100…), lower case. */
  models: string[];
  spot: boolean;
  superlative?: Superlative;
  attributes: Attribute[];
  named: NamedRecord[];
  /** Catalogue kinds the question names (its words and its named resources), in question order. */
  kinds: string[];
  costAsked: boolean;
  /** The period a rate is asked for ("per day", "monthly"); "how many days" asks for a duration in days. */
  period?: Period;
  /** "more than 2 USD per hour", "at least 2 GPUs". */
  comparisons: Comparison[];
  /** Currencies named ("USD", "$"): the answers use the account's and convert nothing. */
  currencies: string[];
  /** "total", "in all", "altogether": a sum. */
  total: boolean;
  /** "how many GPUs": the GPUs counted, not the resources that have them. */
  gpuCount: boolean;
  /** "how long", "how many days": a duration (the runway is the one the answers know). */
  duration: boolean;
  /** "them", "they", "those": with no subject of its own, the question is about the last answer's (talk). */
  pronoun: boolean;
  /**
   * Resources named like a word of the lexicon ("big", "cost", "most"), where the question has them: read
   * here as words; each is another reading of the question with that one read as the name (answer.ts).
   */
  wordNames: { at: number; name: string }[];
  /** Words that say something the answers cannot work out, with why ("idle": the API does not say). */
  unanswerable: { word: string; why: string }[];
  /** Words not understood at all. */
  unknown: string[];
  /** A "not" that no status word follows or precedes. */
  strayNegation: boolean;
}

/** Words that carry no meaning for the answer. */
const STOP = new Set(
  `a an the my me i i'm im i've ive we our ours us you your yours is are am was were be been being do does did have has had got get gets
  there here what what's whats which who whose whom how show shows list lists give tell display see find all any every each some of in on at for
  to from with and or also please right now currently current presently at moment today it its it's they them their theirs these those this
  that one ones per can could would should will i'd id want like know let lets let's about currently exist exists existing left remaining money
  rent rented use using used own owned anything something things stuff go going on up pay paying paid much many does anywhere somewhere`.split(/\s+/),
);

const NEGATION = new Set(["not", 'no', 'non', 'never', "isn't", 'isnt', "aren't", 'arent', "don't", 'dont', "doesn't", 'doesnt', "haven't", 'havent', "hasn't", 'hasnt', "wasn't", 'wasnt', "weren't", 'werent']);

const YES_NO_START = new Set(['is', 'are', 'am', 'do', 'does', 'did', 'can', 'could', 'has', 'have', 'was', 'were', 'will', "isn't", "aren't", "don't", "doesn't"]);

/** Status words as the API writes them, and the words people use for them. */
const STATUS_WORDS: Record<string, { status: string; not?: boolean }> = {
  running: { status: 'running' },
  offline: { status: 'offline' },
  stopped: { status: 'offline' },
  provisioning: { status: 'provisioning' },
  ordered: { status: 'ordered' },
  hibernated: { status: 'hibernated' },
  hibernating: { status: 'hibernating' },
  error: { status: 'error' },
  failed: { status: 'error' },
  discontinued: { status: 'discontinued' },
  attached: { status: 'attached' },
  detached: { status: 'detached' },
  unattached: { status: 'attached', not: true },
  healthy: { status: 'healthy' },
  paused: { status: 'paused' },
};

/** A word naming an attribute (of a named resource, or what a superlative ranks by). */
const ATTRIBUTE_WORDS: Record<string, Attribute> = {
  ip: 'ip', ips: 'ip', address: 'ip', addresses: 'ip',
  status: 'status', state: 'status',
  type: 'type',
  location: 'location', where: 'location', region: 'location', datacenter: 'location',
  price: 'price', prices: 'price', pricing: 'price', cost: 'price', costs: 'price', expensive: 'price',
  spot: 'spot_price',
  size: 'size', big: 'size', large: 'size',
  created: 'created', when: 'created', age: 'created', old: 'created',
  id: 'id', ids: 'id', uuid: 'id',
  image: 'image', os: 'image',
  memory: 'memory', ram: 'memory',
  hostname: 'name', name: 'name',
};

/** Superlatives: the attribute they rank by (or the one the next word names: "most expensive") and which end. */
const SUPERLATIVES: Record<string, { attribute?: Attribute; highest: boolean }> = {
  cheapest: { attribute: 'price', highest: false },
  priciest: { attribute: 'price', highest: true },
  dearest: { attribute: 'price', highest: true },
  largest: { attribute: 'size', highest: true },
  biggest: { attribute: 'size', highest: true },
  smallest: { attribute: 'size', highest: false },
  newest: { attribute: 'created', highest: true },
  latest: { attribute: 'created', highest: true },
  youngest: { attribute: 'created', highest: true },
  oldest: { attribute: 'created', highest: false },
  most: { highest: true },
  highest: { highest: true },
  least: { highest: false },
  fewest: { highest: false },
  lowest: { highest: false },
};
/** What follows "most"/"least": "most expensive", "most recent", "most GPUs". */
const RANKED_BY: Record<string, Attribute> = { expensive: 'price', price: 'price', cost: 'price', recent: 'created', gpus: 'gpus', gpu: 'gpus', memory: 'memory', ram: 'memory', size: 'size' };

const PROCESSOR: Record<string, 'gpu' | 'cpu'> = { gpu: 'gpu', gpus: 'gpu', cpu: 'cpu', cpus: 'cpu' };

/** Words that point back at the last answer's subjects ("which of them…"). */
const PRONOUNS = new Set(['them', 'they', 'those', 'these', 'their', 'theirs', 'it', 'its', "it's", 'ones']);

/** A sum: "the total hourly cost", "how many GPUs in all". */
const TOTAL_WORDS = new Set(['total', 'sum', 'altogether', 'combined', 'overall', 'together']);

/** Where the account's past spending is: not in what the answers read (they know the burn now). */
const PAST_SPEND = 'what was spent before now is not in what was read (`assistant cost trend` shows past days; `assistant cost detail` estimates each resource\'s cost so far)';

/** Words the answers understand but cannot answer from what the API returns. */
const UNANSWERABLE: Record<string, string> = {
  spent: PAST_SPEND,
  paid: PAST_SPEND,
  idle: 'the API does not show whether an instance is in use',
  busy: 'the API does not show whether an instance is in use',
  utilization: 'the API does not report utilisation',
  utilisation: 'the API does not report utilisation',
  usage: 'the API does not report usage',
  load: 'the API does not report load',
};

/** GPU models among the catalogue's instance-type terms (h100, a100, rtx6000…): they filter types. */
const GPU_MODEL = /^(?:[a-z]+\d{2,4}[a-z]*|rtx\d+[a-z]*)$/;

const LOCATION_CODE = /(?<![\p{L}\p{N}_-])[A-Za-z]{3}-\d{2}(?![\p{L}\p{N}_-])/gu;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Kinds of the account's own resources: a kind word after one's name ("the data volume") says which it is. */
const OWN_KINDS = ['instances', 'volumes', 'clusters'];

/** Kinds whose records are named in questions; availability and locations are answered through location codes. */
const NAMED_KINDS = new Set(KINDS.filter((k) => !['balance', 'availability', 'cluster-availability', 'locations'].includes(k.kind)).map((k) => k.kind));

export interface UnderstandInput {
  /** The context results (catalogue kind and data). */
  results: readonly { kind?: string; data: unknown }[];
  /** The question's routing term matches (engine/core/routing/route.ts questionTerms). */
  terms: readonly TermMatch<RouteTerm>[];
  /** More words the routing understood (config keywords) and the other clouds' resource words. */
  knownWords?: Iterable<string>;
  /** Read the resource named like a word at this offset (one of `wordNames`) as its name. */
  nameAt?: number;
}

/** A name written in quotes ("big", `big`) is a name, whatever else the word means. */
function quoted(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  return before !== undefined && after !== undefined && `"'\`“‘«`.includes(before) && `"'\`”’»`.includes(after);
}

export function understand(text: string, input: UnderstandInput): Question {
  const q: Question = {
    text,
    yesNo: false,
    count: /\bhow many\b|\bnumber of\b/i.test(text),
    statuses: [],
    locations: [],
    models: [],
    spot: false,
    attributes: [],
    named: [],
    kinds: [],
    costAsked: false,
    comparisons: [],
    currencies: [],
    total: false,
    gpuCount: false,
    duration: false,
    pronoun: false,
    wordNames: [],
    unanswerable: [],
    unknown: [],
    strayNegation: false,
  };
  const taken: [number, number][] = [];
  const free = (start: number, end: number) => !taken.some(([s, e]) => start < e && s < end);
  const kindsAt: { at: number; kind: string }[] = [];
  // "what is running": a status word that is also a kind's term names the kind only when nothing else does.
  const statusKinds: { at: number; kind: string }[] = [];
  const attributeKinds: { at: number; kind: string }[] = [];
  const modelKinds: { at: number; kind: string }[] = [];
  // Status words among the terms ("running"): read in order with the other words, so "not" before them counts.
  const statusTerms: { at: number; text: string; status: string; not: boolean }[] = [];

  // 1. Resources named by their name or ID, longest first ("demo-a100" before the GPU word "a100").
  const candidates: { name: string; named: Omit<NamedRecord, 'text'> }[] = [];
  for (const r of input.results) {
    const spec = r.kind ? KINDS.find((k) => k.kind === r.kind) : undefined;
    if (!spec || !NAMED_KINDS.has(spec.kind)) continue;
    for (const record of Array.isArray(r.data) ? r.data : [r.data]) {
      if (!isRec(record)) continue;
      for (const field of new Set([spec.nameField, spec.idField, 'id'])) {
        const value = field ? record[field] : undefined;
        if (typeof value === 'string' && value.length >= 2 && !/^\d+$/.test(value)) candidates.push({ name: value, named: { kind: spec.kind, spec, record } });
      }
    }
  }
  // A resource named like a word of the lexicon ("my", "running") would hijack every question using it.
  const termWords = new Set(input.terms.filter((t) => !t.data.kind?.endsWith('-types') || t.term === t.text.toLowerCase()).map((t) => t.text.toLowerCase()));
  // Function words ("my", "per") are never read as names unless written as one; content words ("big",
  // "cost", "most") are read both ways, one reading per place (answer.ts keeps the reading that answers).
  const functionWord = (n: string) => STOP.has(n) || NEGATION.has(n) || n in PERIOD_OF || TOTAL_WORDS.has(n) || currencyOf(n) !== undefined;
  const contentWord = (n: string) => n in STATUS_WORDS || n in ATTRIBUTE_WORDS || n in SUPERLATIVES || n in PROCESSOR || n in UNANSWERABLE || termWords.has(n);
  // A kind's own words before the name ("instance big", "volume data") say it is a name.
  const kindWords = (kind: string) => {
    const spec = KINDS.find((k) => k.kind === kind);
    return spec ? [spec.kind, spec.singular, ...spec.aliases].map((w) => w.toLowerCase().replace(/-/g, ' ')) : [];
  };
  const writtenAsName = (c: (typeof candidates)[number], start: number, end: number) => {
    if (quoted(text, start, end)) return true;
    const before = /([\p{L}][\p{L}\s-]*?)\s+$/u.exec(text.slice(Math.max(0, start - 40), start))?.[1]?.toLowerCase().replace(/-/g, ' ');
    return before !== undefined && kindWords(c.named.kind).some((w) => before === w || before.endsWith(` ${w}`));
  };
  // "The data volume": a kind word right after a name says which kind the name is of. A resource of
  // another kind with that name ("data" is an instance) is not the one asked about.
  const kindAfter = (end: number) => {
    const next = /^\s+([\p{L}]+)(?![\p{L}\p{N}_-])/u.exec(text.slice(end))?.[1]?.toLowerCase();
    return next ? OWN_KINDS.find((k) => kindWords(k).includes(next)) : undefined;
  };
  const wrongKind: { at: number; end: number; word: string; why: string }[] = [];
  candidates.sort((a, b) => b.name.length - a.name.length);
  for (const c of candidates) {
    const lower = c.name.toLowerCase();
    const asWord = functionWord(lower) ? 'function' : contentWord(lower) ? 'content' : undefined;
    const re = new RegExp(`(?<![\\p{L}\\p{N}_.-])${escape(c.name)}(?![\\p{L}\\p{N}_-]|\\.[\\p{L}\\p{N}])`, 'giu');
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (!free(m.index, m.index + m[0].length)) continue;
      // Function words ("my instances") are never names unless quoted, whatever follows them.
      const after = OWN_KINDS.includes(c.named.kind) && asWord !== 'function' ? kindAfter(m.index + m[0].length) : undefined;
      if (after && after !== c.named.kind) {
        const other = KINDS.find((k) => k.kind === after)!.singular;
        wrongKind.push({ at: m.index, end: m.index + m[0].length, word: `${m[0]} ${other}`, why: `${m[0]} is ${/^[aeiou]/.test(c.named.spec.singular) ? 'an' : 'a'} ${c.named.spec.singular}, and there is no ${other} called ${m[0]}` });
        continue;
      }
      if (asWord && !writtenAsName(c, m.index, m.index + m[0].length) && !(after && after === c.named.kind) && input.nameAt !== m.index) {
        if (asWord === 'content' && !q.wordNames.some((w) => w.at === m!.index)) q.wordNames.push({ at: m.index, name: m[0] });
        continue;
      }
      taken.push([m.index, m.index + m[0].length]);
      if (!q.named.some((n) => n.record === c.named.record)) q.named.push({ ...c.named, text: m[0], at: m.index });
      kindsAt.push({ at: m.index, kind: c.named.kind });
    }
  }

  // A name followed by another kind's word that no resource of that kind has: said, not read as either.
  for (const w of wrongKind) {
    if (!free(w.at, w.end)) continue;
    taken.push([w.at, w.end]);
    q.unanswerable.push({ word: w.word, why: w.why });
  }

  // 2. Location codes.
  for (const m of text.matchAll(LOCATION_CODE)) {
    if (!free(m.index!, m.index! + m[0].length)) continue;
    taken.push([m.index!, m.index! + m[0].length]);
    const code = m[0].toUpperCase();
    if (!q.locations.includes(code)) q.locations.push(code);
  }

  // 2b. Comparisons with a number ("more than 2 USD"), and periods after a slash ("2 USD/hour").
  const found = findComparisons(text);
  for (const c of found.comparisons) {
    if (!free(c.start, c.end)) continue;
    taken.push([c.start, c.end]);
    q.comparisons.push(c);
    if (c.currency && !q.currencies.includes(c.currency)) q.currencies.push(c.currency);
  }
  for (const p of found.problems) q.unanswerable.push(p);
  for (const m of text.matchAll(SLASH_PERIOD)) {
    if (!free(m.index!, m.index! + m[0].length)) continue;
    taken.push([m.index!, m.index! + m[0].length]);
    q.period = slashPeriod(m[1]!);
  }

  // 3. The routing terms: kinds, cost phrases, provider names; some of them also say more.
  for (const t of input.terms) {
    if (!free(t.start, t.end)) continue;
    taken.push([t.start, t.end]);
    const word = t.text.toLowerCase().replace(/[\s_-]+/g, ' ');
    if (t.data.kind === COST_KIND) q.costAsked = true;
    const status = STATUS_WORDS[word];
    if (status) statusTerms.push({ at: t.start, text: t.text, status: status.status, not: Boolean(status.not) });
    if (UNANSWERABLE[word]) q.unanswerable.push({ word: t.text, why: UNANSWERABLE[word]! });
    if (/\bspot\b/.test(word)) q.spot = true;
    // "the price of demo-a100": a kind word that is also an attribute asks for the attribute when a resource is named.
    const attribute = ATTRIBUTE_WORDS[word];
    if (attribute) q.attributes.push(attribute);
    const model = t.data.provider === 'gpucloud' && t.data.kind === 'instance-types' && GPU_MODEL.test(word);
    if (model) q.models.push(word);
    // Which list a kind goes to: a status word names its kind only when nothing else does; a word that is
    // also an attribute ("price") only when no resource is named; a GPU model ("H100") not when GPUs are counted.
    const list = status ? statusKinds : attribute ? attributeKinds : model ? modelKinds : kindsAt;
    if (t.data.kind && t.data.kind !== COST_KIND) list.push({ at: t.start, kind: t.data.kind });
  }

  // 4. Every other word, by the lexicon.
  const known = new Set([...(input.knownWords ?? [])].map((w) => w.toLowerCase()));
  // A word may hold - . _ inside (a resource name: "demo-data"); a status term stands in the word list as itself.
  type Word = { 0: string; index: number; status?: { status: string; not: boolean } };
  const words: Word[] = [
    ...[...text.matchAll(/[\p{L}\p{N}](?:[\p{L}\p{N}'’._-]*[\p{L}\p{N}])?/gu)].filter((m) => free(m.index!, m.index! + m[0].length)).map((m): Word => ({ 0: m[0], index: m.index! })),
    ...statusTerms.map((t): Word => ({ 0: t.text, index: t.at, status: { status: t.status, not: t.not } })),
  ].sort((a, b) => a.index - b.index);
  const first = /[\p{L}\p{N}][\p{L}\p{N}'’]*/u.exec(text)?.[0].toLowerCase().replace('’', "'");
  q.yesNo = first !== undefined && YES_NO_START.has(first);
  const typesAt: { at: number; kind: string }[] = [];
  let pendingNot = false;
  let pendingRank: { highest: boolean; words: string } | undefined;
  // "GPUs" as a noun (not "GPU instances"): counted themselves in "how many GPUs" or "GPUs in total".
  let gpuNoun = false;
  // "Most"/"least" with no attribute after it: after a price word ("what costs the most") it ranks by price.
  const unresolvedRank = (rank: { highest: boolean; words: string }) => {
    const i = q.attributes.lastIndexOf('price');
    if (i === -1 || q.superlative) return void q.unknown.push(rank.words);
    q.attributes.splice(i, 1);
    q.superlative = { attribute: 'price', highest: rank.highest, words: rank.highest ? 'most expensive' : 'cheapest' };
  };
  for (let i = 0; i < words.length; i++) {
    const raw = words[i]![0];
    const w = raw.toLowerCase().replace('’', "'");
    const termStatus = words[i]!.status;
    if (termStatus) {
      if (pendingRank) {
        unresolvedRank(pendingRank);
        pendingRank = undefined;
      }
      q.statuses.push({ status: termStatus.status, not: termStatus.not !== pendingNot });
      pendingNot = false;
      continue;
    }
    if (pendingRank) {
      const attribute = RANKED_BY[w];
      if (attribute) {
        q.superlative = { attribute, highest: pendingRank.highest, words: `${pendingRank.words} ${raw}` };
        pendingRank = undefined;
        continue;
      }
      unresolvedRank(pendingRank);
      pendingRank = undefined;
    }
    if (NEGATION.has(w)) {
      pendingNot = true;
      continue;
    }
    const status = STATUS_WORDS[w];
    if (status) {
      q.statuses.push({ status: status.status, not: Boolean(status.not) !== pendingNot });
      pendingNot = false;
      continue;
    }
    if (w === 'shut' && words[i + 1]?.[0].toLowerCase() === 'down') {
      q.statuses.push({ status: 'offline', not: pendingNot });
      pendingNot = false;
      i++;
      continue;
    }
    const superlative = SUPERLATIVES[w];
    if (superlative) {
      if (superlative.attribute) q.superlative = { attribute: superlative.attribute, highest: superlative.highest, words: raw };
      else pendingRank = { highest: superlative.highest, words: raw };
      continue;
    }
    // "When will my money run out": about the account, the one time they know is when the balance runs
    // out; about a resource ("when was big created") it is its creation time.
    if (w === 'when' && q.costAsked && !q.named.length) {
      q.duration = true;
      continue;
    }
    if (w === 'how' && words[i + 1]?.[0].toLowerCase() === 'long') {
      q.duration = true; // "how long will my balance last"
      i++;
      continue;
    }
    const period = PERIOD_OF[w];
    const previous = words[i - 1]?.[0].toLowerCase();
    // A period of a rate ("per day", "a month", "daily") or of a duration ("how many days"); "last week" is neither.
    if (period && (/ly$/.test(w) || ['per', 'a', 'an', 'each', 'every', 'many'].includes(previous ?? ''))) {
      if (previous === 'many') q.duration = true;
      q.period = period;
      continue;
    }
    if (TOTAL_WORDS.has(w)) {
      q.total = true;
      continue;
    }
    if (PRONOUNS.has(w)) {
      q.pronoun = true;
      continue;
    }
    const currency = currencyOf(w);
    if (currency) {
      if (!q.currencies.includes(currency)) q.currencies.push(currency);
      continue;
    }
    if (w === 'how' && words[i + 1]?.[0].toLowerCase() === 'much') {
      q.attributes.push('price');
      i++;
      continue;
    }
    if (UNANSWERABLE[w]) {
      q.unanswerable.push({ word: raw, why: UNANSWERABLE[w]! });
      continue;
    }
    if (PROCESSOR[w]) {
      // "how many GPUs does 8A100.176V have" asks an attribute; "how many GPUs are running" counts GPUs;
      // otherwise ("GPU instances", "which GPUs are available") GPU or CPU narrows the list.
      const end = words[i]!.index + raw.length;
      const next = end + (/^\s*/.exec(text.slice(end))?.[0].length ?? 0);
      const beforeKind = kindsAt.some((k) => k.at === next) || words[i + 1]?.[0].toLowerCase() === 'types';
      if (q.count && q.named.length) q.attributes.push('gpus');
      else {
        q.processor = PROCESSOR[w];
        if (PROCESSOR[w] === 'gpu' && !beforeKind) gpuNoun = true;
      }
      continue;
    }
    if (ATTRIBUTE_WORDS[w]) {
      if (w === 'spot') q.spot = true;
      else q.attributes.push(ATTRIBUTE_WORDS[w]!);
      continue;
    }
    if (w === 'types') {
      // "which CPU types…": instance types, unless the question names another kind (then its types are folded in).
      typesAt.push({ at: words[i]!.index, kind: 'instance-types' });
      continue;
    }
    if (w === 'number' || w === 'count') {
      q.count = true;
      continue;
    }
    if (STOP.has(w) || known.has(w)) continue;
    q.unknown.push(raw);
  }
  if (pendingRank) unresolvedRank(pendingRank);
  // "not" with no status after it: "which volumes are attached and not …" or "not" about something else.
  q.strayNegation = pendingNot;
  if (gpuNoun && (q.count || q.total) && !q.duration) {
    q.gpuCount = true;
    q.processor = undefined;
  }
  q.attributes = [...new Set(q.attributes)];
  if (!q.named.length) kindsAt.push(...attributeKinds);
  if (!q.gpuCount) kindsAt.push(...modelKinds);
  // "Which of them are running": the status word names no kind when a pronoun stands for the subject
  // (the last answer's, in talk); without one the question names nothing and is declined.
  const named = kindsAt.length ? [...kindsAt, ...typesAt] : typesAt.length ? typesAt : q.pronoun ? [] : statusKinds;
  q.kinds = [...new Set(named.sort((a, b) => a.at - b.at).map((k) => k.kind))];
  q.named.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  return q;
}
