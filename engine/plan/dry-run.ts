/**
 * A dry run: validate once, then only GETs (prices, availability, balance) through the same executor.
 * Destructive steps are shown and marked rather than refused; an invalid plan fails as usual.
 * Shared by `ask --apply --dry-run` and the MCP validate tool.
 */
import type { Plan } from '../../schemas/plan.js';
import { KindSnapshots } from '../gpucloud/dedupe.js';
import { describeConflict, findNameConflicts, type NameConflict } from './names.js';
import { checkPlan, runForResult, runForResults, type PlanBackend } from './run.js';
import { buildPreview, previewReadPlan, type Preview } from './preview.js';
import { validatePlan } from './validate.js';

export interface DryRunOutcome {
  preview: Preview;
  /** The plan has destructive steps and `destroyer` was not given: applying it would be refused. */
  gated: boolean;
  /** Creates whose names already exist in the project: applying would be refused (unless duplicates are allowed). */
  duplicateNames: NameConflict[];
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
  const duplicateNames = await nameConflicts(backend, plan, opts.signal);
  for (const c of duplicateNames) preview.warnings.push(`${describeConflict(c)}; applying it would be refused without --allow-duplicate-names`);
  return { preview, gated: !opts.destroyer && destructive.some((r) => r.length), duplicateNames };
}

/** The same duplicate-name check as an apply's pre-flight, with reads run as plans (one list per kind). */
function nameConflicts(backend: PlanBackend, plan: Plan, signal: AbortSignal | undefined): Promise<NameConflict[]> {
  const list = (path: string) =>
    runForResult(backend, { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', path], reason: 'names that already exist' }] }, { signal });
  return findNameConflicts(plan, new KindSnapshots(list));
}
