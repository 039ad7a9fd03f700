/**
 * The executor's own tests run plans the way the apply module does: checked once (validation and the
 * destroyer gate: engine/core/plan/check.ts), then run. A refused plan throws here, before the executor.
 */
import { checkPlan } from '../../engine/core/plan/check.js';
import { runPlan, type RunOptions, type RunOutcome } from '../../machines/run/run-plan.js';

export type CheckedRunOptions = RunOptions & { destroyer: boolean };

export function runChecked(input: unknown, opts: CheckedRunOptions): Promise<RunOutcome> {
  return runPlan(checkPlan(input, { providers: opts.providers, destroyer: opts.destroyer, predefined: opts.predefined }), opts);
}
