/**
 * What a CLI provider's change steps cost (DESIGN §8: priced or refused), the way its allowlist says
 * what they do (engine/core/kits/cli/rules.ts): one table of rows per cloud, first match wins, and a
 * step no row names is `unpriced` (refused under a budget unless --allow-unpriced). A row is either
 * `free` (known to add nothing to the hourly bill: a removal, a stop, a tag, an empty container) or a
 * price function that reads the parsed step (and, through the executor, what exists now) and answers
 * `priced` with the hourly difference, or `unpriced` with why. Reads are free without a row.
 *
 * Prices come from a table the provider ships (its date, region and basis said with it), never from
 * the network during a plan; a table is refreshed on purpose (scripts/refresh-prices.mjs). Scale steps
 * are priced as the difference (new − current), the current value read where the cloud can tell it;
 * what cannot be read is priced in full (never lower).
 */
import { isAbortError } from '../../errors.js';
import type { Burn, ChangePrice, CostLine, PricePreview, PreviewRead, StepClass, StepPrice } from '../../provider.js';
import { option, parseCommand, wordsMatch, type CliSyntax, type ParsedCommand } from './argv.js';
import { pythonInt } from './decode.js';
import { hasPlaceholder } from '../../plan/bindings.js';

/** Hourly list prices of one cloud's machine types, per region, with where they came from. */
export interface PriceTable {
  /** What is priced (`EC2 on-demand, Linux, shared tenancy`): the basis the docs and the dry run state. */
  basis: string;
  currency: 'usd';
  /** When the prices were taken (YYYY-MM-DD), and from where (a hand-entered list, or the price API). */
  date: string;
  source: string;
  /** Region → machine type → USD per hour. */
  regions: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** A step as a provider's preview receives it. */
export interface PricedStep {
  index: number;
  args: readonly string[];
  class: StepClass;
}

/** What a price function gets: the step parsed, reads through the executor, and the steps before it in the plan. */
export interface PriceContext {
  step: PricedStep;
  cmd: ParsedCommand;
  read: PreviewRead;
  /** The earlier steps of the same plan and provider (a group scaled twice gets no credit the second time). */
  earlier: readonly { step: PricedStep; cmd: ParsedCommand }[];
  /** What the preview remembers across steps (the region it read once). */
  memo: Map<string, Promise<unknown>>;
}

export interface PriceRule {
  /** Command words, as in the allowlist (`autoscaling set-desired-capacity`, `** delete`). */
  command: string;
  /** What the row prices, for the docs table. */
  how: string;
  price: 'free' | ((ctx: PriceContext) => Promise<ChangePrice>);
}

/** A row that prices nothing: the change is known to add nothing to the hourly bill. */
export const free = (command: string, how: string): PriceRule => ({ command, how, price: 'free' });
/** A row whose price function reads the step. */
export const priced = (command: string, how: string, price: (ctx: PriceContext) => Promise<ChangePrice>): PriceRule => ({ command, how, price });

/** What a price function read from a step, or why it could not (the step is then unpriced). */
export type Found<T> = { value: T } | { unpriced: string };

export const unpriced = (why: string): ChangePrice => ({ price: 'unpriced', why });

/**
 * The value of an option given under any of `names` (`--location`, `-l`), the last one as the CLI reads
 * it; unpriced when one is only known at run time or two differ (which one counts is not certain).
 */
export function lastOption(cmd: ParsedCommand, ...names: string[]): Found<string | undefined> {
  const values = names.flatMap((name) => option(cmd, name) ?? []);
  if (values.some(hasPlaceholder)) return { unpriced: `${names[0]} is only known at run time` };
  const distinct = [...new Set(values.map((v) => v.trim()))];
  if (distinct.length > 1) return { unpriced: `${names[0]} given twice (${distinct.join(', ')}): which one counts is not certain` };
  return { value: values.at(-1) };
}

/** A read (once per preview) where the step acts: with the step's own value of each of `scope` (`--project`, `--region`). */
export function readWhereStepActs(ctx: Pick<PriceContext, 'read' | 'memo' | 'cmd'>, args: string[], scope: readonly string[]): Promise<unknown> {
  const given = scope.flatMap((name) => {
    const v = option(ctx.cmd, name)?.at(-1);
    return v === undefined ? [] : [name, v];
  });
  return readOnce(ctx, [...args, ...given]);
}

export interface CliPricing {
  syntax: CliSyntax;
  rules: readonly PriceRule[];
  table: PriceTable;
}

/** The row that prices a command, or undefined. */
export function matchPriceRule(rules: readonly PriceRule[], cmd: ParsedCommand): PriceRule | undefined {
  return rules.find((r) => wordsMatch(r.command, cmd.words));
}

/** The price of one step: a read is free; then the first matching row; no row: unpriced. */
export async function priceCliStep(pricing: CliPricing, step: PricedStep, read: PreviewRead, earlier: readonly PricedStep[] = [], memo = new Map<string, Promise<unknown>>()): Promise<ChangePrice> {
  if (step.class.refused?.length) return { price: 'unpriced', why: 'the step is refused (it never runs)' };
  if (step.class.effect === 'read') return { price: 'free', why: 'a read' };
  const cmd = parseCommand(step.args.slice(1), pricing.syntax);
  const shown = `${pricing.syntax.tool} ${cmd.rawWords.join(' ')}`.trim();
  if (cmd.undecidable.length || cmd.words.some(hasPlaceholder)) return { price: 'unpriced', why: `${shown}: the command is only known at run time` };
  const rule = matchPriceRule(pricing.rules, cmd);
  if (!rule) return { price: 'unpriced', why: `${shown}: no price is known for this command (only the changes listed in docs/safety.md are priced)` };
  if (rule.price === 'free') return { price: 'free', why: rule.how };
  const parsedEarlier = earlier.map((s) => ({ step: s, cmd: parseCommand(s.args.slice(1), pricing.syntax) }));
  try {
    return await rule.price({ step, cmd, read, earlier: parsedEarlier, memo });
  } catch (err) {
    if (isAbortError(err)) throw err;
    return { price: 'unpriced', why: `${shown}: ${oneLine(err)}` };
  }
}

/** A provider's share of a dry run: one price per change step (reads are left out: they are free). */
export async function previewCliSteps(pricing: CliPricing, steps: readonly PricedStep[], read: PreviewRead): Promise<PricePreview> {
  const changes: StepPrice[] = [];
  const memo = new Map<string, Promise<unknown>>();
  for (const [i, step] of steps.entries()) {
    if (step.class.effect === 'read' && !step.class.refused?.length) continue;
    changes.push({ step: step.index, price: await priceCliStep(pricing, step, read, steps.slice(0, i), memo) });
  }
  return { changes, warnings: [] };
}

/** Why something failed, in one line (a read's error). */
export function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 300);
}

/**
 * The price per hour of `type` in `region`, or undefined. Names match in any case (Azure reads
 * `standard_d2s_v3` as `Standard_D2s_v3`; a cloud that refuses the other case runs nothing): a
 * price is found, never guessed.
 */
export function hourlyPrice(table: PriceTable, region: string, type: string): number | undefined {
  const prices = table.regions[region] ?? Object.entries(table.regions).find(([r]) => r.toLowerCase() === region.toLowerCase())?.[1];
  if (!prices) return undefined;
  if (Object.hasOwn(prices, type)) return prices[type];
  const key = Object.keys(prices).find((k) => k.toLowerCase() === type.toLowerCase());
  return key === undefined ? undefined : prices[key];
}

/** Why a type or region has no price, in the words the dry run shows (the type first, so the line reads "instance x9.enormous: …"). */
export function notInTable(table: PriceTable, region: string, type: string): string {
  if (!Object.keys(table.regions).some((r) => r.toLowerCase() === region.toLowerCase())) return `${type}: the price table has no prices for region ${region} (it has ${Object.keys(table.regions).join(', ')}; refresh it: node scripts/refresh-prices.mjs)`;
  return `${type}: not in the price table (${table.basis}, ${region}, ${table.date})`;
}

/**
 * A count as the CLI would send it: every value given (argv and input JSON), the largest counted (a
 * later one may win in the CLI; the budget never counts lower). `undefined` when none is given,
 * `unknown` with why when one cannot be read (a placeholder, not an integer).
 */
export function countOf(values: readonly unknown[]): { count?: number; unknown?: string } {
  let most: number | undefined;
  for (const v of values) {
    let n: number | undefined;
    if (typeof v === 'number') n = Number.isFinite(v) ? Math.ceil(v) : undefined;
    else if (typeof v === 'string') {
      const p = pythonInt(v);
      n = typeof p === 'number' ? p : undefined;
    }
    if (n === undefined) return { unknown: v === undefined ? 'a count only known at run time' : `${JSON.stringify(v)} is not a count the gate can read` };
    if (n < 0) return { unknown: `${n} is not a count` };
    most = most === undefined ? n : Math.max(most, n);
  }
  return { count: most };
}

/** One priced line as a step's price. */
export function pricedLine(line: CostLine): ChangePrice {
  return { price: 'priced', per_hour: line.per_hour!, lines: [line] };
}

/** A priced line for `count` machines of `type` at `each` per hour. */
export function machineLine(step: number, kind: string, type: string, count: number, each: number, part?: string, location?: string): CostLine {
  const perHour = each * count;
  return { step, kind, type, ...(location ? { location } : {}), ...(part ? { part } : {}), per_hour: perHour, per_30_days: perHour * 720 };
}

/** The answer for a change of a machine count from `before` to `after`: priced by the difference, free when it does not grow. */
export function scalePrice(opts: { step: number; kind: string; type: string; each: number; before: number; after: number; location?: string; what: string }): ChangePrice {
  const more = opts.after - opts.before;
  if (more <= 0) return { price: 'free', why: `${opts.what}: from ${opts.before} to ${opts.after} (no more machines)` };
  const part = opts.before > 0 ? `${more} more (${opts.before} → ${opts.after})` : `${opts.after} machine${opts.after === 1 ? '' : 's'}`;
  return pricedLine(machineLine(opts.step, opts.kind, opts.type, more, opts.each, part, opts.location));
}

/** Sum of priced answers into one (a step that creates a cluster and its nodes). */
export function sumPrices(prices: readonly ChangePrice[]): ChangePrice {
  const unpriced = prices.find((p) => p.price === 'unpriced');
  if (unpriced) return unpriced;
  const lines = prices.flatMap((p) => (p.price === 'priced' ? p.lines : []));
  if (!lines.length) return prices[0] ?? { price: 'free', why: 'nothing billed' };
  return { price: 'priced', per_hour: lines.reduce((a, l) => a + (l.per_hour ?? 0), 0), lines };
}

/** What runs now burns: each thing's hourly price × its count (default 1); what has no price is listed with why. */
export function burnOf(running: Iterable<{ what: string; each: Found<number>; count?: number }>): Burn {
  let perHour = 0;
  const notPriced: string[] = [];
  for (const r of running) {
    if ('unpriced' in r.each) notPriced.push(`${r.what}: ${r.each.unpriced}`);
    else perHour += r.each.value * (r.count ?? 1);
  }
  return { per_hour: perHour, currency: 'usd', unpriced: notPriced };
}

/** A read that is made once per preview (the region, a group described twice). */
function readOnce(ctx: Pick<PriceContext, 'read' | 'memo'>, args: string[]): Promise<unknown> {
  const key = JSON.stringify(args);
  let p = ctx.memo.get(key);
  if (!p) ctx.memo.set(key, (p = ctx.read(args)));
  return p;
}

const PRICE_TEXT = (r: PriceRule) => (r.price === 'free' ? 'free' : 'priced');

/** The docs table of what a provider's budget prices (docs/safety.md), from the same rows. */
export function priceRulesMarkdown(tool: string, pricing: CliPricing): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = pricing.rules.map((r) => `| \`${cell(`${tool} ${r.command}`)}\` | ${PRICE_TEXT(r)} | ${cell(r.how)} |`);
  const t = pricing.table;
  return [
    `Prices: ${t.basis}, USD per hour, regions ${Object.keys(t.regions).join(', ')}; taken ${t.date} (${t.source}).`,
    '',
    '| command | budget | how |',
    '|---|---|---|',
    '| any read | free | reads bill nothing by the hour |',
    ...rows,
    '| anything else | unpriced | refused under a budget unless `--allow-unpriced` |',
  ].join('\n');
}
