/**
 * The budget guard (DESIGN §8: priced or refused): under a limit (config `budget.max_hourly`,
 * `--max-hourly-cost`, the MCP apply tool's `max_hourly_cost`, a box's or talk session's config), every
 * change step must be priced from its canonical request by its provider, or proven free; a plan whose
 * priced changes would push the hourly burn above the limit is refused before any change is sent, and so
 * is a plan with a change no one can price (`budget_unpriced`), unless unpriced changes are allowed on
 * purpose (`--allow-unpriced`). Provider-neutral: the burn comes from each provider's `burn` hook (the
 * function behind its `cost summary`), what the plan adds from its `preview`, both read through the executor.
 *
 * Rules: what a step adds is its hourly difference, counted only when it raises the burn (a scale-down
 * does not make room for a scale-up elsewhere in the plan: it may be the step that fails). Refused when
 * the plan adds something (> 0 per hour) and current + added > limit; a plan that adds nothing is never
 * refused for the amount, even on an account already over the limit (it may be the plan that frees
 * resources). Providers without `burn` are not counted in the current burn, and the figures say so.
 */
import { AssistantError, ExitCode } from '../errors.js';
import type { PricePreview, Provider, PreviewRead } from '../provider.js';
import { formatRate } from '../render/money.js';

export interface BudgetFigures {
  currency: string;
  /** What the account burns now. */
  current_per_hour: number;
  /** What other runs on this machine that passed their budget check are adding, not yet in the burn (engine/core/plan/budget-holds.ts). */
  pending_per_hour?: number;
  /** What the plan's changes (still to run) add. */
  added_per_hour: number;
  after_per_hour: number;
  max_hourly?: number;
  /** Where the limit came from (`--max-hourly-cost`, `budget.max_hourly`, `max_hourly_cost`). */
  limit_from?: string;
  /** Only with a limit: the plan may run. */
  within?: boolean;
  /** Change steps no price is known for, `step N: why` (the guard refuses when there is a limit, unless `unpriced_allowed`). */
  unpriced: string[];
  /** `--allow-unpriced`: unpriced changes do not make the guard refuse. */
  unpriced_allowed?: boolean;
  /** Providers of the plan that cannot say what they burn (not counted). */
  not_counted: string[];
}

export interface PricedPart {
  provider: Provider<any>;
  preview: PricePreview;
  read: PreviewRead;
}

const EPSILON = 1e-9;

/** What the priced changes of the parts add to the burn: each step's difference when it raises it. */
export function addedPerHour(parts: readonly { preview: PricePreview }[]): number {
  let added = 0;
  for (const { preview } of parts) for (const c of preview.changes) if (c.price.price === 'priced') added += Math.max(0, c.price.per_hour);
  return added;
}

/** A change step no price is known for, and why. */
export interface Unpriced {
  step: number;
  why: string;
}

/** The unpriced change steps of the parts and the `others` no provider priced, in step order. */
export function unpricedSteps(parts: readonly { preview: PricePreview }[], others: readonly Unpriced[] = []): Unpriced[] {
  const found = parts.flatMap(({ preview }) => preview.changes.flatMap((c) => (c.price.price === 'unpriced' ? [{ step: c.step, why: c.price.why }] : [])));
  return [...found, ...others].sort((a, b) => a.step - b.step);
}

/**
 * The burn before and after the plan: what each provider's `burn` hook says the account burns now, and
 * what the plan's priced changes add. `unpricedChanges` are change steps of providers that priced
 * nothing for them (no `preview`, or a step its preview left out).
 */
export async function budgetFigures(
  parts: readonly PricedPart[],
  planProviders: readonly string[],
  limit?: { max: number; from: string; allowUnpriced?: boolean },
  unpricedChanges: readonly Unpriced[] = [],
  pending = 0,
): Promise<BudgetFigures> {
  let current = 0;
  let currency: string | undefined;
  const counted = new Set<string>();
  for (const { provider, read } of parts) {
    if (!provider.burn) continue;
    const burn = await provider.burn(read);
    counted.add(provider.name);
    currency ??= burn.currency;
    current += burn.per_hour;
  }
  const added = addedPerHour(parts);
  const figures: BudgetFigures = {
    currency: currency ?? 'usd',
    current_per_hour: current,
    ...(pending > 0 ? { pending_per_hour: pending } : {}),
    added_per_hour: added,
    after_per_hour: current + pending + added,
    unpriced: unpricedSteps(parts, unpricedChanges).map((u) => `step ${u.step}: ${u.why}`),
    not_counted: planProviders.filter((p) => !counted.has(p)),
  };
  if (limit) {
    Object.assign(figures, { max_hourly: limit.max, limit_from: limit.from, ...(limit.allowUnpriced ? { unpriced_allowed: true } : {}) });
    figures.within = budgetRefusal(figures) === undefined;
  }
  return figures;
}

const rate = (n: number, cur: string) => `${formatRate(n)} ${cur.toUpperCase()}/hour`;

/** The refusal for figures that break their limit (exit 3, nothing sent), or undefined. */
export function budgetRefusal(f: BudgetFigures): AssistantError | undefined {
  if (f.max_hourly === undefined) return undefined;
  const hint = `raise the limit (${f.limit_from ?? 'budget.max_hourly'}) or free resources first ('assistant cost summary' shows what burns)`;
  if (f.unpriced.length && !f.unpriced_allowed) {
    return new AssistantError('budget_unpriced', `cannot check the plan against the budget of ${rate(f.max_hourly, f.currency)}: no price is known for ${f.unpriced.join('; ')}; nothing was sent`, ExitCode.refused, {
      hint: `check what these cost yourself, then apply with --allow-unpriced to count them as free (a person can; an agent cannot); or apply without a budget`,
      details: f,
    });
  }
  if (f.added_per_hour <= EPSILON || f.after_per_hour <= f.max_hourly + EPSILON) return undefined;
  return new AssistantError(
    'budget_exceeded',
    `the plan would raise the burn above the budget: current burn ${rate(f.current_per_hour, f.currency)}${f.pending_per_hour ? ` + runs in progress on this machine ${rate(f.pending_per_hour, f.currency)}` : ''} + this plan ${rate(f.added_per_hour, f.currency)} = ${rate(f.after_per_hour, f.currency)}, above the limit of ${rate(f.max_hourly, f.currency)} (${f.limit_from ?? 'budget.max_hourly'}); nothing was sent`,
    ExitCode.refused,
    { hint, details: f },
  );
}
