/**
 * A dry run: validate once, then only reads (prices, availability, balance, existing names) through
 * the same executor. Destructive steps are shown and marked rather than refused; an invalid plan fails
 * as usual. Shared by `ask --apply --dry-run` and the MCP validate tool.
 */
import type { Plan } from '../schemas/plan.js';
import type { StepClass } from '../engine/provider.js';
import { budgetFigures, budgetRefusal, type PricedPart } from '../engine/plan/budget.js';
import { checkPlan } from '../engine/plan/check.js';
import { describeConflict, findNameConflicts, listerFor, NameSnapshots, type NameConflict } from '../engine/plan/names.js';
import { buildPreview, previewSteps, type Preview } from '../engine/plan/preview.js';
import { validatePlan } from '../engine/plan/validate.js';
import { runForResult, type PlanBackend } from './run-plan.js';

export interface DryRunOutcome {
  preview: Preview;
  /** The plan has destructive steps and `destroyer` was not given: applying it would be refused. */
  gated: boolean;
  /** Creates whose names already exist: applying would be refused (unless duplicates are allowed). */
  duplicateNames: NameConflict[];
  /** Applying would be refused by the budget guard. */
  overBudget: boolean;
}

/** A budget limit and where it came from (`--max-hourly-cost`, `budget.max_hourly`, …). */
export interface BudgetLimit {
  max: number;
  from: string;
}

export async function dryRunPlan(backend: PlanBackend, input: unknown, opts: { destroyer: boolean; signal?: AbortSignal; budget?: BudgetLimit }): Promise<DryRunOutcome> {
  const providers = await backend.providers.forPlan(input);
  const validation = validatePlan(input, { providers, destroyer: true, predefined: Object.keys(backend.predefined) });
  const { plan, classes } = validation.ok
    ? { plan: validation.plan!, classes: validation.classes }
    : checkPlan(input, { providers, destroyer: true, predefined: backend.predefined });
  return previewPlan(backend, plan, classes, opts);
}

/**
 * Each provider prices its own steps (all of them, or all but `skip`: what a resumed run has done),
 * reading through the executor like any plan. A read repeated by the preview and the burn is sent once.
 */
export async function pricePlan(backend: PlanBackend, plan: Plan, classes: readonly StepClass[], opts: { signal?: AbortSignal; skip?: ReadonlySet<number> } = {}): Promise<{ parts: PricedPart[]; providers: string[] }> {
  const signal = opts.signal ?? backend.runContext().signal;
  const parts: PricedPart[] = [];
  const providers = new Set<string>();
  const loaded = await backend.providers.forPlan(plan);
  for (const provider of loaded.list) {
    const steps = plan.commands
      .map((c, index) => ({ index, args: c.args, class: classes[index]! }))
      .filter((s) => !opts.skip?.has(s.index) && loaded.verb(s.args[0]!)?.provider === provider);
    if (!steps.length) continue;
    providers.add(provider.name);
    if (!provider.preview) continue;
    const seen = new Map<string, Promise<unknown>>();
    const read = (args: string[]) => {
      const key = JSON.stringify(args);
      if (!seen.has(key)) seen.set(key, runForResult(backend, { version: 1, provider: provider.name, commands: [{ args, reason: 'dry run' }] }, { signal }));
      return seen.get(key)!;
    };
    parts.push({ provider, preview: await provider.preview(steps, read, backend.predefined), read });
  }
  return { parts, providers: [...providers] };
}

/** The preview of a plan already validated (with the step classes of its validation). */
export async function previewPlan(backend: PlanBackend, plan: Plan, classes: readonly StepClass[], opts: { destroyer: boolean; signal?: AbortSignal; budget?: BudgetLimit }): Promise<DryRunOutcome> {
  const context = backend.runContext();
  const signal = opts.signal ?? context.signal;
  const loaded = await backend.providers.forPlan(plan);
  const { parts, providers } = await pricePlan(backend, plan, classes, { signal });
  const preview = buildPreview(previewSteps(plan, classes, loaded, backend.predefined), parts.map((p) => p.preview));
  // The burn before and after, when a budget limit is set (reading the burn lists every billable kind:
  // a dry run without a budget keeps to the reads it needs).
  const budget = opts.budget ? await budgetFigures(parts, providers, opts.budget) : undefined;
  if (budget) {
    preview.budget = budget;
    const refusal = budgetRefusal(budget);
    if (refusal) preview.warnings.push(`applying it would be refused: ${refusal.message.replace(/; nothing was sent$/, '')}`);
  }
  const duplicateNames = await findNameConflicts(plan, classes, loaded, new NameSnapshots(listerFor((p) => context.client(p), signal)));
  for (const c of duplicateNames) preview.warnings.push(`${describeConflict(c)}; applying it would be refused without --allow-duplicate-names`);
  return { preview, gated: !opts.destroyer && classes.some((c) => c.effect === 'destroy'), duplicateNames, overBudget: preview.budget?.within === false };
}
