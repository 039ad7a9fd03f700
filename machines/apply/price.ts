/**
 * What a plan costs, the same for a dry run and for the budget guard of an apply: each provider prices
 * its own steps with reads through the executor; creates of providers that cannot price are listed as
 * unpriced.
 */
import type { StepClass } from '../../engine/core/provider.js';
import { budgetFigures, type BudgetFigures, type PricedPart } from '../../engine/core/plan/budget.js';
import type { PreviewablePlan } from '../../engine/core/plan/check.js';
import type { PlanBackend } from '../run-plan.js';
import { readResult } from './reads.js';

/** A budget limit and where it came from (`--max-hourly-cost`, `budget.max_hourly`, …). */
export interface BudgetLimit {
  max: number;
  from: string;
  /** Unpriced creates do not make the guard refuse (`--allow-unpriced`). */
  allowUnpriced?: boolean;
}

export interface PricedPlan {
  parts: PricedPart[];
  /** Providers with steps in the plan. */
  providers: string[];
  /** Creates whose provider cannot price anything (`step 2: cloud_b create`). */
  unpricedCreates: string[];
}

/**
 * Each provider prices its own steps (all of them, or all but `skip`: what a resumed run has done),
 * reading through the executor like any plan. A read repeated by the preview and the burn is sent once.
 */
export async function pricePlan(backend: PlanBackend, checked: PreviewablePlan, opts: { signal?: AbortSignal; skip?: ReadonlySet<number> } = {}): Promise<PricedPlan> {
  const { plan, classes } = checked;
  const parts: PricedPart[] = [];
  const providers = new Set<string>();
  const unpricedCreates: string[] = [];
  const loaded = await backend.providers.forPlan(plan);
  for (const provider of loaded.list) {
    const steps = plan.commands
      .map((c, index) => ({ index, args: c.args, class: classes[index] as StepClass, alternatives: c.alternatives }))
      .filter((s) => !opts.skip?.has(s.index) && loaded.verb(s.args[0]!)?.provider === provider);
    if (!steps.length) continue;
    providers.add(provider.name);
    if (!provider.preview) {
      for (const s of steps) if (s.class.effect === 'create') unpricedCreates.push(`step ${s.index}: ${provider.name} create${s.class.kind ? ` of ${s.class.kind}` : ''}`);
      continue;
    }
    const seen = new Map<string, Promise<unknown>>();
    const read = (args: string[]) => {
      const key = JSON.stringify(args);
      if (!seen.has(key)) seen.set(key, readResult(backend, { version: 1, provider: provider.name, commands: [{ args, reason: 'price the plan' }] }, { signal: opts.signal }));
      return seen.get(key)!;
    };
    parts.push({ provider, preview: await provider.preview(steps, read, backend.predefined), read });
  }
  return { parts, providers: [...providers], unpricedCreates };
}

/** The burn before and after a priced plan, against a limit when one is set. */
export function figuresFor(priced: PricedPlan, limit?: BudgetLimit): Promise<BudgetFigures> {
  return budgetFigures(priced.parts, priced.providers, limit, priced.unpricedCreates);
}

/** Whether the plan adds anything the guard must weigh (a priced or an unpriced create). */
export function addsCost(priced: PricedPlan): boolean {
  return priced.unpricedCreates.length > 0 || priced.parts.some((p) => p.preview.costs.length > 0);
}
