/**
 * The budget guard: a plan whose creates would push the hourly burn above the limit (config
 * `budget.max_hourly`, `--max-hourly-cost`, the MCP apply tool's `max_hourly_cost`) is refused before
 * any change is sent. Provider-neutral: the burn comes from each provider's `burn` hook, what the plan
 * adds from its `preview` (the dry run's prices), both read through the executor.
 *
 * Rules: refused when the plan adds something (> 0 per hour) and current + added > limit; a plan that
 * adds nothing is never refused, even on an account already over the limit (it may be the plan that
 * frees resources). A create the provider cannot price makes the guard refuse too (it cannot tell),
 * unless unpriced creates are allowed on purpose. Providers without `burn` are not counted in the
 * current burn, and the figures say so.
 */
import { AssistantError, ExitCode } from '../errors.js';
import type { PricePreview, Provider, PreviewRead } from '../provider.js';

export interface BudgetFigures {
  currency: string;
  /** What the account burns now. */
  current_per_hour: number;
  /** What the plan's creates (still to run) add. */
  added_per_hour: number;
  after_per_hour: number;
  max_hourly?: number;
  /** Where the limit came from (`--max-hourly-cost`, `budget.max_hourly`, `max_hourly_cost`). */
  limit_from?: string;
  /** Only with a limit: the plan may run. */
  within?: boolean;
  /** Creates the providers could not price (the guard refuses when there is a limit, unless `unpriced_allowed`). */
  unpriced: string[];
  /** `--allow-unpriced` (MCP `allow_unpriced`): unpriced creates do not make the guard refuse. */
  unpriced_allowed?: boolean;
  /** Providers of the plan that cannot say what they burn or add (not counted). */
  not_counted: string[];
}

export interface PricedPart {
  provider: Provider<any>;
  preview: PricePreview;
  read: PreviewRead;
}

const EPSILON = 1e-9;

/**
 * The burn before and after the plan: what each provider's `burn` hook says the account burns now, and
 * what the plan's creates add from the providers' previews. `unpricedCreates` are creates of providers
 * that cannot price at all (no `preview`): unknown to the guard, so a budget refuses them unless
 * unpriced creates are allowed (`--allow-unpriced`).
 */
export async function budgetFigures(
  parts: readonly PricedPart[],
  planProviders: readonly string[],
  limit?: { max: number; from: string; allowUnpriced?: boolean },
  unpricedCreates: readonly string[] = [],
): Promise<BudgetFigures> {
  let current = 0;
  let added = 0;
  let currency: string | undefined;
  const unpriced: string[] = [...unpricedCreates];
  const counted = new Set<string>();
  for (const { provider, preview, read } of parts) {
    for (const c of preview.costs) {
      if (c.per_hour === undefined) unpriced.push(`step ${c.step}: ${c.part ?? c.kind} ${c.type}`);
      else added += c.per_hour;
    }
    if (!provider.burn) continue;
    const burn = await provider.burn(read);
    counted.add(provider.name);
    currency ??= burn.currency;
    current += burn.per_hour;
  }
  const after = current + added;
  const figures: BudgetFigures = {
    currency: currency ?? 'usd',
    current_per_hour: current,
    added_per_hour: added,
    after_per_hour: after,
    unpriced,
    not_counted: planProviders.filter((p) => !counted.has(p)),
  };
  if (limit) {
    Object.assign(figures, { max_hourly: limit.max, limit_from: limit.from, ...(limit.allowUnpriced ? { unpriced_allowed: true } : {}) });
    figures.within = budgetRefusal(figures) === undefined;
  }
  return figures;
}

const rate = (n: number, cur: string) => `${n.toFixed(4)} ${cur.toUpperCase()}/hour`;

/** The refusal for figures that break their limit (exit 3, nothing sent), or undefined. */
export function budgetRefusal(f: BudgetFigures): AssistantError | undefined {
  if (f.max_hourly === undefined) return undefined;
  const hint = `raise the limit (${f.limit_from ?? 'budget.max_hourly'}) or free resources first ('assistant cost summary' shows what burns)`;
  if (f.unpriced.length && !f.unpriced_allowed) {
    return new AssistantError('budget_exceeded', `cannot check the plan against the budget of ${rate(f.max_hourly, f.currency)}: no price is known for ${f.unpriced.join('; ')}; nothing was sent`, ExitCode.refused, {
      hint: `check what these cost yourself, then apply with --allow-unpriced to count them as free; or ${hint}`,
      details: f,
    });
  }
  if (f.added_per_hour <= EPSILON || f.after_per_hour <= f.max_hourly + EPSILON) return undefined;
  return new AssistantError(
    'budget_exceeded',
    `the plan would raise the burn above the budget: current burn ${rate(f.current_per_hour, f.currency)} + this plan ${rate(f.added_per_hour, f.currency)} = ${rate(f.after_per_hour, f.currency)}, above the limit of ${rate(f.max_hourly, f.currency)} (${f.limit_from ?? 'budget.max_hourly'}); nothing was sent`,
    ExitCode.refused,
    { hint, details: f },
  );
}
