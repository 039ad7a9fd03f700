/**
 * What a dry run shows: each step with what it does, and each provider's price preview of what the
 * plan creates (cost per hour and per 30 days, availability, the balance it would draw on).
 */
import type { Plan } from '../../../schemas/plan.js';
import type { CanonicalRequest, CostLine, PricePreview, ProviderSet, StepClass, StepPrice } from '../provider.js';
import { substituteValue } from './bindings.js';
import type { BudgetFigures } from './budget.js';
import { formatAmount, formatRate } from '../render/money.js';

export type { CostLine };

export interface PreviewStep {
  index: number;
  request: string;
  body?: unknown;
  reason: string;
  destructive: string[];
  /** A change step's price, from its canonical request: priced (its hourly difference), free or unpriced, with why. */
  price?: { price: 'priced'; per_hour: number } | { price: 'free' | 'unpriced'; why: string };
}

export interface Preview {
  steps: PreviewStep[];
  /** The lines of the priced changes (the dry run's cost table). */
  costs: CostLine[];
  total_per_hour: number;
  total_per_30_days: number;
  /** Change steps no price is known for, with why: a budget refuses them without --allow-unpriced. */
  unpriced: { step: number; why: string }[];
  balance?: { amount: number; currency: string; hours_covered?: number };
  /** The account's burn before and after the plan (and the limit, when one is set). */
  budget?: BudgetFigures;
  /** What each create's idle auto-stop saves per idle hour once it acts (engine/producers/autostop/saving.ts). */
  idle_savings?: IdleSaving[];
  /** The plan's notes: what its maker chose that the request did not say (defaults that cost money, auto-stop). */
  notes?: string[];
  /** How long the balance lasts at the account's burn now, and with the plan's creates added. */
  runway?: Runway;
  warnings: string[];
}

/** One create's auto-stop policy priced: what stops billing while the instance is stopped for idleness, and what still bills. */
export interface IdleSaving {
  step: number;
  name: string;
  policy: string;
  /** null: the price of what stops billing is not known. */
  saves_per_hour: number | null;
  still_bills_per_hour: number | null;
  note: string;
}

export interface Runway {
  balance: number;
  currency: string;
  current_per_hour: number;
  after_per_hour: number;
  /** null: nothing bills, the balance is not drawn down. */
  hours_now: number | null;
  hours_after: number | null;
}

/** The runway of a balance at the burn before and after a plan (the figures of `cost summary`, plus the plan). */
export function runwayOf(balance: { amount: number; currency: string }, burn: Pick<BudgetFigures, 'current_per_hour' | 'after_per_hour'>): Runway {
  const hours = (perHour: number) => (perHour > 0 ? Math.max(0, balance.amount) / perHour : null);
  return {
    balance: balance.amount,
    currency: balance.currency,
    current_per_hour: burn.current_per_hour,
    after_per_hour: burn.after_per_hour,
    hours_now: hours(burn.current_per_hour),
    hours_after: hours(burn.after_per_hour),
  };
}

/** "lasts 57.1 hours (2.4 days) at the current burn (13.1379 USD/hour), 31.8 hours (1.3 days) with this plan added (23.5779 USD/hour)". */
export function runwayText(r: Runway): string {
  const cur = r.currency.toUpperCase();
  const span = (h: number | null) => (h === null ? 'without end (nothing bills)' : `${h.toFixed(1)} hours (${(h / 24).toFixed(1)} days)`);
  return `${formatAmount(r.balance)} ${cur} lasts ${span(r.hours_now)} at the current burn (${formatRate(r.current_per_hour)} ${cur}/hour), ${span(r.hours_after)} with this plan added (${formatRate(r.after_per_hour)} ${cur}/hour)`;
}

const HOURS_PER_30_DAYS = 720;

/** The steps of a plan as a dry run lists them (placeholders from config substituted). */
export function previewSteps(
  plan: Plan,
  classes: readonly StepClass[],
  providers: ProviderSet,
  predefined: Record<string, string>,
  requests: readonly (CanonicalRequest | undefined)[] = [],
  prices: ReadonlyMap<number, StepPrice> = new Map(),
): PreviewStep[] {
  return plan.commands.map((c, index) => {
    const { verb } = providers.verb(c.args[0]!)!;
    const args = verb.substitute(c.args, predefined);
    const cls = classes[index];
    const p = prices.get(index)?.price;
    const price = p === undefined ? undefined : p.price === 'priced' ? { price: p.price, per_hour: p.per_hour } : { price: p.price, why: p.why };
    // The body as it is sent (its canonical form, keys as the API names them), else the verb's own detail.
    const request = requests[index];
    const body = request ? (request.body === undefined ? undefined : substituteValue(request.body, predefined)) : verb.detail?.(args);
    return { index, request: verb.describe(args, request), body, reason: c.reason, destructive: cls?.effect === 'destroy' ? cls.reasons : [], ...(price ? { price } : {}) };
  });
}

/** Puts the steps and every provider's price preview together (`unpriced`: change steps no provider priced). */
export function buildPreview(steps: PreviewStep[], parts: readonly PricePreview[], unpriced: readonly { step: number; why: string }[] = []): Preview {
  const costs = parts.flatMap((p) => p.changes.flatMap((c) => (c.price.price === 'priced' ? c.price.lines : []))).sort((a, b) => a.step - b.step);
  const totalPerHour = costs.reduce((s, c) => s + (c.per_hour ?? 0), 0);
  const fromParts = parts.flatMap((p) => p.changes.flatMap((c) => (c.price.price === 'unpriced' ? [{ step: c.step, why: c.price.why }] : [])));
  return {
    steps,
    costs,
    total_per_hour: totalPerHour,
    total_per_30_days: totalPerHour * HOURS_PER_30_DAYS,
    unpriced: [...fromParts, ...unpriced].sort((a, b) => a.step - b.step),
    balance: parts.find((p) => p.balance)?.balance,
    warnings: parts.flatMap((p) => p.warnings),
  };
}

/** A human rendering of the preview (stdout in table mode). */
export function renderPreview(p: Preview): string {
  const money = (n: number | undefined) => (n === undefined ? '?' : formatAmount(n));
  const lines: string[] = ['Plan (dry run: only GET requests were sent)'];
  for (const s of p.steps) {
    lines.push(`  ${s.index}. ${s.request}${s.destructive.length ? '   [DESTRUCTIVE: ' + s.destructive.join('; ') + ']' : ''}`);
    lines.push(`     ${s.reason}`);
    if (s.body !== undefined) lines.push(...JSON.stringify(s.body, null, 2).split('\n').map((l) => `       ${l}`));
  }
  if (p.costs.length) {
    lines.push('', 'Costs:');
    for (const c of p.costs) {
      const avail = c.available === undefined ? '' : c.available ? '   available now' : '   NOT AVAILABLE now';
      const what = c.kind === 'volume' || c.size_gb !== undefined ? `${c.part ?? c.kind} ${c.type} ${c.size_gb ?? '?'} GB` : c.part ? `${c.part}${c.spot ? ' (spot)' : ''}` : `${c.kind} ${c.type}${c.spot ? ' (spot)' : ''}`;
      lines.push(`  step ${c.step}: ${what}${c.location ? ` in ${c.location}` : ''}   ${money(c.per_hour)}/hour   ${money(c.per_30_days)}/30 days${avail}`);
      if (c.choices) {
        // A create with alternatives: the line above is its most expensive choice; each choice below.
        lines.push(`     counted at its most expensive choice; the create makes the first with capacity, in this order:`);
        for (const ch of c.choices) {
          const a = ch.available === undefined ? '' : ch.available ? '   available now' : '   NOT AVAILABLE now';
          lines.push(`     ${ch.choice === 0 ? 'as written   ' : `alternative ${ch.choice}`}: ${ch.type}${ch.spot ? ' (spot)' : ''}${ch.location ? ` in ${ch.location}` : ''}   ${money(ch.per_hour)}/hour${a}${ch.note && !ch.per_hour ? `   (${ch.note})` : ''}`);
        }
      }
    }
    lines.push(`  total: ${money(p.total_per_hour)}/hour, ${money(p.total_per_30_days)}/30 days`);
  }
  if (p.unpriced.length) {
    lines.push('', 'Unpriced (no price is known; a budget refuses these without --allow-unpriced):');
    for (const u of p.unpriced) lines.push(`  step ${u.step}: ${u.why}`);
  }
  if (p.balance) {
    const covered = p.balance.hours_covered === undefined ? '' : ` (covers ${p.balance.hours_covered.toFixed(1)} hours of the new resources)`;
    lines.push(`Balance: ${formatAmount(p.balance.amount)} ${p.balance.currency.toUpperCase()}${covered}`);
  }
  if (p.runway) lines.push(`Runway: ${runwayText(p.runway)}`);
  if (p.budget) {
    const b = p.budget;
    const cur = b.currency.toUpperCase();
    const limit = b.max_hourly === undefined ? '' : `; limit ${formatRate(b.max_hourly)} ${cur}/hour (${b.limit_from}): ${b.within ? 'within' : 'EXCEEDED'}`;
    lines.push(`Burn: ${formatRate(b.current_per_hour)} ${cur}/hour now, ${formatRate(b.after_per_hour)} ${cur}/hour after this plan (+${formatRate(b.added_per_hour)})${limit}`);
    if (b.not_counted.length) lines.push(`  not counted (cannot be priced): ${b.not_counted.join(', ')}`);
  }
  if (p.idle_savings?.length) {
    lines.push('Auto-stop (per hour an instance is stopped for idleness):');
    for (const a of p.idle_savings) lines.push(`  step ${a.step}: ${a.name}: ${a.policy}: saves ${money(a.saves_per_hour ?? undefined)}/hour, still bills ${money(a.still_bills_per_hour ?? undefined)}/hour (${a.note})`);
  }
  if (p.notes?.length) lines.push('Notes:', ...p.notes.map((n) => `  - ${n}`));
  return lines.join('\n') + '\n';
}
