/**
 * Answers without a model (the `builtin` AI profile, the sandbox's default): from the results of the
 * read-only context plan, for the questions engine/producers/planner/question.ts understands: lists and counts of
 * any catalogue kind, filtered by status (also "not …"), location, GPU or CPU, GPU model, spot; yes/no
 * questions ("is 8H100.80S.176V available in FIN-01?", "is demo-a100 running?"); superlatives ("the
 * cheapest GPU available in FIN-01"); an attribute of a named resource ("the IP of demo-a100"); the
 * balance and what the account burns.
 *
 * It answers exactly or not at all: a question with a word it does not understand, or a part it cannot
 * apply to what it read ("volumes in FIN-01" where volumes have no location), is declined with the
 * reason and a hint to configure an AI provider (BuiltinCannotAnswer, exit 2), never answered with a
 * list that merely looks related.
 */
import { KINDS, normalizeApiPath, type KindSpec } from '../../providers/gpucloud/catalogue.js';
import { costSummary } from '../../providers/gpucloud/cost.js';
import { sortResources } from '../cost/live.js';
import { InvalidInputError } from '../../core/errors.js';
import { AWS_READS, awsReadOf } from '../../providers/cloud_a/reads.js';
import { answerAwsResults } from '../../providers/cloud_a/answer.js';
import { TermMatcher } from '../../core/routing/match.js';
import { routeTerms, type RouteTerm } from '../../core/routing/terms.js';
import type { AnswerCapability, RouteSummary } from '../../core/capabilities.js';
import { GPUCLOUD_ROUTING } from '../../providers/gpucloud/routing.js';
import { BUILTIN_ANSWER_HINT } from './hint.js';
import { understand, type Attribute, type NamedRecord, type Question } from './question.js';

export interface StepResult {
  /** The plan step's args (`["gpucloud-api", METHOD, PATH, BODY?]`); or method/path given directly. */
  args?: string[];
  method?: string;
  path?: string;
  /** Catalogue kind, when the caller already knows it. */
  kind?: string;
  /** Parsed response body. */
  data: unknown;
}

/** The built-in answers cannot answer this question exactly; nothing was guessed (exit 2). */
export class BuiltinCannotAnswer extends InvalidInputError {
  constructor(why: string) {
    super('builtin_cannot_answer', `the built-in answers (no AI model) cannot answer this exactly: ${why}; nothing was guessed`, { hint: BUILTIN_ANSWER_HINT });
  }
}

type Rec = Record<string, unknown>;
type Feature = 'status' | 'location' | 'processor' | 'models' | 'spot' | 'superlative' | 'attributes';

const MAX_NAMES = 20;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function field(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Rec)[part] : undefined;
  return v;
}

function nameOf(spec: KindSpec, record: unknown): string {
  const n = spec.nameField ? field(record, spec.nameField) : undefined;
  const id = field(record, spec.idField) ?? field(record, 'id');
  return String(n ?? id ?? '?');
}

function plural(n: number, singular: string, pluralWord: string): string {
  return `${n} ${n === 1 ? singular : pluralWord}`;
}

function listNames(names: string[]): string {
  return names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES).join(', ')} and ${names.length - MAX_NAMES} more` : names.join(', ');
}

function both(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function money(value: unknown, currency: unknown): string {
  const n = typeof value === 'number' ? value : Number(value);
  const c = typeof currency === 'string' ? currency.toUpperCase() : '';
  return `${Number.isFinite(n) ? n.toFixed(2) : String(value)}${c ? ` ${c}` : ''}`;
}

/** Hourly prices: cents, or four decimals below 0.10 so a 0.0279 CPU node does not read as 0.03. */
function hourly(value: unknown, currency: unknown): string {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 && n < 0.1 ? `${n.toFixed(4)}${typeof currency === 'string' ? ` ${currency.toUpperCase()}` : ''}` : money(value, currency);
}

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

function kindOfPath(path: string): { spec: KindSpec; single: boolean } | undefined {
  const clean = normalizeApiPath(path);
  const list = KINDS.find((k) => k.path === clean);
  if (list) return { spec: list, single: false };
  for (const k of KINDS) {
    if (!k.getPath) continue;
    const re = new RegExp(`^${k.getPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{id\\}', '[^/]+')}$`);
    if (re.test(clean)) return { spec: k, single: true };
  }
  return undefined;
}

function specOf(result: StepResult): KindSpec | undefined {
  const path = result.path ?? result.args?.[2];
  return (path ? kindOfPath(path)?.spec : undefined) ?? (result.kind ? KINDS.find((k) => k.kind === result.kind) : undefined);
}

/** Words for a kind: "instance types", "instance type". */
const words = (spec: KindSpec) => ({ many: spec.kind.replace(/-/g, ' '), one: spec.singular.replace(/-/g, ' ') });

// ---------------------------------------------------------------------------------------------
// Attributes: where each lives in each kind's records, and how it reads.

interface AttributeSpec {
  label: string;
  /** The field of a record of this kind, or undefined when the kind has none. */
  path(kind: string): string | undefined;
  show(value: unknown, record: Rec): string;
}

const TYPE_FIELD: Record<string, string> = { instances: 'instance_type', clusters: 'cluster_type', volumes: 'type', 'instance-types': 'instance_type', 'cluster-types': 'cluster_type' };
const PRICE_FIELD: Record<string, string> = { instances: 'price_per_hour', clusters: 'price_per_hour', volumes: 'base_hourly_cost', 'instance-types': 'price_per_hour', 'cluster-types': 'price_per_hour', 'container-types': 'serverless_price' };

const ATTRIBUTES: Record<Attribute, AttributeSpec> = {
  ip: { label: 'IP address', path: (k) => (k === 'instances' || k === 'clusters' ? 'ip' : undefined), show: String },
  status: { label: 'status', path: (k) => (['instances', 'clusters', 'volumes', 'containers', 'jobs'].includes(k) ? 'status' : undefined), show: String },
  type: { label: 'type', path: (k) => TYPE_FIELD[k], show: String },
  location: { label: 'location', path: (k) => (['instances', 'clusters', 'volumes'].includes(k) ? 'location' : undefined), show: String },
  price: { label: 'price', path: (k) => PRICE_FIELD[k], show: (v, r) => `${hourly(v, r.currency ?? 'usd')}/hour` },
  spot_price: { label: 'spot price', path: (k) => (k === 'instance-types' ? 'spot_price' : undefined), show: (v, r) => `${hourly(v, r.currency ?? 'usd')}/hour` },
  size: { label: 'size', path: (k) => (k === 'volumes' ? 'size' : undefined), show: (v) => `${String(v)} GB` },
  created: { label: 'creation time', path: (k) => (['instances', 'clusters', 'volumes', 'ssh-keys', 'scripts'].includes(k) ? 'created_at' : undefined), show: (v) => when(String(v)) },
  id: { label: 'ID', path: (k) => KINDS.find((s) => s.kind === k)?.idField, show: String },
  image: { label: 'image', path: (k) => (k === 'instances' || k === 'clusters' ? 'image' : undefined), show: (v) => (isRec(v) ? String(v.image_type ?? v.name ?? v.id) : String(v)) },
  gpus: { label: 'GPUs', path: (k) => (['instances', 'instance-types', 'clusters', 'cluster-types'].includes(k) ? 'gpu.number_of_gpus' : undefined), show: (v, r) => `${String(v)}${typeof field(r, 'gpu.description') === 'string' ? ` (${String(field(r, 'gpu.description'))})` : ''}` },
  memory: { label: 'memory', path: (k) => (['instances', 'instance-types', 'clusters', 'cluster-types'].includes(k) ? 'memory.size_in_gigabytes' : undefined), show: (v) => `${String(v)} GB` },
  name: { label: 'name', path: (k) => KINDS.find((s) => s.kind === k)?.nameField, show: String },
};

/** "demo-a100 costs 1.29 USD/hour.", "8A100.176V has 8 GPUs (8x A100 SXM4 80GB).", "demo-a100's IP address is …". */
function attributeSentence(name: string, attribute: Attribute, value: unknown, record: Rec): string {
  const spec = ATTRIBUTES[attribute];
  if (!present(value)) return `${name} has no ${spec.label}.`;
  switch (attribute) {
    case 'price': {
      const spot = record.spot_price;
      return `${name} costs ${spec.show(value, record)}${present(spot) ? ` (spot ${hourly(spot, record.currency ?? 'usd')}/hour)` : ''}.`;
    }
    case 'gpus':
      return `${name} has ${String(value)} GPU${Number(value) === 1 ? '' : 's'}${typeof field(record, 'gpu.description') === 'string' ? ` (${String(field(record, 'gpu.description'))})` : ''}.`;
    case 'memory':
      return `${name} has ${String(value)} GB of memory.`;
    case 'status':
      return `${name} is ${String(value)}.`;
    case 'location':
      return `${name} is in ${String(value)}.`;
    case 'created':
      return `${name} was created ${spec.show(value, record)}.`;
    case 'size':
      return `${name} is ${spec.show(value, record)}.`;
    default:
      return `${name}'s ${spec.label} is ${spec.show(value, record)}.`;
  }
}

/** A value as a superlative shows it: "8 GPUs", "500 GB", "0.39 USD/hour", "created 2026-11-23 19:20 UTC". */
function rankedValue(attribute: Attribute, value: unknown, record: Rec): string {
  if (attribute === 'gpus') return `${String(value)} GPU${Number(value) === 1 ? '' : 's'}`;
  if (attribute === 'created') return `created ${when(String(value))}`;
  return ATTRIBUTES[attribute].show(value, record);
}

/** "The cheapest GPU instance type" or, for "most GPUs", "The GPU instance type with the most GPUs". */
function rankedSubject(words: string, noun: string, own: boolean): string {
  const lead = own ? 'Your' : 'The';
  return /^(most|least|fewest|highest|lowest) (?!expensive|recent)/i.test(words) ? `${lead} ${noun} with the ${words.toLowerCase().replace(/\bgpus?\b/, 'GPUs')}` : `${lead} ${words.toLowerCase()} ${noun}`;
}

function attributeValue(kind: string, attribute: Attribute, record: Rec): { has: boolean; value?: unknown } {
  const path = ATTRIBUTES[attribute].path(kind);
  if (!path) return { has: false };
  return { has: true, value: field(record, path) };
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function rank(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value);
    if (value.trim() !== '' && Number.isFinite(n)) return n;
    const t = Date.parse(value);
    if (Number.isFinite(t)) return t;
  }
  return Number.NaN;
}

// ---------------------------------------------------------------------------------------------

/** What one answer part used of the question, so a part of the question nothing used is caught. */
class Use {
  readonly features = new Set<Feature>();
  add(...f: Feature[]): void {
    for (const x of f) this.features.add(x);
  }
}

interface Ctx {
  q: Question;
  use: Use;
  /** Instance and cluster types read alongside (for GPU or CPU, models, prices). */
  types: Map<string, Rec>;
}

/** GPU or CPU, and the GPU model, of a type code (the type's record when it was read, else its code). */
function typeMatches(ctx: Ctx, code: unknown): boolean {
  if (typeof code !== 'string') return false;
  const t = ctx.types.get(code);
  const gpus = Number(field(t, 'gpu.number_of_gpus'));
  const cpuOnly = /^CPU\./i.test(code) || (t !== undefined && Number.isFinite(gpus) && gpus === 0);
  if (ctx.q.processor === 'gpu' && cpuOnly) return false;
  if (ctx.q.processor === 'cpu' && !cpuOnly) return false;
  const description = `${code} ${String(field(t, 'gpu.description') ?? '')} ${String(field(t, 'model') ?? '')}`.toLowerCase();
  return ctx.q.models.every((m) => description.includes(m));
}

/** The adjectives and place the filters add to a noun: "spot GPU instances", "in FIN-01". */
function describe(ctx: Ctx, used: Set<Feature>, noun: string): { noun: string; where: string } {
  const adjectives = [
    used.has('spot') ? 'spot' : '',
    used.has('models') ? ctx.q.models.map((m) => m.toUpperCase()).join('/') : '',
    used.has('processor') ? (ctx.q.processor === 'gpu' ? 'GPU' : 'CPU') : '',
  ].filter(Boolean);
  const where = used.has('location') ? ` in ${both(ctx.q.locations)}` : '';
  return { noun: [...adjectives, noun].join(' '), where };
}

const statusText = (q: Question) => both(q.statuses.map((s) => `${s.not ? 'not ' : ''}${s.status}`));

/** A list of records of one kind, filtered and ranked as asked. */
function answerList(ctx: Ctx, spec: KindSpec, records: Rec[], own: boolean): string {
  const { q } = ctx;
  const used = new Set<Feature>();
  let rows = records;
  if (q.locations.length && ATTRIBUTES.location.path(spec.kind)) {
    rows = rows.filter((r) => q.locations.includes(String(r.location ?? '').toUpperCase()));
    used.add('location');
  }
  const typeField = TYPE_FIELD[spec.kind];
  if ((q.processor || q.models.length) && (typeField || spec.kind === 'clusters')) {
    rows = rows.filter((r) => typeMatches(ctx, r[typeField ?? 'cluster_type']));
    if (q.processor) used.add('processor');
    if (q.models.length) used.add('models');
  }
  if (q.spot && spec.kind === 'instances') {
    rows = rows.filter((r) => r.is_spot === true || r.contract === 'SPOT');
    used.add('spot');
  }
  // The status last, so "none of your 2 GPU instances is running" counts the ones it looked at.
  const before = rows;
  if (q.statuses.length && spec.columns.some((c) => c.path === 'status')) {
    rows = rows.filter((r) => q.statuses.every((s) => (r.status === s.status) !== s.not));
    used.add('status');
  }
  const w = words(spec);
  const { noun, where } = describe(ctx, used, w.many);
  const one = describe(ctx, used, w.one).noun;
  const names = (rs: Rec[]) => listNames(rs.map((r) => nameOf(spec, r)));
  const yes = (ok: boolean) => (q.yesNo ? (ok ? 'Yes: ' : 'No: ') : '');
  const lead = (ok: boolean, sentence: string) => (q.yesNo ? `${yes(ok)}${sentence.replace(/^You /, 'you ')}` : sentence);

  if (q.superlative) {
    const s = q.superlative;
    const path = ATTRIBUTES[s.attribute].path(spec.kind);
    if (!path) return finish(ctx, used, undefined);
    used.add('superlative');
    const valued = rows.filter((r) => Number.isFinite(rank(field(r, path))));
    if (!valued.length) return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}${rows.length ? ` with a known ${ATTRIBUTES[s.attribute].label}` : ''}.`));
    const best = valued.reduce((b, r) => (s.highest ? Math.max(b, rank(field(r, path))) : Math.min(b, rank(field(r, path)))), s.highest ? -Infinity : Infinity);
    const top = valued.filter((r) => rank(field(r, path)) === best);
    const shown = rankedValue(s.attribute, field(top[0], path), top[0]!);
    const that = used.has('status') ? ` that ${top.length === 1 ? 'is' : 'are'} ${statusText(q)}` : '';
    const subject = `${rankedSubject(s.words, top.length === 1 ? one : noun, own)}${that}${where}`;
    return finish(ctx, used, `${subject} ${top.length === 1 ? 'is' : 'are'} ${both(top.map((r) => nameOf(spec, r)))} (${shown}${top.length > 1 ? ' each' : ''}).`);
  }

  // "the IPs of my instances": each record with the attributes asked.
  const attrs = q.attributes.filter((a) => ATTRIBUTES[a].path(spec.kind));
  if (q.attributes.length && attrs.length === q.attributes.length) used.add('attributes');

  if (!rows.length) {
    if (!before.length) return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}.`));
    if (used.has('status')) return finish(ctx, used, lead(false, `None of ${own ? 'your' : 'the'} ${plural(before.length, one, noun)}${where} is ${statusText(q)}.`));
    return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}.`));
  }
  const count = plural(rows.length, one, noun);
  let head: string;
  if (used.has('status')) head = `${count} ${rows.length === 1 ? 'is' : 'are'} ${statusText(q)}${where}`;
  else if (used.size) head = own ? `You have ${count}${where}` : `${count}${where}`.replace(/^./, (c) => c.toUpperCase());
  else {
    // No filter: the whole kind, with its statuses counted as before.
    const statuses = rows.map((r) => r.status).filter((s): s is string => typeof s === 'string');
    if (statuses.length) {
      const counts = new Map<string, number>();
      for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
      const parts = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([s, n]) => `${n} ${s}`);
      head = `You have ${plural(rows.length, w.one, w.many)}: ${parts.join(', ')}`;
    } else head = `${plural(rows.length, w.one, w.many)}`.replace(/^./, (c) => c.toUpperCase());
  }
  if (q.count) return finish(ctx, used, lead(true, `${head}.`));
  if (attrs.length && used.has('attributes')) {
    const lines = rows.slice(0, MAX_NAMES).map((r) => `- ${nameOf(spec, r)}: ${attrs.map((a) => {
      const v = attributeValue(spec.kind, a, r).value;
      return `${ATTRIBUTES[a].label} ${present(v) ? ATTRIBUTES[a].show(v, r) : 'none'}`;
    }).join(', ')}`);
    if (rows.length > MAX_NAMES) lines.push(`- … and ${rows.length - MAX_NAMES} more`);
    return finish(ctx, used, [lead(true, `${head}:`), ...lines].join('\n'));
  }
  if (used.size) return finish(ctx, used, lead(true, `${head}: ${names(rows)}.`));
  const lines = [lead(true, `${head}.`)];
  if (spec.kind === 'instances' || spec.kind === 'clusters') {
    for (const r of rows.slice(0, MAX_NAMES)) {
      const details = [r[spec.kind === 'instances' ? 'instance_type' : 'cluster_type'], r.location, r.status].filter((x) => typeof x === 'string');
      lines.push(`- ${nameOf(spec, r)}${details.length ? ` (${details.join(', ')})` : ''}`);
    }
    if (rows.length > MAX_NAMES) lines.push(`- … and ${rows.length - MAX_NAMES} more`);
  } else lines.push(names(rows));
  return finish(ctx, used, lines.join('\n'));
}

function finish(ctx: Ctx, used: Set<Feature>, text: string | undefined): string {
  ctx.use.add(...used);
  return text ?? '';
}

/** One named resource: the attributes asked, a yes/no about its status, or its summary line. */
function answerNamed(ctx: Ctx, named: NamedRecord[]): string[] {
  const { q } = ctx;
  const out: string[] = [];
  for (const n of named) {
    const name = nameOf(n.spec, n.record);
    if (q.attributes.length) {
      const values = q.attributes.map((a) => ({ a, ...attributeValue(n.kind, a, n.record) }));
      if (values.some((v) => !v.has)) continue; // "the IP of a volume": left to the check below
      ctx.use.add('attributes');
      for (const v of values) out.push(attributeSentence(name, v.a, v.value, n.record));
      continue;
    }
    if (q.statuses.length && typeof n.record.status === 'string') {
      ctx.use.add('status');
      const holds = q.statuses.every((s) => (n.record.status === s.status) !== s.not);
      const prefix = q.yesNo ? (holds ? 'Yes: ' : 'No: ') : '';
      out.push(`${prefix}${name} is ${String(n.record.status)}${holds && q.statuses.some((s) => s.not) ? ` (not ${q.statuses.filter((s) => s.not).map((s) => s.status).join(' or ')})` : ''}.`);
      continue;
    }
    if (q.yesNo) continue; // a yes/no about something else: declined below
    out.push(summary(n.spec, n.record));
  }
  return out;
}

/** One record in a line: status, type, location, IP; a type with its GPUs and prices. */
function summary(spec: KindSpec, data: Rec): string {
  const name = nameOf(spec, data);
  if (spec.kind === 'instance-types' || spec.kind === 'cluster-types') {
    const gpu = field(data, 'gpu.description');
    const spot = data.spot_price;
    const price = present(data.price_per_hour) ? `${hourly(data.price_per_hour, data.currency ?? 'usd')}/hour` : '';
    const spotText = present(spot) ? `spot ${hourly(spot, data.currency ?? 'usd')}/hour` : '';
    return `${words(spec).one} ${name}: ${[gpu, price, spotText].filter((x) => typeof x === 'string' && x).join(', ')}.`;
  }
  const details = ['status', 'instance_type', 'cluster_type', 'location', 'ip']
    .map((k) => [k, field(data, k)] as const)
    .filter(([, v]) => typeof v === 'string' && v)
    .map(([k, v]) => `${k.replace('_', ' ')} ${v}`);
  return `${words(spec).one} ${name}${details.length ? `: ${details.join(', ')}` : ''}.`;
}

/**
 * Availability is one record per location with the types on sale there; prices are in the types read
 * with it. Answers which types are available (filtered by location, GPU or CPU, model), whether named
 * types are ("is 8H100.80S.176V available in FIN-01?"), how many, and the cheapest or dearest.
 */
function answerAvailability(ctx: Ctx, spec: KindSpec, data: unknown, typeSpec: KindSpec | undefined): string {
  const { q } = ctx;
  const per = spec.rowsPer!;
  const used = new Set<Feature>();
  const all = (Array.isArray(data) ? data : []).filter(isRec);
  const typeWord = spec.kind === 'cluster-availability' ? 'cluster type' : 'type';
  const namedTypes = q.named.filter((n) => n.kind === typeSpec?.kind).map((n) => String(n.record[n.spec.idField]));
  if (q.locations.length) used.add('location');
  const locations = q.locations.length ? q.locations : all.map((a) => String(a.location_code));
  const availableIn = (t: string) => all.filter((a) => Array.isArray(a[per.field]) && (a[per.field] as unknown[]).map(String).includes(t)).map((a) => String(a.location_code));
  const priceOf = (t: string) => {
    const rec = ctx.types.get(t);
    if (!rec) return '';
    const spot = rec.spot_price;
    return `${hourly(rec.price_per_hour, rec.currency ?? 'usd')}/hour${present(spot) ? `, spot ${hourly(spot, rec.currency ?? 'usd')}/hour` : ''}`;
  };
  if (q.attributes.every((a) => a === 'price' || a === 'spot_price')) used.add('attributes');
  if (q.spot) used.add('spot');

  // Named types: yes or no, where.
  if (namedTypes.length) {
    const lines = namedTypes.map((t) => {
      const where = availableIn(t);
      const here = where.filter((l) => locations.includes(l));
      if (q.locations.length) {
        if (here.length) return `${q.yesNo ? 'Yes: ' : ''}${t} is available in ${both(here)}${priceOf(t) ? ` (${priceOf(t)})` : ''}${here.length < q.locations.length ? `, not in ${both(q.locations.filter((l) => !here.includes(l)))}` : ''}.`;
        return `${q.yesNo ? 'No: ' : ''}${t} is not available in ${both(q.locations)} right now${where.length ? `; it is available in ${both(where)}` : ' nor anywhere else'}.`;
      }
      return where.length ? `${q.yesNo ? 'Yes: ' : ''}${t} is available in ${both(where)}${priceOf(t) ? ` (${priceOf(t)})` : ''}.` : `${q.yesNo ? 'No: ' : ''}${t} is not available anywhere right now.`;
    });
    return finish(ctx, used, lines.join('\n'));
  }

  if (q.processor) used.add('processor');
  if (q.models.length) used.add('models');
  const shownLocations = all.filter((a) => locations.includes(String(a.location_code)));
  const typesIn = (loc: Rec) => (Array.isArray(loc[per.field]) ? (loc[per.field] as unknown[]).map(String) : []).filter((t) => typeMatches(ctx, t));
  const { noun } = describe(ctx, used, `${typeWord}s`);
  const one = describe(ctx, used, typeWord).noun;

  if (q.superlative) {
    const s = q.superlative;
    const path = ATTRIBUTES[s.attribute].path(typeSpec?.kind ?? '');
    if (!path) return finish(ctx, used, undefined);
    used.add('superlative');
    const offered = [...new Set(shownLocations.flatMap(typesIn))].filter((t) => Number.isFinite(rank(field(ctx.types.get(t), path))));
    const where = q.locations.length ? ` in ${both(q.locations)}` : '';
    if (!offered.length) return finish(ctx, used, `No ${noun} are available${where} right now.`);
    const best = offered.reduce((b, t) => (s.highest ? Math.max(b, rank(field(ctx.types.get(t), path))) : Math.min(b, rank(field(ctx.types.get(t), path)))), s.highest ? -Infinity : Infinity);
    const top = offered.filter((t) => rank(field(ctx.types.get(t), path)) === best);
    const gpu = (t: string) => (typeof field(ctx.types.get(t), 'gpu.description') === 'string' ? ` (${String(field(ctx.types.get(t), 'gpu.description'))})` : '');
    const value = rankedValue(s.attribute, field(ctx.types.get(top[0]!), path), ctx.types.get(top[0]!)!);
    const valueText = s.attribute === 'price' ? ` at ${value}${top.length > 1 ? ' each' : ''}` : ` (${value}${top.length > 1 ? ' each' : ''})`;
    return finish(ctx, used, `${rankedSubject(s.words, top.length === 1 ? one : noun, false)} available${where} ${top.length === 1 ? 'is' : 'are'} ${both(top.map((t) => `${t}${gpu(t)}`))}${valueText}.`);
  }

  if (!shownLocations.length) return finish(ctx, used, `${q.yesNo ? 'No: ' : ''}No ${noun} are available${q.locations.length ? ` in ${both(q.locations)}` : ''} right now.`);
  const total = shownLocations.reduce((n, loc) => n + typesIn(loc).length, 0);
  // Locations with none of the types asked for are said only when the question named them.
  const listed = q.locations.length || !total ? shownLocations : shownLocations.filter((loc) => typesIn(loc).length);
  const lines: string[] = [];
  if (q.yesNo) lines.push(total ? 'Yes:' : 'No:');
  for (const loc of listed) {
    const list = typesIn(loc);
    const code = String(loc.location_code);
    if (!list.length) {
      lines.push(`No ${noun} are available in ${code} right now.`);
      continue;
    }
    if (q.count) {
      lines.push(`${plural(list.length, one, noun)} ${list.length === 1 ? 'is' : 'are'} available in ${code}.`);
      continue;
    }
    lines.push(`Available in ${code} (${plural(list.length, one, noun)}):`);
    for (const t of list) {
      const rec = ctx.types.get(t);
      const gpu = field(rec, 'gpu.description') ?? field(rec, 'model');
      lines.push(`- ${t}${typeof gpu === 'string' && gpu ? ` (${gpu})` : ''}${rec ? `: ${priceOf(t)}` : ''}`);
    }
  }
  return finish(ctx, used, lines.join('\n').replace(/^(Yes:|No:)\n(.)/, (_, yn: string, c: string) => `${yn} ${yn === 'No:' ? c.toLowerCase() : c}`));
}

/** Which parts of the question were used by some answer; the first that was not, in words. */
function unusedPart(q: Question, use: Use): string | undefined {
  const missing = (f: Feature) => !use.features.has(f);
  if (q.statuses.length && missing('status')) return `it asks about ${statusText(q)}, which none of ${q.kinds.join(', ') || 'what it read'} has`;
  if (q.locations.length && missing('location')) return `it cannot tell which of them are in ${both(q.locations)}`;
  if (q.processor && missing('processor')) return `it cannot tell ${q.processor.toUpperCase()} from other resources there`;
  if (q.models.length && missing('models')) return `it cannot filter by ${q.models.join(', ').toUpperCase()} there`;
  if (q.spot && missing('spot')) return 'it cannot tell spot resources there';
  if (q.superlative && missing('superlative')) return `it cannot rank ${q.kinds.join(', ') || 'them'} as "${q.superlative.words}"`;
  if (q.attributes.length && missing('attributes')) return `it cannot read the ${both([...new Set(q.attributes)].map((a) => ATTRIBUTES[a].label))} of ${q.named.length ? both(q.named.map((n) => n.text)) : q.kinds.join(', ') || 'that'}`;
  return undefined;
}

export interface AnswerOptions {
  /** The routing decision: its terms (config keywords included) are understood words. */
  route?: RouteSummary;
  /** Words other sources understand (the cloud_a reads' words). */
  knownWords?: Iterable<string>;
  /** A question that names no kind may be answered with what was read (instances and balance): a provider flag or name chose gpucloud. */
  overview?: boolean;
  /** Other parts (cloud_a, a terraform workspace) answer too, so gpucloud needs no kind of its own. */
  answeredElsewhere?: boolean;
}

/** Apply results (a POST or PUT of a plan): said plainly, no question to understand. */
function answerChange(result: StepResult): string {
  const method = (result.method ?? result.args?.[1] ?? 'GET').toUpperCase();
  const spec = specOf(result);
  const data = result.data;
  const id = typeof data === 'string' ? data : field(data, 'id');
  const what = spec?.singular.replace(/-/g, ' ') ?? 'request';
  if (method === 'POST') return `Created ${what}${typeof id === 'string' && id ? ` ${id}` : ''}.`;
  let action: unknown;
  try {
    const body = result.args?.[3] ? JSON.parse(result.args[3]) : undefined;
    action = field(body, 'action') ?? field(field(body, 'actions'), '0.action');
  } catch {
    action = undefined;
  }
  return `Done: ${typeof action === 'string' ? `${action} ` : ''}${what}${method === 'DELETE' ? ' deleted' : ''}.`;
}

type Typed = { r: StepResult; spec: KindSpec };

function typedResults(results: StepResult[]): Typed[] {
  return results
    .filter((r) => r.args?.[0] !== 'gpucloud-wait')
    .map((r) => ({ r, spec: specOf(r) }))
    .filter((x): x is Typed => Boolean(x.spec));
}

/** gpucloud's answer parts for an understood question; what they used goes into `use`. */
function answerGpuCloud(q: Question, typed: Typed[], use: Use, opts: AnswerOptions): string[] {
  const types = new Map<string, Rec>();
  for (const x of typed) {
    if ((x.spec.kind === 'instance-types' || x.spec.kind === 'cluster-types') && Array.isArray(x.r.data)) {
      for (const t of x.r.data) if (isRec(t)) types.set(String(t[x.spec.idField]), t);
    }
  }
  const ctx: Ctx = { q, use, types };
  const dataOf = (kind: string) => typed.find((x) => x.spec.kind === kind)?.r.data;
  const parts: string[] = [];

  // The kinds to answer: the ones the question names; availability folds in the types read with it.
  let kinds = q.kinds.filter((k) => typed.some((x) => x.spec.kind === k));
  const folded = new Set(kinds.flatMap((k) => KINDS.find((s) => s.kind === k)?.readWith ?? []));
  kinds = kinds.filter((k) => !folded.has(k));
  if (!kinds.length && !q.costAsked) {
    // "what am I paying for" with --gpucloud: what was read is the answer; about another provider's words: theirs is.
    if (opts.overview) kinds = typed.map((x) => x.spec.kind);
    else if (opts.answeredElsewhere) return [];
    else throw new BuiltinCannotAnswer('it names nothing they know (instances, volumes, clusters, types, availability, locations, the balance, what you spend…)');
  }
  if (q.costAsked) parts.push(answerCost(typed.map((x) => ({ kind: x.spec.kind, data: x.r.data }))));
  for (const kind of kinds) {
    const spec = KINDS.find((s) => s.kind === kind)!;
    const data = dataOf(kind);
    if (kind === 'balance') {
      const amount = Number(field(data, 'amount'));
      parts.push(`${q.yesNo ? (amount > 0 ? 'Yes: ' : 'No: ') : ''}Your balance is ${money(field(data, 'amount'), field(data, 'currency'))}.`);
      if (q.attributes.length && q.attributes.every((a) => a === 'price')) use.add('attributes');
      continue;
    }
    if (spec.rowsPer) {
      const typeSpec = KINDS.find((s) => spec.readWith?.includes(s.kind));
      parts.push(answerAvailability(ctx, spec, data, typeSpec));
      continue;
    }
    const named = q.named.filter((n) => n.kind === kind);
    if (named.length) {
      parts.push(...answerNamed(ctx, named));
      continue;
    }
    const own = !['instance-types', 'cluster-types', 'container-types', 'volume-types', 'images', 'cluster-images', 'locations', 'long-term-periods'].includes(kind);
    if (Array.isArray(data)) parts.push(answerList(ctx, spec, data.filter(isRec), own));
    else if (isRec(data)) parts.push(...(q.attributes.length || q.statuses.length || q.yesNo ? answerNamed(ctx, [{ kind, spec, record: data, text: nameOf(spec, data) }]) : [summary(spec, data)]));
  }
  return parts.filter(Boolean);
}

/** Declines when some part of the question went unused, or a yes/no question got no yes or no. */
function checkAnswered(q: Question, use: Use, parts: string[]): void {
  const why = unusedPart(q, use) ?? (q.yesNo && !parts.some((p) => /^(Yes|No):/m.test(p)) ? 'it asks yes or no about something they cannot check' : undefined);
  if (why) throw new BuiltinCannotAnswer(why);
}

/**
 * A short plain-text answer to `question` from gpucloud results, exactly what was asked; throws
 * BuiltinCannotAnswer for a question it cannot answer exactly. Apply results (POST, PUT) are reported.
 */
export function answerFromResults(question: string, results: StepResult[], opts: AnswerOptions = {}): string {
  const changes = results.filter((r) => r.args?.[0] !== 'gpucloud-wait' && (r.method ?? r.args?.[1] ?? 'GET').toUpperCase() !== 'GET');
  if (changes.length) return changes.map(answerChange).join('\n');
  const typed = typedResults(results);
  const q = understandQuestion(question, typed, opts);
  const use = new Use();
  const parts = answerGpuCloud(q, typed, use, opts);
  checkAnswered(q, use, parts);
  return printable(parts.join('\n')) || 'Nothing to report.';
}

let matcher: TermMatcher<RouteTerm> | undefined;
/** gpucloud's routing words (kinds, type codes, cost phrases): what the question parser reads kinds from. */
const gpucloudTerms = () => (matcher ??= new TermMatcher(routeTerms([{ provider: 'gpucloud', routing: GPUCLOUD_ROUTING }])));

/** Longer questions are for a model: matching every name read against them would be slow, not useful. */
const MAX_QUESTION_CHARS = 2000;

/** Names and values come from the API: control characters (a terminal escape in a hostname) never reach the terminal. */
const printable = (text: string) => text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');

function understandQuestion(question: string, typed: Typed[], opts: AnswerOptions): Question {
  if (question.length > MAX_QUESTION_CHARS) throw new BuiltinCannotAnswer(`the question is longer than ${MAX_QUESTION_CHARS} characters`);
  const routeWords = (opts.route?.reasons ?? []).flatMap((r) => r.terms.flatMap((t) => t.toLowerCase().split(/[\s_-]+/)));
  const q = understand(question, { results: typed.map((x) => ({ kind: x.spec.kind, data: x.r.data })), terms: gpucloudTerms().match(question), knownWords: [...routeWords, ...(opts.knownWords ?? [])] });
  if (q.unanswerable.length) throw new BuiltinCannotAnswer(q.unanswerable.map((u) => `"${u.word}": ${u.why}`).join('; '));
  if (q.unknown.length) {
    const unknown = [...new Set(q.unknown)];
    // A name they did not find among what was read: the kind it is of may not have been read at all.
    const names = unknown.filter((w) => /[-._\d]/.test(w));
    const nameHint = names.length ? ` (if ${both(names.map((n) => `"${n}"`))} ${names.length === 1 ? 'is a resource' : 'are resources'}, name the kind too, e.g. "volume ${names[0]}")` : '';
    throw new BuiltinCannotAnswer(`they do not know ${unknown.length === 1 ? 'the word' : 'the words'} ${both(unknown.map((w) => `"${w}"`))}${nameHint}`);
  }
  if (q.strayNegation) throw new BuiltinCannotAnswer('it has a "not" they cannot place (they understand "not" before a status: "not attached", "aren\'t running")');
  return q;
}

/** The words of every cloud_a read: understood by the answers (their own answer lists them). */
const AWS_WORDS = AWS_READS.flatMap((r) => r.words.flatMap((w) => w.split(/\s+/)));

/**
 * The built-in provider's answer to a question routed to gpucloud and/or cloud_a: gpucloud's parts,
 * cloud_a's per service read (engine/providers/cloud_a/answer.ts, which understands a count and a state), a
 * terraform workspace's as its report. Declines as a whole (BuiltinCannotAnswer) when any part of the
 * question cannot be answered exactly by the parts that answer.
 */
export function builtinAnswer(
  question: string,
  route: RouteSummary,
  results: readonly { kind: string; args: readonly string[]; data: unknown }[],
  render: { iac?: (data: unknown) => string } = {},
  more: { knownWords?: readonly string[]; answeredElsewhere?: boolean } = {},
): string {
  const aws = results.filter((r) => r.args[0] === 'aws' && awsReadOf(r.args));
  const iac = results.filter((r) => r.kind === 'terraform');
  const typed = typedResults(results.filter((r) => r.args[0]?.startsWith('gpucloud')).map((r) => ({ args: [...r.args], kind: r.kind, data: r.data })));
  // cloud_a's words are understood only when cloud_a's answers are part of this one.
  const opts: AnswerOptions = {
    route,
    knownWords: [...(aws.length ? AWS_WORDS : []), ...(more.knownWords ?? [])],
    overview: !route.defaulted,
    answeredElsewhere: aws.length > 0 || iac.length > 0 || Boolean(more.answeredElsewhere),
  };
  const q = understandQuestion(question, typed, opts);
  const use = new Use();
  const parts = typed.length ? answerGpuCloud(q, typed, use, opts) : [];
  if (aws.length) {
    // cloud_a's lists pick records by a state the question names; "not" a state they would get wrong.
    if (q.statuses.some((s) => s.not)) throw new BuiltinCannotAnswer('their cloud_a answers understand a state, not "not" a state');
    if (q.superlative || q.locations.length || q.processor || q.models.length || q.spot || q.attributes.length) {
      const aside = new Use();
      aside.add('status');
      const why = unusedPart({ ...q, statuses: [] }, aside);
      if (why) throw new BuiltinCannotAnswer(`${why} in cloud_a's answers`);
    }
    use.add('status');
    parts.push(...answerAwsResults(question, aws));
  }
  for (const r of iac) if (render.iac) parts.push(render.iac(r.data));
  checkAnswered(q, use, parts);
  return printable(parts.join('\n')) || 'Nothing to report.';
}

const TOP_SPENDERS = 3;

/**
 * "What am I spending per hour", "how long will my balance last": the burn, what it goes on, the
 * balance and the runway, from the same reads and the same pricing as `cost summary`
 * (engine/providers/gpucloud/cost.ts). `results` are the context reads, each with its catalogue kind.
 */
export function answerCost(results: readonly { kind?: string; data: unknown }[], now = Date.now()): string {
  const of = (kind: string) => results.find((r) => r.kind === kind)?.data;
  const s = costSummary(
    { instances: of('instances'), volumes: of('volumes'), clusters: of('clusters'), balance: of('balance'), instanceTypes: of('instance-types'), volumeTypes: of('volume-types'), clusterTypes: of('cluster-types') },
    now,
  );
  const cur = s.currency.toUpperCase();
  const balance = s.balance === null ? undefined : `${s.balance.toFixed(2)} ${cur}`;
  if (s.hourly_cost <= 0) return `Nothing bills right now (0 ${cur} per hour)${balance ? `; your balance of ${balance} is not being drawn down` : ''}.`;
  const lines = [
    `You are spending ${s.hourly_cost.toFixed(4)} ${cur} per hour (${s.daily_cost.toFixed(2)} per day, ${s.monthly_forecast.toFixed(2)} per 30 days) on ${plural(s.resources.length, 'billable resource', 'billable resources')}.`,
  ];
  const top = sortResources(s.resources, 'cost').slice(0, TOP_SPENDERS);
  lines.push(`Most of it: ${top.map((r) => `${r.kind} ${r.name} ${hourly(r.hourly_cost ?? 0, s.currency)}/hour`).join(', ')}.`);
  const offline = s.resources.filter((r) => r.kind === 'instance' && r.status === 'offline');
  if (offline.length) lines.push(`${plural(offline.length, 'offline instance still bills', 'offline instances still bill')} (shutdown keeps billing, only delete stops it): ${listNames(offline.map((r) => r.name))}.`);
  if (balance && s.runway_hours !== null && s.runway_until) {
    lines.push(`Your balance of ${balance} lasts ${s.runway_hours.toFixed(1)} hours (${(s.runway_hours / 24).toFixed(1)} days) at this rate, until ${when(s.runway_until)}.`);
  }
  if (s.unpriced.length) lines.push(`Not counted (no price known): ${s.unpriced.join('; ')}.`);
  return lines.join('\n');
}

/**
 * The answer capability of gpucloud and cloud_a: one joint answerer (`joint: 'planner'`), called once
 * with both providers' results, so the question is understood and declined as a whole.
 */
export const PLANNER_ANSWER: AnswerCapability = {
  joint: 'planner',
  answer: (question, results, ctx) =>
    builtinAnswer(question, ctx.route ?? { reasons: [], defaulted: ctx.defaulted ?? false }, results, {}, { knownWords: ctx.knownWords, answeredElsewhere: ctx.answeredElsewhere }),
};
