/**
 * A dry run: validate once, then only GETs (prices, availability, balance) through the same executor.
 * Destructive steps are shown and marked rather than refused; an invalid plan fails as usual.
 * Shared by `ask --apply --dry-run` and the MCP validate tool.
 */
import type { Plan } from '../../schemas/plan.js';
import { checkPlan, runForResults, type PlanBackend } from './run.js';
import { buildPreview, previewReadPlan, type Preview } from './preview.js';
import { validatePlan } from './validate.js';

export interface DryRunOutcome {
  preview: Preview;
  /** The plan has destructive steps and `destroyer` was not given: applying it would be refused. */
  gated: boolean;
}

export async function dryRunPlan(backend: PlanBackend, input: unknown, opts: { destroyer: boolean; signal?: AbortSignal }): Promise<DryRunOutcome> {
  const validation = validatePlan(input, { destroyer: true, predefined: Object.keys(backend.predefined) });
  const plan = validation.ok ? validation.plan! : checkPlan(input, { destroyer: true, predefined: backend.predefined });
  return previewPlan(backend, plan, validation.destructive, opts);
}

/** The preview of a plan already validated (with `destructive` from its validation). */
export async function previewPlan(
  backend: PlanBackend,
  plan: Plan,
  destructive: string[][],
  opts: { destroyer: boolean; signal?: AbortSignal },
): Promise<DryRunOutcome> {
  const { readPlan, keys } = previewReadPlan(plan, backend.predefined);
  const reads = await runForResults(backend, readPlan, { signal: opts.signal });
  const preview = buildPreview(plan, destructive, backend.predefined, Object.fromEntries(keys.map((k, i) => [k, reads[i]])));
  return { preview, gated: !opts.destroyer && destructive.some((r) => r.length) };
}
