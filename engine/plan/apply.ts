/**
 * Applying a plan with its run journal: the one path behind `ask --apply` and the MCP apply tool.
 * The gate and validation come first, so a journal is only touched for a plan that may run; an
 * unfinished run of the same plan is never silently repeated (resume it or start it fresh).
 */
import type { Plan } from '../../schemas/plan.js';
import { InvalidInputError, SafetyRefusal } from '../errors.js';
import { RunJournal } from './journal.js';
import { checkPlan, runPlan, type PlanBackend, type RunOptions, type RunOutcome } from './run.js';

export type ApplyMode = 'new' | 'resume' | 'fresh';

export interface ApplyOptions extends Pick<RunOptions, 'onStepStart' | 'onStepDone'> {
  backend: PlanBackend;
  /** Home directory holding ~/.assistant/runs/. */
  home: string;
  destroyer: boolean;
  mode: ApplyMode;
  signal?: AbortSignal;
  /** Called once the plan passed validation and the gate, before the first step. */
  onBegin?: (plan: Plan) => void;
  /** Told how many steps a resumed run skips. */
  onResume?: (completedSteps: number) => void;
}

export async function applyPlan(input: unknown, opts: ApplyOptions): Promise<RunOutcome> {
  const { backend, destroyer, mode } = opts;
  const plan = checkPlan(input, { destroyer, predefined: backend.predefined });
  const journal = RunJournal.forPlan(opts.home, plan);
  const previous = journal.load();
  const unfinished = previous && !previous.finished ? previous : undefined;
  if (mode === 'resume' && !unfinished) {
    throw new InvalidInputError('nothing_to_resume', 'there is no unfinished run of this plan to resume (a journal belongs to exactly one plan)', {
      hint: 'run it without resume to start it',
    });
  }
  if (mode === 'new' && unfinished) {
    throw new SafetyRefusal(`an unfinished run of this plan exists (${unfinished.completed.size} of ${unfinished.steps} steps done); starting again would repeat them`, {
      hint: 'continue it with resume (--resume), or start over with fresh (--fresh)',
    });
  }
  opts.onBegin?.(plan);
  if (mode === 'resume') opts.onResume?.(unfinished!.completed.size);
  else journal.begin();
  const executorContext = backend.executorContext();
  return runPlan(plan, {
    journal,
    resume: mode === 'resume' ? unfinished : undefined,
    destroyer,
    predefined: backend.predefined,
    executorContext: opts.signal ? { ...executorContext, signal: opts.signal } : executorContext,
    onStepStart: opts.onStepStart,
    onStepDone: opts.onStepDone,
  });
}
