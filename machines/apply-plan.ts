/**
 * Applying a plan with its run journal: the one path behind `ask --apply` and the MCP apply tool.
 * The gate and validation come first, so a journal is only touched for a plan that may run; an
 * unfinished or finished run of the same plan is never silently repeated (resume it or start it fresh),
 * two runs of one plan never overlap (journal lock), and creates of names that already exist in the
 * project are refused before anything is sent (engine/plan/names.ts).
 */
import type { Plan } from '../schemas/plan.js';
import { InvalidInputError, SafetyRefusal } from '../engine/errors.js';
import type { RunObserver } from '../engine/provider.js';
import { checkPlan } from '../engine/plan/check.js';
import { RunJournal } from '../engine/plan/journal.js';
import { findNameConflicts, listerFor, nameConflictRefusal, NameSnapshots, RunCreates } from '../engine/plan/names.js';
import { lockRun } from '../engine/plan/run-lock.js';
import { budgetFigures, budgetRefusal } from '../engine/plan/budget.js';
import { pricePlan, type BudgetLimit } from './dry-run.js';
import { runPlan, type PlanBackend, type RunOutcome } from './run-plan.js';

export type ApplyMode = 'new' | 'resume' | 'fresh';

export interface ApplyOptions {
  backend: PlanBackend;
  /** Home directory holding ~/.assistant/runs/. */
  home: string;
  destroyer: boolean;
  mode: ApplyMode;
  /** Refuse the plan when its creates would push the hourly burn above this (engine/plan/budget.ts). */
  budget?: BudgetLimit;
  /** Create names that already exist in the project anyway (--allow-duplicate-names). */
  allowDuplicateNames?: boolean;
  signal?: AbortSignal;
  /** Called once the plan passed validation and the gate, before the first step. */
  onBegin?: (plan: Plan) => void;
  /** Every event of the run: steps, waits (the lock of a killed run expiring too), a resume. */
  observer?: RunObserver;
}

export async function applyPlan(input: unknown, opts: ApplyOptions): Promise<RunOutcome> {
  const { backend, destroyer, mode } = opts;
  const providers = await backend.providers.forPlan(input);
  const { plan, classes } = checkPlan(input, { providers, destroyer, predefined: backend.predefined });
  const journal = RunJournal.forPlan(opts.home, plan);
  const observe = opts.observer ?? (() => undefined);
  // The journal is read and written only under its lock, so two runs of one plan cannot both act on it.
  const lock = await lockRun(journal.path, { onWait: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'lock', waitMs, message } }) });
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
    const context = opts.signal ? { ...backend.runContext(), signal: opts.signal } : backend.runContext();
    const list = listerFor((p) => context.client(p), context.signal);
    const snapshots = new NameSnapshots(list);
    const resume = mode === 'resume' ? unfinished : undefined;
    if (opts.budget) {
      // A resumed run is judged on what is still to be created: its completed steps are already in the
      // burn. The step that was in flight counts as still to create (it may not have been made).
      const { parts, providers: priced } = await pricePlan(backend, plan, classes, { signal: context.signal, skip: new Set(resume?.completed.keys() ?? []) });
      // A plan that creates nothing adds nothing: no need to read what the account burns.
      const figures = parts.some((p) => p.preview.costs.length) ? await budgetFigures(parts, priced, opts.budget) : undefined;
      const refusal = figures && budgetRefusal(figures);
      if (refusal) throw refusal;
    }
    if (!opts.allowDuplicateNames) {
      // Steps a resumed run completed or had in flight are ours (the journal knows them), not conflicts.
      const skip = new Set<number>([...(resume?.completed.keys() ?? []), ...(resume?.inFlight ? [resume.inFlight.index] : [])]);
      const conflicts = await findNameConflicts(plan, classes, providers, snapshots, skip);
      if (conflicts.length) throw nameConflictRefusal(conflicts);
    }
    opts.onBegin?.(plan);
    if (resume) observe({ type: 'resumed', completed: resume.completed.size });
    else journal.begin();
    const creates = new RunCreates(providers, snapshots, {
      journal,
      resume,
      allowDuplicateNames: Boolean(opts.allowDuplicateNames),
      listNow: list,
      assertLocked: () => lock.assertHeld(),
    });
    return await runPlan(plan, { providers, journal, resume, creates, destroyer, predefined: backend.predefined, context, observer: opts.observer });
  } finally {
    journal.close();
    await lock.release();
  }
}
