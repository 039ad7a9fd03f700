/**
 * What a plan costs, the same for a dry run, the budget guard of an apply and what a person is asked to
 * consent to: each provider prices its own change steps from their canonical requests, with reads
 * through the executor (DESIGN §8: priced, free or unpriced). A change step of a provider that cannot
 * price, or that its provider's preview leaves out, is unpriced.
 */
import type { StepPrice } from '../../engine/core/provider.js';
import { addedPerHour, budgetFigures, type BudgetFigures, type PricedPart, type Unpriced } from '../../engine/core/plan/budget.js';
import type { PreviewablePlan } from '../../engine/core/plan/check.js';
import type { PlanBackend } from '../run/run-plan.js';
import { readResult } from './reads.js';

/** A budget limit and where it came from (`--max-hourly-cost`, `budget.max_hourly`, …). */
export interface BudgetLimit {
  max: number;
  from: string;
  /** Unpriced changes do not make the guard refuse (`--allow-unpriced`). */
  allowUnpriced?: boolean;
}

export interface PricedPlan {
  parts: PricedPart[];
  /** Providers with steps in the plan. */
  providers: string[];
  /** Change steps no provider priced (step 2, `cloud_b create of instance: cloud_b cannot price its changes`). */
  unpricedChanges: Unpriced[];
  /** Every change step's price, by step (the unpriced ones above included). */
  prices: Map<number, StepPrice>;
  /** The currency of the priced parts (the first provider's balance), for consent. */
  currency: string;
}

/**
 * Each provider prices its own change steps (all of them, or all but `skip`: what a resumed run has
 * done), reading through the executor like any plan. A read repeated by the preview and the burn is sent once.
 */
export async function pricePlan(backend: PlanBackend, checked: PreviewablePlan, opts: { signal?: AbortSignal; skip?: ReadonlySet<number> } = {}): Promise<PricedPlan> {
  const { plan, classes, requests } = checked;
  const parts: PricedPart[] = [];
  const providers = new Set<string>();
  const unpricedChanges: Unpriced[] = [];
  const prices = new Map<number, StepPrice>();
  const loaded = await backend.providers.forPlan(plan);
  for (const provider of loaded.list) {
    const steps = plan.commands
      .map((c, index) => ({ index, args: c.args, class: classes[index]!, request: requests[index], alternatives: c.alternatives }))
      .filter((s) => !opts.skip?.has(s.index) && loaded.verb(s.args[0]!)?.provider === provider);
    if (!steps.length) continue;
    providers.add(provider.name);
    const changes = steps.filter((s) => s.class.effect !== 'read');
    const unpricedStep = (s: (typeof steps)[number], why: string) => {
      const text = `${provider.name} ${s.class.effect}${s.class.kind ? ` of ${s.class.kind}` : ''}: ${why}`;
      unpricedChanges.push({ step: s.index, why: text });
      prices.set(s.index, { step: s.index, price: { price: 'unpriced', why: text } });
    };
    if (!provider.preview) {
      for (const s of changes) unpricedStep(s, `${provider.name} cannot price its changes`);
      continue;
    }
    const seen = new Map<string, Promise<unknown>>();
    const read = (args: string[]) => {
      const key = JSON.stringify(args);
      if (!seen.has(key)) seen.set(key, readResult(backend, { version: 1, provider: provider.name, commands: [{ args, reason: 'price the plan' }] }, { signal: opts.signal }));
      return seen.get(key)!;
    };
    const preview = await provider.preview(steps, read, backend.predefined);
    parts.push({ provider, preview, read });
    for (const c of preview.changes) prices.set(c.step, c);
    // Default deny: a change step the provider said nothing about is not free.
    for (const s of changes) if (!prices.has(s.index)) unpricedStep(s, `${provider.name} gave it no price`);
  }
  const currency = parts.find((p) => p.preview.balance)?.preview.balance?.currency ?? 'usd';
  return { parts, providers: [...providers], unpricedChanges, prices, currency };
}

/** The burn before and after a priced plan, against a limit when one is set. */
export function figuresFor(priced: PricedPlan, limit?: BudgetLimit, pending = 0): Promise<BudgetFigures> {
  return budgetFigures(priced.parts, priced.providers, limit, priced.unpricedChanges, pending);
}

/** Whether the plan has anything the guard must weigh: a change that raises the burn, or one no one can price. */
export function addsCost(priced: PricedPlan): boolean {
  return priced.unpricedChanges.length > 0 || priced.parts.some((p) => p.preview.changes.some((c) => c.price.price === 'unpriced')) || addedPerHour(priced.parts) > 0;
}
