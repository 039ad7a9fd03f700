/**
 * What the parts of the built-in answers share (answer.ts, money.ts): reading records, saying numbers
 * and names, what each part used of the question, the resources an answer is about (its subjects, for
 * talk's follow-ups), and the decline.
 */
import { KINDS, type KindSpec } from '../../providers/gpucloud/catalogue.js';
import { InvalidInputError } from '../../core/errors.js';
import { BUILTIN_ANSWER_HINT } from './hint.js';
import { PERIOD_HOURS, PERIOD_WORDS, type Period } from './amounts.js';
import type { Question } from './question.js';
import type { MoneyView } from './money-view.js';
import { formatAmount, formatShortRate } from '../../core/render/money.js';

/** The built-in answers cannot answer this question exactly; nothing was guessed (exit 2). */
export class BuiltinCannotAnswer extends InvalidInputError {
  constructor(why: string, hint: string = BUILTIN_ANSWER_HINT) {
    super('builtin_cannot_answer', `the built-in answers (no AI model) cannot answer this exactly: ${why}; nothing was guessed`, { hint });
  }
}

export type Rec = Record<string, unknown>;
export type Feature = 'status' | 'location' | 'processor' | 'models' | 'spot' | 'superlative' | 'attributes' | 'period' | 'compare' | 'total' | 'gpuCount' | 'duration' | 'currency';

export const MAX_NAMES = 20;
export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
export const present = (v: unknown) => v !== undefined && v !== null && v !== '';

export function field(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Rec)[part] : undefined;
  return v;
}

export function nameOf(spec: KindSpec, record: unknown): string {
  const n = spec.nameField ? field(record, spec.nameField) : undefined;
  const id = field(record, spec.idField) ?? field(record, 'id');
  return String(n ?? id ?? '?');
}

export const idOf = (spec: KindSpec, record: unknown): string => String(field(record, spec.idField) ?? field(record, 'id') ?? '');

export function plural(n: number, singular: string, pluralWord: string): string {
  return `${n} ${n === 1 ? singular : pluralWord}`;
}

export function listNames(names: string[]): string {
  return names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES).join(', ')} and ${names.length - MAX_NAMES} more` : names.join(', ');
}

export function both(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function money(value: unknown, currency: unknown): string {
  const n = typeof value === 'number' ? value : Number(value);
  const c = typeof currency === 'string' ? currency.toUpperCase() : '';
  return `${Number.isFinite(n) ? formatAmount(n) : String(value)}${c ? ` ${c}` : ''}`;
}

/** Hourly prices in a sentence: the short rate (cents, or four decimals below 0.10 so a 0.0279 CPU node does not read as 0.03). */
export function hourly(value: unknown, currency: unknown): string {
  const n = Number(value);
  return Number.isFinite(n) ? `${formatShortRate(n)}${typeof currency === 'string' ? ` ${currency.toUpperCase()}` : ''}` : money(value, currency);
}

/** A rate in the period asked: "10.32 USD/hour", "247.68 USD per day". */
export function rateText(perHour: number, period: Period, currency: string): string {
  return period === 'hour' ? `${hourly(perHour, currency)}/hour` : `${money(perHour * PERIOD_HOURS[period], currency)} ${PERIOD_WORDS[period]}`;
}

export const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** Words for a kind: "instance types", "instance type". */
export const words = (spec: KindSpec) => ({ many: spec.kind.replace(/-/g, ' '), one: spec.singular.replace(/-/g, ' ') });

export const kindSpec = (kind: string): KindSpec | undefined => KINDS.find((k) => k.kind === kind);

export const TYPE_FIELD: Record<string, string> = { instances: 'instance_type', clusters: 'cluster_type', volumes: 'type', 'instance-types': 'instance_type', 'cluster-types': 'cluster_type' };

/** What one answer part used of the question, so a part of the question nothing used is caught. */
export class Use {
  readonly features = new Set<Feature>();
  add(...f: Feature[]): void {
    for (const x of f) this.features.add(x);
  }
}

/** The resources an answer is about, by catalogue kind and ID: what "them" means in talk's next question. */
export class Subjects {
  readonly byKind = new Map<string, Set<string>>();
  add(kind: string, ids: Iterable<string>): void {
    const set = this.byKind.get(kind) ?? new Set<string>();
    for (const id of ids) if (id) set.add(id);
    this.byKind.set(kind, set);
  }
  list(): { kind: string; ids: string[] }[] {
    return [...this.byKind].filter(([, ids]) => ids.size).map(([kind, ids]) => ({ kind, ids: [...ids] }));
  }
}

export interface Ctx {
  q: Question;
  use: Use;
  /** Instance and cluster types read alongside (for GPU or CPU, models, prices). */
  types: Map<string, Rec>;
  /** What bills now, priced as `cost summary` prices it, when the cost reads were made. */
  money?: MoneyView;
  subjects: Subjects;
}

export function finish(ctx: Ctx, used: Set<Feature>, text: string | undefined): string {
  ctx.use.add(...used);
  return text ?? '';
}

/** GPU or CPU, and the GPU model, of a type code (the type's record when it was read, else its code). */
export function typeMatches(ctx: Ctx, code: unknown): boolean {
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
export function describe(ctx: Ctx, used: Set<Feature>, noun: string): { noun: string; where: string } {
  const adjectives = [
    used.has('spot') ? 'spot' : '',
    used.has('models') ? ctx.q.models.map((m) => m.toUpperCase()).join('/') : '',
    used.has('processor') ? (ctx.q.processor === 'gpu' ? 'GPU' : 'CPU') : '',
  ].filter(Boolean);
  const where = used.has('location') ? ` in ${both(ctx.q.locations)}` : '';
  return { noun: [...adjectives, noun].join(' '), where };
}

export const statusText = (q: Question) => both(q.statuses.map((s) => `${s.not ? 'not ' : ''}${s.status}`));

/**
 * The records of a kind the question's filters keep (location, GPU or CPU, model, spot, then status),
 * what they used, and the rows before the status (so "none of your 2 GPU instances is running" counts
 * the ones it looked at).
 */
export function filterRows(ctx: Ctx, spec: KindSpec, records: Rec[]): { rows: Rec[]; before: Rec[]; used: Set<Feature> } {
  const { q } = ctx;
  const used = new Set<Feature>();
  let rows = records;
  if (q.locations.length && ['instances', 'clusters', 'volumes'].includes(spec.kind)) {
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
  const before = rows;
  if (q.statuses.length && spec.columns.some((c) => c.path === 'status')) {
    rows = rows.filter((r) => q.statuses.every((s) => (r.status === s.status) !== s.not));
    used.add('status');
  }
  return { rows, before, used };
}
