/**
 * Answers without a model (the `builtin` AI profile, the sandbox's default, and `ask` when no AI provider
 * is configured): from the results of the read-only context plan, for the questions
 * engine/producers/planner/question.ts understands: lists and counts of any catalogue kind, filtered by
 * status (also "not …"), location, GPU or CPU, GPU model, spot, or an amount ("more than 2 USD per
 * hour", "at least 8 GPUs"); yes/no questions ("is 8H100.80S.176V available in FIN-01?", "is demo-a100
 * running?"); superlatives ("the cheapest GPU available in FIN-01", "what costs the most"); an attribute
 * of a named resource ("the IP of demo-a100"); the balance; and money (money.ts): what the account
 * spends, per period, how long the balance lasts, what resources cost, how many GPUs run.
 *
 * It answers exactly or not at all: a question with a word it does not understand, or a part it cannot
 * apply to what it read ("volumes in FIN-01" where volumes have no location), is declined with the
 * reason and the command that answers it (BuiltinCannotAnswer, exit 2), never answered with a list
 * that merely looks related. A resource named like a word ("big", "cost") is read both ways
 * (readings below): the question is answered when the readings that answer agree, else declined.
 */
import { KINDS, normalizeApiPath, type KindSpec } from '../../providers/gpucloud/catalogue.js';
import { AWS_READS, awsReadOf } from '../../providers/cloud_a/reads.js';
import { answerAwsResults } from '../../providers/cloud_a/answer.js';
import { TermMatcher } from '../../core/routing/match.js';
import { routeTerms, type RouteTerm } from '../../core/routing/terms.js';
import type { AnswerCapability, AnswerThread, RouteSummary } from '../../core/capabilities.js';
import { GPUCLOUD_ROUTING } from '../../providers/gpucloud/routing.js';
import { BUILTIN_ANSWER_HINT, COST_ANSWER_HINT, listAnswerHint } from './hint.js';
import { understand, type NamedRecord, type Question } from './question.js';
import { PERIOD_HOURS, PERIOD_WORDS } from './amounts.js';
import { both, BuiltinCannotAnswer, describe, field, filterRows, hourly, idOf, isRec, listNames, MAX_NAMES, money, nameOf, plural, present, statusText, Subjects, TYPE_FIELD, typeMatches, Use, words, finish, type Ctx, type Feature, type Rec } from './answer-base.js';
import { ATTRIBUTES, attributeSentence, attributeValue, rank, rankedSubject, rankedValue } from './answer-attributes.js';
import { answerBilledList, answerBurn, answerGpuCount, answerMostCostly, answerNamedTotal, applyComparisons, billedPriceSentence } from './money.js';
import { BILLED_KINDS, committedNote, moneyView } from './money-view.js';
import type { Attribute } from './question.js';

export { BuiltinCannotAnswer };

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

/** What a record's attribute is worth when ranked: a billed resource's price is what it bills now (money-view.ts). */
function valueOf(ctx: Ctx, spec: KindSpec, record: Rec, attribute: Attribute): unknown {
  if (attribute === 'price' && ctx.money && BILLED_KINDS.includes(spec.kind)) {
    const rate = ctx.money.rate(spec.kind, idOf(spec, record), record.status);
    return rate.bills ? rate.per_hour : undefined;
  }
  const path = ATTRIBUTES[attribute].path(spec.kind);
  return path ? field(record, path) : undefined;
}

/** The currency of prices in a list: the account's, else the records' own. */
const currencyOf = (ctx: Ctx, rows: Rec[]) => ctx.money?.currency ?? String(rows.find((r) => typeof r.currency === 'string')?.currency ?? 'usd');

/** A list of records of one kind, filtered and ranked as asked. */
function answerList(ctx: Ctx, spec: KindSpec, records: Rec[], own: boolean): string {
  const { q } = ctx;
  // What resources that bill cost: money.ts, from the cost view.
  if (BILLED_KINDS.includes(spec.kind) && !q.superlative && (q.attributes.includes('price') || q.comparisons.some((c) => c.of === 'price'))) return answerBilledList(ctx, spec, records, own);
  const filtered = filterRows(ctx, spec, records);
  const { before, used } = filtered;
  const compared = applyComparisons(ctx, spec, filtered.rows, currencyOf(ctx, filtered.rows));
  const rows = compared?.rows ?? filtered.rows;
  if (compared) used.add('compare');
  const w = words(spec);
  const { noun, where } = describe(ctx, used, w.many);
  const one = describe(ctx, used, w.one).noun;
  const names = (rs: Rec[]) => listNames(rs.map((r) => `${nameOf(spec, r)}${compared?.shown ? ` (${compared.shown(r)})` : ''}`));
  const yes = (ok: boolean) => (q.yesNo ? (ok ? 'Yes: ' : 'No: ') : '');
  const lead = (ok: boolean, sentence: string) => (q.yesNo ? `${yes(ok)}${sentence.replace(/^(You|None) /, (m) => m.toLowerCase())}` : sentence);
  const left = compared?.left.length ? ` Not counted: ${listNames(compared.left)}.` : '';
  const that = used.has('status') ? ` that ${rows.length === 1 ? 'is' : 'are'} ${statusText(q)}` : '';

  if (q.superlative) {
    const s = q.superlative;
    if (!ATTRIBUTES[s.attribute].path(spec.kind)) return finish(ctx, used, undefined);
    used.add('superlative');
    // "How much does the most expensive instance cost": the attribute asked is the one ranked by.
    if (q.attributes.length && q.attributes.every((a) => a === s.attribute)) used.add('attributes');
    if (s.attribute === 'price' && q.period) used.add('period');
    const valued = rows.filter((r) => Number.isFinite(rank(valueOf(ctx, spec, r, s.attribute))));
    // A resource that does not bill now is not ranked by what it costs: said, not left out silently.
    const unranked = s.attribute === 'price' && ctx.money && BILLED_KINDS.includes(spec.kind) ? rows.filter((r) => !valued.includes(r)).map((r) => `${nameOf(spec, r)} (${String(r.status)}, not billing now)`) : [];
    const notRanked = unranked.length ? ` Not counted: ${listNames(unranked)}.` : '';
    if (!valued.length) return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}${rows.length ? ` with a known ${ATTRIBUTES[s.attribute].label}` : ''}.`));
    const best = valued.reduce((b, r) => (s.highest ? Math.max(b, rank(valueOf(ctx, spec, r, s.attribute))) : Math.min(b, rank(valueOf(ctx, spec, r, s.attribute)))), s.highest ? -Infinity : Infinity);
    const top = valued.filter((r) => rank(valueOf(ctx, spec, r, s.attribute)) === best);
    ctx.subjects.add(spec.kind, top.map((r) => idOf(spec, r)));
    const shown = s.attribute === 'price' && q.period && q.period !== 'hour' ? `${rankedValue(s.attribute, best, top[0]!)}, ${money(best * PERIOD_HOURS[q.period], currencyOf(ctx, top))} ${PERIOD_WORDS[q.period]}` : rankedValue(s.attribute, valueOf(ctx, spec, top[0]!, s.attribute), top[0]!);
    const thatTop = used.has('status') ? ` that ${top.length === 1 ? 'is' : 'are'} ${statusText(q)}` : '';
    const subject = `${rankedSubject(s.words, top.length === 1 ? one : noun, own)}${thatTop}${where}`;
    // One ranked by the price the burn counts before it runs says so (money-view.ts).
    const early = (r: Rec) => { const rate = s.attribute === 'price' && ctx.money && BILLED_KINDS.includes(spec.kind) ? ctx.money.rate(spec.kind, idOf(spec, r), r.status) : undefined; return rate?.bills && rate.committed ? committedNote(rate.resource.status) : undefined; };
    const note = top.filter((r) => early(r)).map((r) => `; ${top.length === 1 ? '' : `${nameOf(spec, r)} `}${early(r)}`).join('');
    return finish(ctx, used, `${subject} ${top.length === 1 ? 'is' : 'are'} ${both(top.map((r) => nameOf(spec, r)))} (${shown}${top.length > 1 ? ' each' : ''}${note}).${left}${notRanked}`);
  }

  ctx.subjects.add(spec.kind, rows.map((r) => idOf(spec, r)));
  // "the IPs of my instances": each record with the attributes asked.
  const attrs = q.attributes.filter((a) => ATTRIBUTES[a].path(spec.kind));
  if (q.attributes.length && attrs.length === q.attributes.length) used.add('attributes');
  if (attrs.includes('price') && q.period === 'hour') used.add('period');

  if (!rows.length) {
    if (!before.length) return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}.`));
    if (compared) return finish(ctx, used, lead(false, `None of ${own ? 'your' : 'the'} ${plural(filtered.rows.length, one, noun)}${used.has('status') ? ` that ${filtered.rows.length === 1 ? 'is' : 'are'} ${statusText(q)}` : ''}${where} ${compared.phrase(1)}.${left}`));
    if (used.has('status')) return finish(ctx, used, lead(false, `None of ${own ? 'your' : 'the'} ${plural(before.length, one, noun)}${where} is ${statusText(q)}.`));
    return finish(ctx, used, lead(false, `${own ? 'You have no' : 'There are no'} ${noun}${where}.`));
  }
  const count = plural(rows.length, one, noun);
  let head: string;
  if (compared) head = `${count}${that}${where} ${compared.phrase(rows.length)}`.replace(/^./, (c) => c.toUpperCase());
  else if (used.has('status')) head = `${count} ${rows.length === 1 ? 'is' : 'are'} ${statusText(q)}${where}`;
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
  if (q.count) return finish(ctx, used, lead(true, `${head}.${left}`));
  // Compared by price: the names with their prices say it; other attributes get a line each.
  if (attrs.length && used.has('attributes') && !(compared?.shown && attrs.every((a) => a === 'price'))) {
    const lines = rows.slice(0, MAX_NAMES).map((r) => `- ${nameOf(spec, r)}: ${attrs.map((a) => {
      const v = attributeValue(spec.kind, a, r).value;
      return `${ATTRIBUTES[a].label} ${v !== undefined && v !== null && v !== '' ? ATTRIBUTES[a].show(v, r) : 'none'}`;
    }).join(', ')}`);
    if (rows.length > MAX_NAMES) lines.push(`- … and ${rows.length - MAX_NAMES} more`);
    return finish(ctx, used, [lead(true, `${head}:`), ...lines].join('\n') + left);
  }
  if (used.size) return finish(ctx, used, lead(true, `${head}: ${names(rows)}.${left}`));
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
      ctx.subjects.add(n.kind, [idOf(n.spec, n.record)]);
      for (const v of values) {
        // What a billed resource costs is what it bills now, as `cost summary` prices it.
        if (v.a === 'price' && BILLED_KINDS.includes(n.kind) && ctx.money) out.push(billedPriceSentence(ctx, n.spec, n.record));
        else {
          if (v.a === 'price' && q.period) ctx.use.add('period');
          out.push(attributeSentence(name, v.a, v.value, n.record, q.period));
        }
      }
      continue;
    }
    if (q.statuses.length && typeof n.record.status === 'string') {
      ctx.use.add('status');
      ctx.subjects.add(n.kind, [idOf(n.spec, n.record)]);
      const holds = q.statuses.every((s) => (n.record.status === s.status) !== s.not);
      const prefix = q.yesNo ? (holds ? 'Yes: ' : 'No: ') : '';
      out.push(`${prefix}${name} is ${String(n.record.status)}${holds && q.statuses.some((s) => s.not) ? ` (not ${q.statuses.filter((s) => s.not).map((s) => s.status).join(' or ')})` : ''}.`);
      continue;
    }
    if (q.yesNo) continue; // a yes/no about something else: declined below
    ctx.subjects.add(n.kind, [idOf(n.spec, n.record)]);
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
  if (q.comparisons.length && missing('compare')) return `it cannot compare ${q.kinds.join(', ') || 'that'} with "${q.comparisons.map((c) => c.text).join('", "')}"`;
  if (q.duration && missing('duration')) return 'it asks how long, and the one duration they know is how long the balance lasts at the current burn';
  if (q.period && missing('period')) return `it asks for a figure ${PERIOD_WORDS[q.period]} that none of their answers gives`;
  if (q.total && missing('total')) return 'it asks for a total of something they do not add up';
  if (q.currencies.length && missing('currency')) return `it names a currency (${q.currencies.join(', ').toUpperCase()}) but asks for no amount`;
  return undefined;
}

/** The command that answers what a declined question asks (at most one line; hint.ts). */
function hintFor(q: Question): string {
  const money = q.costAsked || q.period || q.comparisons.length || q.total || q.duration || q.currencies.length || q.attributes.includes('price') || q.superlative?.attribute === 'price';
  if (money) return COST_ANSWER_HINT;
  const kinds = [...new Set([...q.kinds, ...q.named.map((n) => n.kind)])];
  return kinds.length === 1 ? listAnswerHint(kinds[0]!) : BUILTIN_ANSWER_HINT;
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
  /** The conversation (talk): "them" in a question without a subject of its own is the last answer's subjects, which the answer replaces. */
  thread?: AnswerThread;
  /** The time figures are for (the runway's end); now by default. */
  now?: number;
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

/** The kinds whose records are read "as of" the cost view: the billed ones and what prices them. */
const COST_VIEW_KINDS = ['instances', 'volumes', 'clusters', 'balance', 'instance-types', 'volume-types', 'cluster-types'];

/**
 * "Which of them are in FIN-03?" in talk: a question that names no resource or kind of its own and says
 * "them" is about the last answer's subjects: the results of their kinds keep only those records.
 */
function followUp(q: Question, typed: Typed[], thread: AnswerThread | undefined): { q: Question; typed: Typed[] } {
  const subjects = thread?.subjects?.filter((s) => s.provider === 'gpucloud') ?? [];
  if (!q.pronoun || q.kinds.length || q.named.length || !subjects.length) return { q, typed };
  const ids = new Map(subjects.map((s) => [s.kind, new Set(s.ids)]));
  const kinds = subjects.map((s) => s.kind).filter((k) => typed.some((x) => x.spec.kind === k));
  if (!kinds.length) throw new BuiltinCannotAnswer(`"them" means the last answer's ${both(subjects.map((s) => s.kind))}, which were not read for this question`);
  const restricted = typed.map((x) => {
    const keep = ids.get(x.spec.kind);
    if (!keep || !Array.isArray(x.r.data)) return x;
    return { ...x, r: { ...x.r, data: (x.r.data as unknown[]).filter((d) => isRec(d) && keep.has(idOf(x.spec, d))) } };
  });
  return { q: { ...q, kinds }, typed: restricted };
}

/** gpucloud's answer parts for an understood question; what they used goes into `use`. */
function answerGpuCloud(q: Question, typed: Typed[], use: Use, subjects: Subjects, opts: AnswerOptions): string[] {
  const types = new Map<string, Rec>();
  for (const x of typed) {
    if ((x.spec.kind === 'instance-types' || x.spec.kind === 'cluster-types') && Array.isArray(x.r.data)) {
      for (const t of x.r.data) if (isRec(t)) types.set(String(t[x.spec.idField]), t);
    }
  }
  const dataOf = (kind: string) => typed.find((x) => x.spec.kind === kind)?.r.data;
  const read = (kind: string) => typed.some((x) => x.spec.kind === kind);
  const view = COST_VIEW_KINDS.every(read) ? moneyView(dataOf, opts.now ?? Date.now(), read) : undefined;
  const ctx: Ctx = { q, use, types, subjects, ...(view ? { money: view } : {}) };
  const parts: string[] = [];

  // The kinds to answer: the ones the question names; availability folds in the types read with it.
  let kinds = q.kinds.filter((k) => typed.some((x) => x.spec.kind === k));
  const folded = new Set(kinds.flatMap((k) => KINDS.find((s) => s.kind === k)?.readWith ?? []));
  kinds = kinds.filter((k) => !folded.has(k));
  // "What are my instances costing me": the cost phrase asks what those kinds cost.
  if (q.costAsked && kinds.length && kinds.every((k) => BILLED_KINDS.includes(k)) && !q.named.length && !q.attributes.includes('price')) q.attributes.push('price');
  const subjectless = !kinds.length && !q.named.length;
  if (q.gpuCount) {
    // "How many GPUs are running": the GPUs of instances and clusters (the status word alone names no kind).
    parts.push(answerGpuCount(ctx, dataOf));
    kinds = kinds.filter((k) => k !== 'instances' && k !== 'clusters');
  } else if (subjectless && q.superlative?.attribute === 'price' && (q.costAsked || q.attributes.every((a) => a === 'price'))) {
    parts.push(answerMostCostly(ctx)); // "what costs the most?"
  } else if ((subjectless || (q.duration && kinds.every((k) => k === 'balance'))) && (q.costAsked || q.duration || (q.attributes.includes('price') && !q.pronoun))) {
    // The account: "how much am I spending", "what is my total cost", "how long will my balance last".
    parts.push(answerBurn(ctx));
    if (q.attributes.every((a) => a === 'price')) use.add('attributes');
  } else if (q.costAsked && !kinds.every((k) => BILLED_KINDS.includes(k))) {
    parts.push(answerBurn(ctx));
  }
  // "How much do big and data cost together": the named resources' rates added up.
  if (q.total && q.named.length > 1 && q.attributes.length && q.attributes.every((a) => a === 'price') && q.named.every((n) => BILLED_KINDS.includes(n.kind)) && !q.comparisons.length && !q.superlative && !q.statuses.length) {
    parts.push(answerNamedTotal(ctx, q.named));
    kinds = kinds.filter((k) => !q.named.some((n) => n.kind === k));
  }
  if (!parts.length && !kinds.length) {
    // "what am I paying for" with --gpucloud: what was read is the answer; about another provider's words: theirs is.
    // Not for "which of them…" with no last answer to point at: "them" names nothing read.
    if (opts.overview && !q.pronoun) kinds = typed.map((x) => x.spec.kind);
    else if (opts.answeredElsewhere) return [];
    else throw new BuiltinCannotAnswer('it names nothing they know (instances, volumes, clusters, types, availability, locations, the balance, what you spend…)', hintFor(q));
  }
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
    else if (isRec(data)) {
      ctx.subjects.add(kind, [idOf(spec, data)]);
      parts.push(...(q.attributes.length || q.statuses.length || q.yesNo ? answerNamed(ctx, [{ kind, spec, record: data, text: nameOf(spec, data) }]) : [summary(spec, data)]));
    }
  }
  return parts.filter(Boolean);
}

/** Declines when some part of the question went unused, or a yes/no question got no yes or no. */
function checkAnswered(q: Question, use: Use, parts: string[]): void {
  const why = unusedPart(q, use) ?? (q.yesNo && !parts.some((p) => /^(Yes|No):/m.test(p)) ? 'it asks yes or no about something they cannot check' : undefined);
  if (why) throw new BuiltinCannotAnswer(why, hintFor(q));
}

/**
 * A short plain-text answer to `question` from gpucloud results, exactly what was asked; throws
 * BuiltinCannotAnswer for a question it cannot answer exactly. Apply results (POST, PUT) are reported.
 */
export function answerFromResults(question: string, results: StepResult[], opts: AnswerOptions = {}): string {
  const changes = results.filter((r) => r.args?.[0] !== 'gpucloud-wait' && (r.method ?? r.args?.[1] ?? 'GET').toUpperCase() !== 'GET');
  if (changes.length) return changes.map(answerChange).join('\n');
  const typed = typedResults(results);
  return answerReadings(question, typed, opts, (q, t, use, subjects) => answerGpuCloud(q, t, use, subjects, opts));
}

let matcher: TermMatcher<RouteTerm> | undefined;
/** gpucloud's routing words (kinds, type codes, cost phrases): what the question parser reads kinds from. */
const gpucloudTerms = () => (matcher ??= new TermMatcher(routeTerms([{ provider: 'gpucloud', routing: GPUCLOUD_ROUTING }])));

/** Longer questions are for a model: matching every name read against them would be slow, not useful. */
const MAX_QUESTION_CHARS = 2000;

/** Names and values come from the API: control characters (a terminal escape in a hostname) never reach the terminal. */
const printable = (text: string) => text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');

/** The question read, with a resource named like a word at `nameAt` read as its name. */
function parse(question: string, typed: Typed[], opts: AnswerOptions, nameAt?: number): Question {
  const routeWords = (opts.route?.reasons ?? []).flatMap((r) => r.terms.flatMap((t) => t.toLowerCase().split(/[\s_-]+/)));
  return understand(question, { results: typed.map((x) => ({ kind: x.spec.kind, data: x.r.data })), terms: gpucloudTerms().match(question), knownWords: [...routeWords, ...(opts.knownWords ?? [])], nameAt });
}

/** Declines a question with a word nobody understands, or one the answers cannot work out. */
function checkUnderstood(q: Question): void {
  if (q.unanswerable.length) throw new BuiltinCannotAnswer(q.unanswerable.map((u) => `"${u.word}": ${u.why}`).join('; '), hintFor(q));
  if (q.unknown.length) {
    const unknown = [...new Set(q.unknown)];
    // A name they did not find among what was read: the kind it is of may not have been read at all.
    const names = unknown.filter((w) => /[-._\d]/.test(w));
    const nameHint = names.length ? ` (if ${both(names.map((n) => `"${n}"`))} ${names.length === 1 ? 'is a resource' : 'are resources'}, name the kind too, e.g. "volume ${names[0]}")` : '';
    throw new BuiltinCannotAnswer(`they do not know ${unknown.length === 1 ? 'the word' : 'the words'} ${both(unknown.map((w) => `"${w}"`))}${nameHint}`, hintFor(q));
  }
  if (q.strayNegation) throw new BuiltinCannotAnswer('it has a "not" they cannot place (they understand "not" before a status: "not attached", "aren\'t running")', hintFor(q));
}

type Answerer = (q: Question, typed: Typed[], use: Use, subjects: Subjects) => string[];

/**
 * Every reading of the question answered: the words as words, then each resource named like a word
 * ("what is the IP of big?") read as its name. The answer is the one the answering readings agree on;
 * readings that answer differently decline ("big" in "how big is volume data" when an instance is named
 * big), naming how to write the name so it reads one way. A talk thread gets the answer's subjects.
 */
function answerReadings(question: string, typed: Typed[], opts: AnswerOptions, answer: Answerer): string {
  try {
    return answerAllReadings(question, typed, opts, answer);
  } catch (err) {
    // A declined question leaves no subjects: "which of them…" next would otherwise mean the answer
    // before it, not the question the person just asked.
    if (opts.thread && err instanceof BuiltinCannotAnswer) opts.thread.subjects = [];
    throw err;
  }
}

function answerAllReadings(question: string, typed: Typed[], opts: AnswerOptions, answer: Answerer): string {
  if (question.length > MAX_QUESTION_CHARS) throw new BuiltinCannotAnswer(`the question is longer than ${MAX_QUESTION_CHARS} characters`);
  const words = parse(question, typed, opts);
  const readings = [words, ...words.wordNames.map((w) => parse(question, typed, opts, w.at))];
  const outcomes = readings.map((read) => {
    try {
      checkUnderstood(read);
      const { q, typed: own } = followUp(read, typed, opts.thread);
      const use = new Use();
      const subjects = new Subjects();
      const parts = answer(q, own, use, subjects);
      checkAnswered(q, use, parts);
      return { text: printable(parts.join('\n')) || 'Nothing to report.', subjects };
    } catch (err) {
      if (err instanceof BuiltinCannotAnswer) return { error: err };
      throw err;
    }
  });
  const answered = outcomes.filter((o): o is { text: string; subjects: Subjects } => 'text' in o);
  if (!answered.length) {
    const [first, ...others] = outcomes as { error: BuiltinCannotAnswer }[];
    if (!others.length) throw first!.error;
    // Read with a name too: both reasons, so the one that applies is there.
    const why = (e: BuiltinCannotAnswer) => e.message.replace(/^the built-in answers \(no AI model\) cannot answer this exactly: /, '').replace(/; nothing was guessed$/, '');
    const asNames = others.map((o, i) => `read with "${words.wordNames[i]!.name}" as a name, ${why(o.error)}`);
    throw new BuiltinCannotAnswer(`${why(first!.error)} (${[...new Set(asNames)].join('; ')})`, first!.error.hint);
  }
  if (new Set(answered.map((a) => a.text)).size > 1) {
    const names = both(words.wordNames.map((w) => `"${w.name}"`));
    throw new BuiltinCannotAnswer(
      `${names} ${words.wordNames.length === 1 ? 'is' : 'are'} both a word they know and the name of a resource, and the question reads both ways with different answers; write the kind before the name ("instance ${words.wordNames[0]!.name}") or quote it`,
      hintFor(words),
    );
  }
  if (opts.thread) opts.thread.subjects = answered[0]!.subjects.list().map((s) => ({ provider: 'gpucloud', ...s }));
  return answered[0]!.text;
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
  more: { knownWords?: readonly string[]; answeredElsewhere?: boolean; thread?: AnswerThread; now?: number } = {},
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
    ...(more.thread ? { thread: more.thread } : {}),
    ...(more.now !== undefined ? { now: more.now } : {}),
  };
  return answerReadings(question, typed, opts, (q, own, use, subjects) => {
    const parts = own.length ? answerGpuCloud(q, own, use, subjects, opts) : [];
    if (aws.length) {
      // cloud_a's lists pick records by a state the question names; "not" a state they would get wrong.
      if (q.statuses.some((s) => s.not)) throw new BuiltinCannotAnswer('their cloud_a answers understand a state, not "not" a state');
      if (q.superlative || q.locations.length || q.processor || q.models.length || q.spot || q.attributes.length || q.comparisons.length || q.gpuCount || q.period || q.total) {
        const aside = new Use();
        aside.add('status');
        const why = unusedPart({ ...q, statuses: [] }, aside);
        if (why) throw new BuiltinCannotAnswer(`${why} in cloud_a's answers`);
      }
      use.add('status');
      parts.push(...answerAwsResults(question, aws));
    }
    for (const r of iac) if (render.iac) parts.push(render.iac(r.data));
    return parts;
  });
}

/**
 * The answer capability of gpucloud and cloud_a: one joint answerer (`joint: 'planner'`), called once
 * with both providers' results, so the question is understood and declined as a whole.
 */
export const PLANNER_ANSWER: AnswerCapability = {
  joint: 'planner',
  answer: (question, results, ctx) =>
    builtinAnswer(question, ctx.route ?? { reasons: [], defaulted: ctx.defaulted ?? false }, results, {}, { knownWords: ctx.knownWords, answeredElsewhere: ctx.answeredElsewhere, ...(ctx.thread ? { thread: ctx.thread } : {}) }),
};
