/**
 * The built-in answers about money and GPU counts: what the account spends (the burn, per period), how
 * long the balance lasts, what resources cost (each, in total, above or below an amount), what costs the
 * most, and how many GPUs there are. Every figure is the cost capability's (money-view.ts, the figures of
 * `cost summary`): a resource's cost is what the burn counts for it, what it bills now, or, still
 * ordered or provisioning, what it bills once it runs (said so); one the burn does not count is said not
 * to bill, never priced by another rule. A part of the question no figure here answers is left for the check in
 * answer.ts, which declines.
 */
import { sortResources } from '../cost/live.js';
import type { KindSpec } from '../../providers/gpucloud/catalogue.js';
import { compare, OPERATOR_WORDS, PERIOD_HOURS, PERIOD_WORDS, type Comparison, type Period } from './amounts.js';
import { both, BuiltinCannotAnswer, describe, field, filterRows, hourly, idOf, isRec, kindSpec, listNames, MAX_NAMES, money, nameOf, plural, rateText, statusText, when, words, type Ctx, type Feature, type Rec } from './answer-base.js';
import { BILLED_KINDS, catalogueKind, committedNote, isCommitted, type MoneyView, type Rate } from './money-view.js';
import { COST_ANSWER_HINT } from './hint.js';
import type { Question } from './question.js';
import { formatAmount, formatRate } from '../../core/render/money.js';

const TOP_SPENDERS = 3;

/** The period asked for, hourly when none was. */
export const periodOf = (q: Question): Period => q.period ?? 'hour';


/** The money view a figure needs; without the cost reads a money question is declined (never priced another way). */
function needMoney(ctx: Ctx): MoneyView {
  if (!ctx.money) throw new BuiltinCannotAnswer('the cost reads were not made for it', COST_ANSWER_HINT);
  return ctx.money;
}

/** Currencies named must be the account's: nothing is converted. */
export function checkCurrencies(ctx: Ctx, currency: string): void {
  const other = ctx.q.currencies.filter((c) => c !== currency.toLowerCase());
  if (other.length) throw new BuiltinCannotAnswer(`the prices are in ${currency.toUpperCase()}, not ${both(other.map((c) => c.toUpperCase()))}, and nothing is converted`, COST_ANSWER_HINT);
  if (ctx.q.currencies.length) ctx.use.add('currency');
}

// ---------------------------------------------------------------------------------------------
// Comparisons: "cost more than 2 USD per hour", "have at least 8 GPUs".

/** What a comparison compares, or a decline when it does not say ("more than 2": 2 what?). */
function comparedAs(q: Question, c: Comparison): 'price' | 'gpus' {
  if (c.of) return c.of;
  if (q.period || q.attributes.includes('price')) return 'price';
  throw new BuiltinCannotAnswer(`"${c.text}" has no unit (2 USD per hour? 2 GPUs?)`);
}

/** "more than 2 USD per hour": a price comparison needs its period (prices are hourly, bills are not). */
function comparisonText(q: Question, c: Comparison, currency: string): string {
  const as = comparedAs(q, c);
  if (as === 'gpus') return `${OPERATOR_WORDS[c.op]} ${plural(c.value, 'GPU', 'GPUs')}`;
  if (!q.period) throw new BuiltinCannotAnswer(`"${c.text}" does not say per what (per hour, per day or per month?)`, COST_ANSWER_HINT);
  return `${OPERATOR_WORDS[c.op]} ${c.value} ${currency.toUpperCase()} ${PERIOD_WORDS[q.period]}`;
}

/** The GPUs of a record: its own count, else its type's. */
export function gpusOf(ctx: Ctx, spec: KindSpec, record: Rec): number | undefined {
  const own = Number(field(record, 'gpu.number_of_gpus'));
  if (field(record, 'gpu.number_of_gpus') !== undefined && Number.isFinite(own)) return own;
  const typeField = spec.kind === 'instances' ? 'instance_type' : spec.kind === 'clusters' ? 'cluster_type' : undefined;
  const type = typeField ? ctx.types.get(String(record[typeField])) : undefined;
  const fromType = Number(field(type, 'gpu.number_of_gpus'));
  return type && Number.isFinite(fromType) ? fromType : undefined;
}

/**
 * The rows that pass every comparison, with the words for them; records that cannot be compared (an
 * instance that does not bill now, a type without a price) are left out and named.
 */
export interface Compared {
  rows: Rec[];
  /** "costs more than 2 USD per hour", "have at least 8 GPUs" for `n` resources. */
  phrase(n: number): string;
  /** Price comparisons: each kept row's price in the period asked, to show beside its name. */
  shown?: (r: Rec) => string;
  /** Records that could not be compared, with why. */
  left: string[];
}

export function applyComparisons(ctx: Ctx, spec: KindSpec, rows: Rec[], currency: string): Compared | undefined {
  const { q } = ctx;
  if (!q.comparisons.length) return undefined;
  const billed = BILLED_KINDS.includes(spec.kind);
  const left: string[] = [];
  const texts = q.comparisons.map((c) => ({ as: comparedAs(q, c), text: comparisonText(q, c, currency) }));
  const prices = new Map<Rec, number>();
  const committed = new Map<Rec, string>();
  const kept = rows.filter((r) => q.comparisons.every((c) => {
    if (comparedAs(q, c) === 'gpus') {
      const n = gpusOf(ctx, spec, r);
      if (n === undefined) {
        left.push(`${nameOf(spec, r)} (GPU count unknown)`);
        return false;
      }
      return compare(n, c);
    }
    const perHour = billed ? billedRate(ctx, spec, r, left, committed) : typePrice(r);
    if (perHour === undefined) {
      if (!billed) left.push(`${nameOf(spec, r)} (no price)`);
      return false;
    }
    prices.set(r, perHour);
    return compare(perHour * PERIOD_HOURS[q.period!], c);
  }));
  if (q.comparisons.some((c) => comparedAs(q, c) === 'price')) checkCurrencies(ctx, currency);
  ctx.use.add('compare');
  if (q.period) ctx.use.add('period');
  const phrase = (n: number) => {
    const price = texts.filter((t) => t.as === 'price').map((t) => t.text);
    const gpus = texts.filter((t) => t.as === 'gpus').map((t) => t.text);
    return [price.length ? `${n === 1 ? 'costs' : 'cost'} ${both(price)}` : '', gpus.length ? `${n === 1 ? 'has' : 'have'} ${both(gpus)}` : ''].filter(Boolean).join(' and ');
  };
  const shown = prices.size ? (r: Rec) => (prices.has(r) ? `${rateText(prices.get(r)!, q.period!, currency)}${committed.has(r) ? `; ${committedNote(committed.get(r)!)}` : ''}` : '') : undefined;
  return { rows: kept, phrase, ...(shown ? { shown } : {}), left: [...new Set(left)] };
}

const typePrice = (r: Rec): number | undefined => {
  const n = Number(r.price_per_hour);
  return r.price_per_hour !== undefined && r.price_per_hour !== null && Number.isFinite(n) ? n : undefined;
};

/** A billed record's rate as the burn counts it; one the burn does not count is named in `left`, one counted before it runs in `committed` (with its status). */
function billedRate(ctx: Ctx, spec: KindSpec, r: Rec, left: string[], committed: Map<Rec, string>): number | undefined {
  const rate = needMoney(ctx).rate(spec.kind, idOf(spec, r), r.status);
  if (!rate.bills) {
    left.push(`${nameOf(spec, r)} (${rate.status}, not billing now)`);
    return undefined;
  }
  if (rate.per_hour === null) {
    left.push(`${nameOf(spec, r)} (${rate.why})`);
    return undefined;
  }
  if (rate.committed) committed.set(r, rate.resource.status);
  return rate.per_hour;
}

// ---------------------------------------------------------------------------------------------
// One resource, a list and a total.

/**
 * "big costs 10.32 USD/hour (247.68 USD per day)." — what a billed resource bills now; one still
 * provisioning: "new-one costs 0.39 USD/hour (provisioning, counted as it bills once it runs)."
 */
export function billedPriceSentence(ctx: Ctx, spec: KindSpec, record: Rec): string {
  const view = needMoney(ctx);
  const name = nameOf(spec, record);
  const rate = view.rate(spec.kind, idOf(spec, record), record.status);
  checkCurrencies(ctx, view.currency);
  if (ctx.q.period) ctx.use.add('period');
  ctx.subjects.add(spec.kind, [idOf(spec, record)]);
  if (!rate.bills) return `${name} does not bill right now (it is ${rate.status}).`;
  if (rate.per_hour === null) return `${name} ${rate.committed ? `is ${rate.resource.status} and counted as it bills once it runs` : 'bills'}, but ${rate.why}.`;
  const p = periodOf(ctx.q);
  const notes = [...(p === 'hour' ? [] : [rateText(rate.per_hour, p, view.currency)]), ...(rate.committed ? [committedNote(rate.resource.status)] : [])];
  return `${name} costs ${rateText(rate.per_hour, 'hour', view.currency)}${notes.length ? ` (${notes.join('; ')})` : ''}${rate.resource.spot ? ' at the current spot price' : ''}.`;
}

/**
 * What resources of a billed kind cost (after the question's filters): each one's rate and the total,
 * in the period asked. "Your 5 instances that bill now cost 13.1379 USD/hour in total: big 10.32, …".
 */
export function answerBilledList(ctx: Ctx, spec: KindSpec, records: Rec[], own: boolean): string {
  const view = needMoney(ctx);
  const { q } = ctx;
  const { rows: filtered, used } = filterRows(ctx, spec, records);
  const compared = applyComparisons(ctx, spec, filtered, view.currency);
  const rows = compared?.rows ?? filtered;
  checkCurrencies(ctx, view.currency);
  used.add('attributes');
  if (q.total) used.add('total');
  if (q.period) used.add('period');
  const w = words(spec);
  const { noun, where } = describe(ctx, used, w.many);
  const one = describe(ctx, used, w.one).noun;
  const that = used.has('status') ? ` that ${rows.length === 1 ? 'is' : 'are'} ${statusText(q)}` : '';
  const p = periodOf(q);
  const priced: { r: Rec; perHour: number; rate: Rate }[] = [];
  const notBilling: string[] = [];
  for (const r of rows) {
    const rate = view.rate(spec.kind, idOf(spec, r), r.status);
    if (rate.bills && rate.per_hour !== null) priced.push({ r, perHour: rate.per_hour, rate });
    else notBilling.push(`${nameOf(spec, r)} (${rate.bills ? rate.why : `${rate.status}, not billing now`})`);
  }
  ctx.subjects.add(spec.kind, rows.map((r) => idOf(spec, r)));
  const notes = [...(compared?.left ?? []), ...notBilling];
  const tail = notes.length ? ` Not counted: ${listNames(notes)}.` : '';
  const lead = own ? 'Your ' : '';
  if (!priced.length) {
    const none = compared ? `None of ${own ? 'your' : 'the'} ${noun}${that}${where} ${compared.phrase(1)}.` : `${own ? 'None of your' : 'None of the'} ${noun}${that}${where} bills right now.`;
    return finishMoney(ctx, used, `${none}${tail}`);
  }
  const total = priced.reduce((s, x) => s + x.perHour, 0);
  const sorted = [...priced].sort((a, b) => b.perHour - a.perHour || nameOf(spec, a.r).localeCompare(nameOf(spec, b.r)));
  const each = sorted.slice(0, MAX_NAMES).map((x) => `${nameOf(spec, x.r)} ${rateText(x.perHour, p, view.currency)}${pending(x.rate)}`);
  const more = sorted.length > MAX_NAMES ? ` and ${sorted.length - MAX_NAMES} more` : '';
  const count = plural(priced.length, one, noun);
  if (compared) {
    return finishMoney(ctx, used, `${count}${that}${where} ${compared.phrase(priced.length)}: ${each.join(', ')}${more}.${tail}`.replace(/^./, (c) => c.toUpperCase()));
  }
  const totalText = p === 'hour' ? `${formatRate(total)} ${view.currency.toUpperCase()}/hour` : `${money(total * PERIOD_HOURS[p], view.currency)} ${PERIOD_WORDS[p]}`;
  // "that bill now" is not true of one still provisioning: then they are the ones the burn counts.
  const billing = priced.some((x) => x.rate.bills && x.rate.committed) ? ' counted in the burn' : priced.length === 1 ? ' that bills now' : ' that bill now';
  if (priced.length === 1) return finishMoney(ctx, used, `${lead}${count}${that}${where}${billing} costs ${totalText}: ${each[0]}.${tail}`.replace(/^./, (c) => c.toUpperCase()));
  return finishMoney(ctx, used, `${lead}${count}${that}${where}${billing} cost ${totalText} in total: ${each.join(', ')}${more}.${tail}`.replace(/^./, (c) => c.toUpperCase()));
}

/** After a rate in a list: " (provisioning, counted as it bills once it runs)" for one not running yet. */
const pending = (rate: Rate): string => (rate.bills && rate.committed ? ` (${committedNote(rate.resource.status)})` : '');

function finishMoney(ctx: Ctx, used: Set<Feature>, text: string): string {
  ctx.use.add(...used);
  return text;
}

// ---------------------------------------------------------------------------------------------
// The account: the burn, the runway, what costs the most.

/**
 * "What am I spending per hour", "how long will my balance last": the burn, what it goes on, the
 * balance and the runway, from the same reads and the same pricing as `cost summary`.
 */
export function answerBurn(ctx: Ctx): string {
  const view = needMoney(ctx);
  const s = view.summary;
  const { q } = ctx;
  checkCurrencies(ctx, s.currency);
  const cur = s.currency.toUpperCase();
  for (const r of s.resources) ctx.subjects.add(catalogueKind(r), [r.id]);
  ctx.use.add('total');
  // The burn is said per hour, per day and per 30 days; a week or a year is added when asked.
  if (q.period) ctx.use.add('period');
  const balance = s.balance === null ? undefined : `${formatAmount(s.balance)} ${cur}`;
  // "Am I spending more than 10 USD per day?" says yes or no first; "am I spending anything?" too.
  const compared = burnComparison(ctx, s.hourly_cost, cur) ?? (q.yesNo ? (s.hourly_cost > 0 ? 'Yes: ' : 'No: ') : undefined);
  if (s.hourly_cost <= 0) {
    if (q.duration) ctx.use.add('duration');
    return `${compared ?? ''}${compared === 'Yes: ' || compared === 'No: ' ? 'nothing' : 'Nothing'} bills right now (0 ${cur} per hour)${balance ? `; your balance of ${balance} is not being drawn down` : ''}.`;
  }
  const extra = q.period === 'week' || q.period === 'year' ? `, ${money(s.hourly_cost * PERIOD_HOURS[q.period], undefined)} ${PERIOD_WORDS[q.period]}` : '';
  const lines = [
    `${compared ?? ''}You are spending ${formatRate(s.hourly_cost)} ${cur} per hour (${formatAmount(s.daily_cost)} per day, ${formatAmount(s.monthly_forecast)} per 30 days${extra}) on ${plural(s.resources.length, 'billable resource', 'billable resources')}.`,
  ];
  const top = sortResources(s.resources, 'cost').slice(0, TOP_SPENDERS);
  lines.push(`Most of it: ${top.map((r) => `${r.kind} ${r.name} ${hourly(r.hourly_cost ?? 0, s.currency)}/hour`).join(', ')}.`);
  const offline = s.resources.filter((r) => r.kind === 'instance' && r.status === 'offline');
  if (offline.length) lines.push(`${plural(offline.length, 'offline instance still bills', 'offline instances still bill')} (shutdown keeps billing, only delete stops it): ${listNames(offline.map((r) => r.name))}.`);
  // Counted before they run, as `cost summary` and the budget count them (a synthetic OS volume's name says its status).
  const early = s.resources.filter(isCommitted);
  if (early.length) lines.push(`Not running yet but counted, as ${early.length === 1 ? 'it bills once it runs' : 'they bill once they run'}: ${listNames(early.map((r) => `${r.kind} ${r.name}${r.name.endsWith(`(${r.status})`) ? '' : ` (${r.status})`}`))}.`);
  if (balance && s.runway_hours !== null && s.runway_until) {
    lines.push(`Your balance of ${balance} lasts ${s.runway_hours.toFixed(1)} hours (${(s.runway_hours / 24).toFixed(1)} days) at this rate, until ${when(s.runway_until)}.`);
    if (q.duration) ctx.use.add('duration');
  }
  if (s.unpriced.length) lines.push(`Not counted (no price known): ${s.unpriced.join('; ')}.`);
  return lines.join('\n').replace(/^(Yes|No): You/, (_m, yn: string) => `${yn}: you`);
}

/** "Am I spending more than 10 USD per day?": yes or no, from the burn. */
function burnComparison(ctx: Ctx, perHour: number, cur: string): string | undefined {
  const { q } = ctx;
  if (!q.comparisons.length) return undefined;
  for (const c of q.comparisons) if (comparedAs(q, c) !== 'price') throw new BuiltinCannotAnswer(`the burn is money, not "${c.text}"`, COST_ANSWER_HINT);
  const texts = q.comparisons.map((c) => comparisonText(q, c, cur));
  const ok = q.comparisons.every((c) => compare(perHour * PERIOD_HOURS[q.period!], c));
  ctx.use.add('compare', 'period');
  return `${ok ? 'Yes' : 'No'}: ${rateText(perHour, q.period!, cur)} is ${ok ? '' : 'not '}${both(texts)}. `;
}

/** "What costs the most?" with no kind: of everything that bills now. */
export function answerMostCostly(ctx: Ctx): string {
  const view = needMoney(ctx);
  const s = view.summary;
  const { q } = ctx;
  const highest = q.superlative!.highest;
  checkCurrencies(ctx, s.currency);
  ctx.use.add('superlative', 'attributes');
  if (q.period) ctx.use.add('period');
  const priced = s.resources.filter((r) => r.hourly_cost !== null);
  if (!priced.length) return `Nothing bills right now (0 ${s.currency.toUpperCase()} per hour).`;
  const best = priced.reduce((b, r) => (highest ? Math.max(b, r.hourly_cost!) : Math.min(b, r.hourly_cost!)), highest ? -Infinity : Infinity);
  const top = priced.filter((r) => r.hourly_cost === best).sort((a, b) => a.name.localeCompare(b.name));
  for (const r of top) ctx.subjects.add(catalogueKind(r), [r.id]);
  const p = periodOf(q);
  const who = both(top.map((r) => `${r.kind} ${r.name}${isCommitted(r) && !r.name.endsWith(`(${r.status})`) ? ` (${committedNote(r.status)})` : ''}`)).replace(/^./, (c) => c.toUpperCase());
  const unpriced = s.unpriced.length ? ` Not counted (no price known): ${s.unpriced.join('; ')}.` : '';
  const of = top.some(isCommitted) ? 'what the burn counts' : 'what bills now';
  return `${who} ${top.length === 1 ? 'costs' : 'cost'} the ${highest ? 'most' : 'least'} of ${of}: ${rateText(best, p, s.currency)}${top.length > 1 ? ' each' : ''}, of your ${rateText(s.hourly_cost, p, s.currency)} in all.${unpriced}`;
}

// ---------------------------------------------------------------------------------------------
// GPUs counted: "how many GPUs are running?" sums the GPUs of the instances (and clusters) it names.

export function answerGpuCount(ctx: Ctx, data: (kind: string) => unknown): string {
  const { q } = ctx;
  const kinds = q.kinds.length ? q.kinds : ['instances', 'clusters'];
  if (!kinds.every((k) => k === 'instances' || k === 'clusters')) throw new BuiltinCannotAnswer(`they count the GPUs of instances and clusters, not of ${both(kinds.filter((k) => k !== 'instances' && k !== 'clusters'))}`);
  const counted: { spec: KindSpec; r: Rec; gpus: number }[] = [];
  const looked: string[] = [];
  let used = new Set<Feature>();
  for (const kind of kinds) {
    const spec = kindSpec(kind)!;
    const records = Array.isArray(data(kind)) ? (data(kind) as unknown[]).filter(isRec) : undefined;
    if (!records) {
      // Clusters not read: the count would leave their GPUs out.
      if (q.kinds.length || kind === 'instances') throw new BuiltinCannotAnswer(`the ${kind} were not read`);
      throw new BuiltinCannotAnswer('the clusters were not read, so their GPUs cannot be counted');
    }
    const filtered = filterRows(ctx, spec, records);
    const compared = applyComparisons(ctx, spec, filtered.rows, ctx.money?.currency ?? 'usd');
    used = new Set([...used, ...filtered.used]);
    for (const r of compared?.rows ?? filtered.rows) {
      const gpus = gpusOf(ctx, spec, r);
      if (gpus === undefined) throw new BuiltinCannotAnswer(`the GPU count of ${words(spec).one} ${nameOf(spec, r)} is not known`);
      if (gpus > 0) counted.push({ spec, r, gpus });
    }
    looked.push(kind);
  }
  used.add('total');
  ctx.use.add(...used, 'gpuCount');
  const total = counted.reduce((s, x) => s + x.gpus, 0);
  ctx.subjects.add('instances', counted.filter((x) => x.spec.kind === 'instances').map((x) => idOf(x.spec, x.r)));
  ctx.subjects.add('clusters', counted.filter((x) => x.spec.kind === 'clusters').map((x) => idOf(x.spec, x.r)));
  const where = used.has('location') ? ` in ${both(q.locations)}` : '';
  const adjectives = describe(ctx, new Set([...used].filter((f) => f !== 'location' && f !== 'processor')), 'GPUs').noun;
  const gpuWord = total === 1 ? adjectives.replace(/GPUs$/, 'GPU') : adjectives;
  const holders = (['instances', 'clusters'] as const)
    .map((k) => ({ k, n: counted.filter((x) => x.spec.kind === k).length }))
    .filter((x) => x.n)
    .map((x) => plural(x.n, x.k.slice(0, -1), x.k));
  const each = counted
    .sort((a, b) => b.gpus - a.gpus || nameOf(a.spec, a.r).localeCompare(nameOf(b.spec, b.r)))
    .slice(0, MAX_NAMES)
    .map((x) => `${nameOf(x.spec, x.r)} ${x.gpus}`);
  const list = each.length ? `, on ${both(holders)}: ${each.join(', ')}${counted.length > MAX_NAMES ? ` and ${counted.length - MAX_NAMES} more` : ''}` : '';
  const yes = q.yesNo ? (total > 0 ? 'Yes: ' : 'No: ') : '';
  if (used.has('status')) return `${yes}${total} ${gpuWord} ${total === 1 ? 'is' : 'are'} ${statusText(q)}${where}${list}.`;
  return `${yes}${q.yesNo ? 'you' : 'You'} have ${total} ${gpuWord}${where}${list}.`;
}

// ---------------------------------------------------------------------------------------------
// Named resources added up: "how much do big and data cost together?".

/** What several named billed resources cost together now, each and in all, in the period asked. */
export function answerNamedTotal(ctx: Ctx, named: { spec: KindSpec; record: Rec }[]): string {
  const view = needMoney(ctx);
  const { q } = ctx;
  checkCurrencies(ctx, view.currency);
  ctx.use.add('attributes', 'total');
  if (q.period) ctx.use.add('period');
  const p = periodOf(q);
  const priced: { name: string; perHour: number; rate: Rate }[] = [];
  const notes: string[] = [];
  for (const { spec, record } of named) {
    const name = nameOf(spec, record);
    const rate = view.rate(spec.kind, idOf(spec, record), record.status);
    ctx.subjects.add(spec.kind, [idOf(spec, record)]);
    if (rate.bills && rate.per_hour !== null) priced.push({ name, perHour: rate.per_hour, rate });
    else notes.push(`${name} (${rate.bills ? rate.why : `${rate.status}, not billing now`})`);
  }
  const tail = notes.length ? ` Not counted: ${listNames(notes)}.` : '';
  if (!priced.length) return `None of them bills right now.${tail}`;
  const total = priced.reduce((s, x) => s + x.perHour, 0);
  const each = priced.map((x) => `${x.name} ${rateText(x.perHour, p, view.currency)}${pending(x.rate)}`).join(', ');
  return `${both(named.map((n) => nameOf(n.spec, n.record)))} cost ${rateText(total, p, view.currency)} together now: ${each}.${tail}`;
}
