/**
 * Applying a plan with its run journal: the one path behind `ask --apply` and the MCP apply tool.
 * The gate and validation come first, so a journal is only touched for a plan that may run; an
 * unfinished or finished run of the same plan is never silently repeated (resume it or start it fresh),
 * two runs of one plan never overlap (journal lock), and creates of names that already exist in the
 * project are refused before anything is sent (names.ts).
 */
import type { Plan } from '../../schemas/plan.js';
import { InvalidInputError, SafetyRefusal } from '../errors.js';
import { KindSnapshots } from '../gpucloud/dedupe.js';
import { RunJournal } from './journal.js';
import { findNameConflicts, listerFor, nameConflictRefusal, RunCreates } from './names.js';
import { lockRun } from './run-lock.js';
import { checkPlan, runPlan, type PlanBackend, type RunOptions, type RunOutcome } from './run.js';

export type ApplyMode = 'new' | 'resume' | 'fresh';

export interface ApplyOptions extends Pick<RunOptions, 'onStepStart' | 'onStepDone'> {
  backend: PlanBackend;
  /** Home directory holding ~/.assistant/runs/. */
  home: string;
  destroyer: boolean;
  mode: ApplyMode;
  /** Create names that already exist in the project anyway (--allow-duplicate-names). */
  allowDuplicateNames?: boolean;
  signal?: AbortSignal;
  /** Called once the plan passed validation and the gate, before the first step. */
  onBegin?: (plan: Plan) => void;
  /** Told how many steps a resumed run skips. */
  onResume?: (completedSteps: number) => void;
  /** Told about waits before the run starts (the lock of a killed run expiring). */
  onNotice?: (message: string) => void;
}

export async function applyPlan(input: unknown, opts: ApplyOptions): Promise<RunOutcome> {
  const { backend, destroyer, mode } = opts;
  const plan = checkPlan(input, { destroyer, predefined: backend.predefined });
  const journal = RunJournal.forPlan(opts.home, plan);
  // The journal is read and written only under its lock, so two runs of one plan cannot both act on it.
  const lock = await lockRun(journal.path, { onWait: opts.onNotice });
  try {
    const previous = journal.load();
    const unfinished = previous && !previous.finished ? previous : undefined;
    if (mode === 'resume' && !unfinished) {
      throw new InvalidInputError('nothing_to_resume', 'there is no unfinished run of this plan to resume (a journal belongs to exactly one plan)', {
        hint: previous?.finished ? `it was already applied at ${previous.finishedAt}; apply it again on purpose with fresh (--fresh)` : 'run it without resume to start it',
      });
    }
    if (mode === 'new' && unfinished) {
      throw new SafetyRefusal(`an unfinished run of this plan exists (${unfinished.completed.size} of ${unfinished.steps} steps done); starting again would repeat them`, {
        hint: 'continue it with resume (--resume), or start over with fresh (--fresh)',
      });
    }
    if (mode === 'new' && previous?.finished) {
      throw new SafetyRefusal(`this plan was already applied at ${previous.finishedAt}; applying it again would repeat every step`, {
        hint: 'to run it again on purpose, use fresh (--fresh)',
      });
    }
    const executorContext = opts.signal ? { ...backend.executorContext(), signal: opts.signal } : backend.executorContext();
    const list = listerFor(executorContext);
    const snapshots = new KindSnapshots(list);
    const resume = mode === 'resume' ? unfinished : undefined;
    if (!opts.allowDuplicateNames) {
      // Steps a resumed run completed or had in flight are ours (the journal knows them), not conflicts.
      const skip = new Set<number>([...(resume?.completed.keys() ?? []), ...(resume?.inFlight ? [resume.inFlight.index] : [])]);
      const conflicts = await findNameConflicts(plan, snapshots, skip);
      if (conflicts.length) throw nameConflictRefusal(conflicts);
    }
    opts.onBegin?.(plan);
    if (resume) opts.onResume?.(resume.completed.size);
    else journal.begin();
    const creates = new RunCreates(snapshots, { journal, resume, allowDuplicateNames: Boolean(opts.allowDuplicateNames), list, assertLocked: () => lock.assertHeld() });
    return await runPlan(plan, {
      journal,
      resume,
      creates,
      destroyer,
      predefined: backend.predefined,
      executorContext,
      onStepStart: opts.onStepStart,
      onStepDone: opts.onStepDone,
    });
  } finally {
    await lock.release();
  }
}
