/**
 * A dry run: validate once, then only reads (prices, availability, balance, existing names) through
 * the same executor. Destructive steps are shown and marked rather than refused; an invalid plan fails
 * as usual. Shared by `ask --apply --dry-run` and the MCP validate tool.
 */
import type { Plan } from '../schemas/plan.js';
import type { PricePreview, StepClass } from '../engine/provider.js';
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
}

export async function dryRunPlan(backend: PlanBackend, input: unknown, opts: { destroyer: boolean; signal?: AbortSignal }): Promise<DryRunOutcome> {
  const validation = validatePlan(input, { providers: backend.providers, destroyer: true, predefined: Object.keys(backend.predefined) });
  const { plan, classes } = validation.ok
    ? { plan: validation.plan!, classes: validation.classes }
    : checkPlan(input, { providers: backend.providers, destroyer: true, predefined: backend.predefined });
  return previewPlan(backend, plan, classes, opts);
}

/** The preview of a plan already validated (with the step classes of its validation). */
export async function previewPlan(backend: PlanBackend, plan: Plan, classes: readonly StepClass[], opts: { destroyer: boolean; signal?: AbortSignal }): Promise<DryRunOutcome> {
  const context = backend.runContext();
  const signal = opts.signal ?? context.signal;
  // Each provider prices its own steps, reading through the executor like any plan.
  const parts: PricePreview[] = [];
  for (const provider of backend.providers.list) {
    if (!provider.preview) continue;
    const steps = plan.commands
      .map((c, index) => ({ index, args: c.args, class: classes[index]! }))
      .filter((s) => backend.providers.verb(s.args[0]!)?.provider === provider);
    if (!steps.length) continue;
    const read = (args: string[]) => runForResult(backend, { version: 1, provider: provider.name, commands: [{ args, reason: 'dry run' }] }, { signal });
    parts.push(await provider.preview(steps, read, backend.predefined));
  }
  const preview = buildPreview(previewSteps(plan, classes, backend.providers, backend.predefined), parts);
  const duplicateNames = await findNameConflicts(plan, classes, backend.providers, new NameSnapshots(listerFor((p) => context.client(p), signal)));
  for (const c of duplicateNames) preview.warnings.push(`${describeConflict(c)}; applying it would be refused without --allow-duplicate-names`);
  return { preview, gated: !opts.destroyer && classes.some((c) => c.effect === 'destroy'), duplicateNames };
}
