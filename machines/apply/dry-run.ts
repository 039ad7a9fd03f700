/**
 * A dry run: validate once, then only reads (prices, availability, balance, existing names) through
 * the executor. Destructive steps are shown and marked rather than refused; an invalid plan fails as
 * usual. The figures are the ones the apply's budget guard would use (machines/apply/price.ts).
 */
import { InvalidInputError } from '../../engine/core/errors.js';
import { budgetRefusal } from '../../engine/core/plan/budget.js';
import { checkForPreview, type PreviewablePlan } from '../../engine/core/plan/check.js';
import { describeConflict, findNameConflicts, listerFor, NameSnapshots, type Lister, type NameConflict } from '../../engine/core/plan/names.js';
import { buildPreview, previewSteps, runwayOf, type Preview } from '../../engine/core/plan/preview.js';
import { formatProblems } from '../../engine/core/plan/validate.js';
import { planNotes } from '../../engine/core/plan/notes.js';
import { idleSavings } from '../../engine/producers/autostop/saving.js';
import { derivedSignal } from '../../engine/core/deadline.js';
import type { PlanBackend } from '../run/run-plan.js';
import { addsCost, figuresFor, pricePlan, type BudgetLimit, type PricedPlan } from './price.js';
import { dryRunRecord, reportRun } from './history.js';

export interface DryRunOutcome {
  preview: Preview;
  /** The plan has destructive steps and `destroyer` was not given: applying it would be refused. */
  gated: boolean;
  /** Creates whose names already exist: applying would be refused (unless duplicates are allowed). */
  duplicateNames: NameConflict[];
  /** Applying would be refused by the budget guard. */
  overBudget: boolean;
}

export interface DryRunOptions {
  destroyer: boolean;
  signal?: AbortSignal;
  budget?: BudgetLimit;
}

/** Validates the plan (exit 2 when invalid) and previews it. */
export async function dryRunPlan(backend: PlanBackend, input: unknown, opts: DryRunOptions): Promise<DryRunOutcome> {
  const { validation, previewable } = checkForPreview(input, { providers: await backend.providers.forPlan(input), predefined: backend.predefined });
  if (!previewable) {
    throw new InvalidInputError('invalid_plan', `the plan is invalid; nothing was sent:\n${formatProblems(validation.problems)}`, {
      hint: 'fix the plan and validate it with `assistant plan validate <file>`',
      details: validation.problems,
    });
  }
  return previewPlan(backend, previewable, opts);
}

/** The preview of a plan already validated (with the step classes of its validation). */
export async function previewPlan(backend: PlanBackend, previewable: PreviewablePlan, opts: DryRunOptions): Promise<DryRunOutcome> {
  const startedAt = new Date();
  const { plan, classes, requests } = previewable;
  const signal = derivedSignal(backend.runContext().signal, opts.signal);
  const providers = await backend.providers.forPlan(plan);
  const priced = await pricePlan(backend, previewable, { signal });
  const preview = buildPreview(previewSteps(plan, classes, providers, backend.predefined, requests, priced.prices), priced.parts.map((p) => p.preview), priced.unpricedChanges);
  const idle = idleSavings(plan, preview.costs);
  if (idle.length) preview.idle_savings = idle;
  const notes = planNotes(plan);
  if (notes.length) preview.notes = notes;
  // The burn before and after, when a budget limit is set (reading the burn lists every billable kind:
  // a dry run without a budget keeps to the reads it needs).
  if (opts.budget) {
    const budget = await figuresFor(priced, opts.budget);
    preview.budget = budget;
    const refusal = budgetRefusal(budget);
    if (refusal) preview.warnings.push(`applying it would be refused: ${refusal.message.replace(/; nothing was sent$/, '')}`);
  }
  // A plan that adds cost to an account with a balance: the runway at today's burn and with the plan
  // added (the balance over the new resources alone would say weeks where the account has days).
  if (preview.balance && addsCost(priced)) {
    const burn = preview.budget ?? (await figuresFor(priced));
    if (!burn.not_counted.length) preview.runway = runwayOf(preview.balance, burn);
  }
  for (const u of priced.unpricedChanges) preview.warnings.push(`step ${u.step}: ${u.why}: no price is known${opts.budget ? '' : ' (a budget would refuse it without --allow-unpriced)'}`);
  const context = backend.runContext();
  const duplicateNames = await findNameConflicts(plan, classes, providers, new NameSnapshots(sharedLister(priced, listerFor((p) => context.client(p), signal))));
  for (const c of duplicateNames) preview.warnings.push(`${describeConflict(c)}; applying it would be refused without --allow-duplicate-names`);
  const outcome = { preview, gated: !opts.destroyer && classes.some((c) => c.effect === 'destroy'), duplicateNames, overBudget: preview.budget?.within === false };
  await reportRun(backend, () => dryRunRecord(previewable, preview, startedAt, outcome.gated || outcome.overBudget || duplicateNames.length > 0));
  return outcome;
}

/**
 * The name check's lister for a dry run: a kind the pricing already read (the burn lists every billable
 * kind) is taken from the same read, so the dry run lists it once; others through the client.
 */
function sharedLister(priced: PricedPlan, fallback: Lister): Lister {
  const reads = new Map(priced.parts.map((p) => [p.provider.name, p.read]));
  return async (provider, kind, scope) => {
    const read = reads.get(provider.name);
    const step = scope?.length ? undefined : provider.names?.listStep?.(kind);
    if (read && step && provider.names?.fromList) return provider.names.fromList(kind, await read(step));
    return fallback(provider, kind, scope);
  };
}
