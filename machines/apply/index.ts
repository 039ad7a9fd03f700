/**
 * The one apply module (DESIGN §7, issue 22): every producer that changes anything — `ask --apply`,
 * `deploy --apply`, `k8s create|deploy|delete`, `gpucloud action`, talk, box and the MCP apply tool —
 * hands its plan to `applyPlan`, and nothing else calls the executor for a change. In order:
 *
 *   validate once (CheckedPlan) → journal lock and run-mode rules → reserve the names it creates across
 *   processes → price it and check the budget → refuse names that exist → run (journaled) → an honest
 *   report and exit code
 *
 * Everything that refuses does so before the first change is sent (exit 2 or 3). Reads that producers
 * need go through `readPlan` (./reads.ts), which refuses any step that is not a read.
 */
import type { Plan } from '../../schemas/plan.js';
import type { RunReport } from '../../schemas/run-report.js';
import { derivedSignal } from '../../engine/core/deadline.js';
import { ExitCode, InvalidInputError, SafetyRefusal, type ExitCodeValue } from '../../engine/core/errors.js';
import type { RunObserver, StepClass } from '../../engine/core/provider.js';
import { budgetRefusal } from '../../engine/core/plan/budget.js';
import { BudgetHolds, type BudgetHold } from '../../engine/core/plan/budget-holds.js';
import { checkPlan } from '../../engine/core/plan/check.js';
import { RunJournal } from '../../engine/core/plan/journal.js';
import { awaitDeadRunsCreate, deadRunsCreateUntil, findNameConflicts, listerFor, nameConflictRefusal, namedCreate, NameSnapshots, RunCreates, staticCreates, type Lister, type NamedCreate } from '../../engine/core/plan/names.js';
import { reservationId, type Reservation, type RunReservations } from '../../engine/core/plan/reservations.js';
import { lockRun } from '../../engine/core/plan/run-lock.js';
import { runPlan, type PlanBackend, type RunOutcome } from '../run/run-plan.js';
import { addsCost, figuresFor, pricePlan, type BudgetLimit } from './price.js';
import { applyRecord, hourlyChangeOf, reportRun, type ApplyTrace } from './history.js';
import type { PreviewablePlan } from '../../engine/core/plan/check.js';
import { REPORT_BUDGET_MS } from '../../engine/core/plan/backend.js';

export { readPlan, readResult } from './reads.js';
export { dryRunPlan, previewPlan, type DryRunOutcome } from './dry-run.js';
export { planConsent, type PlanConsent } from './consent.js';
export type { BudgetLimit } from './price.js';
export type { PlanBackend, RunOutcome } from '../run/run-plan.js';

export type ApplyMode = 'new' | 'resume' | 'fresh';

/** The run mode from the safety flags every apply surface offers (`--resume`, `--fresh`; MCP `mode`). */
export function applyMode(flags: { resume?: boolean; fresh?: boolean }): ApplyMode {
  if (flags.resume && flags.fresh) throw new InvalidInputError('usage', '--resume and --fresh contradict each other', { hint: 'pass one of them' });
  return flags.resume ? 'resume' : flags.fresh ? 'fresh' : 'new';
}

/** The budget limit of an apply: the explicit one (flag, MCP argument) wins over config `budget.max_hourly`. */
export function budgetLimit(explicit: { max: number; from: string } | undefined, configMax: number | undefined, allowUnpriced = false): BudgetLimit | undefined {
  if (explicit) return { ...explicit, allowUnpriced };
  return configMax === undefined ? undefined : { max: configMax, from: 'budget.max_hourly', allowUnpriced };
}

export interface ApplyRequest {
  backend: PlanBackend;
  /** Home directory holding ~/.assistant/runs/. */
  home: string;
  destroyer: boolean;
  mode: ApplyMode;
  /** Refuse the plan when its creates would push the hourly burn above this (engine/core/plan/budget.ts). */
  budget?: BudgetLimit;
  /** Create names that already exist in the project anyway (--allow-duplicate-names). */
  allowDuplicateNames?: boolean;
  /** A narrower cancel (an MCP request's), combined with the backend's deadline, never replacing it. */
  signal?: AbortSignal;
  /** Called once the plan passed every check, before the first step. */
  onBegin?: (plan: Plan) => void;
  /** Every event of the run: steps, waits (the lock of a killed run expiring too), a resume. */
  observer?: RunObserver;
  /** Values the plan may use for this run only (a deploy's secrets): never in its report. */
  secretBindings?: Record<string, string>;
}

export interface ApplyOutcome extends RunOutcome {
  /** 0 succeeded, 1 failed (or refused after a change was sent), 2/3 only when nothing was sent, 130 interrupted. */
  exitCode: ExitCodeValue;
}

/**
 * Applies a plan and reports the run — done, failed, refused or invalid — to the team's history when
 * the session has a reporter (./history.ts); the report never changes the outcome or the error.
 */
export async function applyPlan(input: unknown, req: ApplyRequest): Promise<ApplyOutcome> {
  const startedAt = new Date();
  const trace: ApplyTrace = {};
  let outcome: ApplyOutcome;
  try {
    outcome = await applyOnce(input, req, trace);
  } catch (error) {
    await reportRun(req.backend, () => applyRecord({ input, startedAt, trace, error, secretBindings: req.secretBindings }));
    throw error;
  }
  if (req.backend.runHistory && !trace.hourly && trace.checked && outcome.report.changes_sent) trace.hourly = await pricedForHistory(req.backend, trace.checked);
  await reportRun(req.backend, () => applyRecord({ input, startedAt, trace, outcome, secretBindings: req.secretBindings }));
  return outcome;
}

/** The hourly change of a run that was not priced by a budget, priced now for the history within the report's budget; undefined when it cannot be. */
async function pricedForHistory(backend: PlanBackend, checked: PreviewablePlan): Promise<ApplyTrace['hourly']> {
  try {
    return hourlyChangeOf(await pricePlan(backend, checked, { signal: derivedSignal(backend.runContext().signal, AbortSignal.timeout(REPORT_BUDGET_MS)) }));
  } catch {
    return undefined;
  }
}

async function applyOnce(input: unknown, req: ApplyRequest, trace: ApplyTrace): Promise<ApplyOutcome> {
  const backend: PlanBackend = req.secretBindings ? { ...req.backend, predefined: { ...req.backend.predefined, ...req.secretBindings } } : req.backend;
  const providers = await backend.providers.forPlan(input);
  const checked = checkPlan(input, { providers, destroyer: req.destroyer, predefined: backend.predefined });
  const { plan, classes } = checked;
  trace.checked = checked;
  trace.providerOf = plan.commands.map((c) => providers.verb(c.args[0]!)?.provider.name ?? c.args[0]!);
  const journal = RunJournal.forPlan(req.home, plan, backend.scope);
  const observe = req.observer ?? (() => undefined);
  const baseContext = backend.runContext();
  const context = { ...baseContext, signal: derivedSignal(baseContext.signal, req.signal) };
  // The journal is read and written only under its lock, so two runs of one plan cannot both act on it.
  const lock = await lockRun(journal.path, { onWait: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'lock', waitMs, message } }) });
  const list = listerFor((p) => context.client(p), context.signal);
  const names = new NameReservations(backend, plan, journal.path, {
    home: req.home,
    createAt: (index) => namedCreate(providers, index, plan.commands[index]!.args, classes[index]),
    // Under --allow-duplicate-names a second instance of the name is wanted: nothing to wait for.
    listNow: req.allowDuplicateNames ? undefined : list,
    signal: context.signal,
    onWait: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'lock', waitMs, message } }),
    onLookup: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'create-lookup', waitMs, message } }),
  });
  let budgetHold: BudgetHold | undefined;
  try {
    const resume = runToResume(journal, req.mode, classes);
    // Steps a resumed run completed or had in flight are ours (the journal knows them), not conflicts.
    const done = new Set<number>(resume?.completed.keys() ?? []);
    const ours = new Set<number>([...done, ...(resume?.inFlight ? [resume.inFlight.index] : [])]);
    // Reserve first: whatever this process lists after this, no other process is creating these names.
    await names.reserveAll(staticCreates(plan, classes, providers, ours));
    if (req.budget) {
      const limit = req.budget;
      // Alone among this project's budget checks on this machine, counting what runs that passed theirs
      // are adding; what this plan adds is held until it has run (engine/core/plan/budget-holds.ts).
      budgetHold = await BudgetHolds.of(req.home, backend.scope ?? 'default').judge(
        async (pending) => {
          // A resumed run is judged on what is still to be created: its completed steps are already in the
          // burn. The step that was in flight counts as still to create (it may not have been made).
          const priced = await pricePlan(backend, checked, { signal: context.signal, skip: done });
          trace.hourly = hourlyChangeOf(priced);
          // A plan that adds nothing: no need to read what the account burns.
          if (!addsCost(priced)) return 0;
          const figures = await figuresFor(priced, limit, pending);
          const refusal = budgetRefusal(figures);
          if (refusal) throw refusal;
          return figures.added_per_hour;
        },
        { signal: context.signal, label: names.label, onWait: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'lock', waitMs, message } }) },
      );
    }
    const snapshots = new NameSnapshots(list);
    if (!req.allowDuplicateNames) {
      const conflicts = await findNameConflicts(plan, classes, providers, snapshots, ours);
      if (conflicts.length) throw nameConflictRefusal(conflicts);
    }
    req.onBegin?.(plan);
    if (resume) observe({ type: 'resumed', completed: resume.completed.size });
    else journal.begin();
    const creates = new RunCreates(providers, snapshots, {
      journal,
      resume,
      allowDuplicateNames: Boolean(req.allowDuplicateNames),
      listNow: list,
      assertLocked: () => lock.assertHeld(),
      reserve: (create) => names.ensure(create),
      onWait: (message, waitMs) => observe({ type: 'waiting', wait: { reason: 'create-lookup', waitMs, message } }),
      signal: context.signal,
    });
    trace.createdIds = creates.createdIds;
    const outcome = await runPlan(checked, { providers: providers, journal, resume, creates, predefined: backend.predefined, context, observer: req.observer });
    return honest(outcome, classes, req.secretBindings);
  } finally {
    journal.close();
    // Let go of the budget hold only now: what the run made is in the burn from here on.
    await budgetHold?.release();
    await names.releaseAll();
    await lock.release();
  }
}

/**
 * The journal's rules: an unfinished run of a plan that changes anything is never silently started
 * over, and a finished one is not repeated when the plan creates anything (resume it, or start it
 * fresh on purpose). A finished plan that creates nothing (actions, updates, waits, deletes) may
 * simply run again: repeating it buys nothing twice.
 */
function runToResume(journal: RunJournal, mode: ApplyMode, classes: readonly StepClass[]) {
  const previous = journal.load();
  const unfinished = previous && !previous.finished ? previous : undefined;
  // A run that finished is refused like a finished plan applied again (exit 3), whether it finished
  // before this process started or while it waited for the run's lock: two resumes started together
  // end 0 and 3 however their timing falls (issue 35). Only a plan that never ran here is a usage error.
  if (mode === 'resume' && previous?.finished) {
    throw new SafetyRefusal(`there is nothing to resume: this plan was already applied at ${previous.finishedAt}`, {
      hint: 'apply it again on purpose with fresh (--fresh)',
    });
  }
  if (mode === 'resume' && !unfinished) {
    throw new InvalidInputError('nothing_to_resume', 'there is no unfinished run of this plan to resume (a journal belongs to exactly one plan)', {
      hint: 'run it without resume to start it',
    });
  }
  const creates = classes.some((c) => c.effect === 'create');
  const changes = classes.some((c) => c.effect !== 'read');
  // An interrupted run is never started over silently, whatever it changes (a server-side apply that
  // was cut during its rollout wait must not be sent again); a finished run that created nothing may be.
  if (mode === 'new' && changes && unfinished) {
    throw new SafetyRefusal(`an unfinished run of this plan exists (${unfinished.completed.size} of ${unfinished.steps} steps done); starting again would repeat them`, {
      hint: 'continue it with resume (--resume), or start over with fresh (--fresh)',
    });
  }
  if (mode === 'new' && creates && previous?.finished) {
    throw new SafetyRefusal(`this plan was already applied at ${previous.finishedAt}; applying it again would repeat every step`, {
      hint: 'to run it again on purpose, use fresh (--fresh)',
    });
  }
  return mode === 'resume' ? unfinished : undefined;
}

/**
 * The report as it must read (issue 22 §6): what changed, secrets bound for this run left out, and exit
 * 3 (or 2) only when nothing that changes anything was sent; after a change, a refusal is a failure.
 */
function honest(outcome: RunOutcome, classes: readonly StepClass[], secretBindings?: Record<string, string>): ApplyOutcome {
  let report: RunReport = outcome.report;
  if (secretBindings) report = { ...report, bindings: Object.fromEntries(Object.entries(report.bindings).filter(([k]) => !(k in secretBindings))) };
  const changesSent = report.steps.some((s) => (s.status === 'succeeded' && classes[s.index]?.effect !== 'read') || (s.status === 'failed' && s.changed));
  report = { ...report, changes_sent: changesSent };
  if (report.status === 'succeeded') return { ...outcome, report, exitCode: ExitCode.ok };
  if (report.status === 'cancelled') return { ...outcome, report, exitCode: ExitCode.interrupted };
  let exitCode = ((outcome.error as { exitCode?: ExitCodeValue } | undefined)?.exitCode ?? ExitCode.failed) as ExitCodeValue;
  if (changesSent && (exitCode === ExitCode.refused || exitCode === ExitCode.invalidInput)) {
    exitCode = ExitCode.failed;
    if (report.error) report = { ...report, error: { ...report.error, message: `${report.error.message} (earlier steps had already changed things: this run is partly applied)` } };
  }
  return { ...outcome, report, exitCode };
}

/**
 * The names one apply holds reserved, by reservation id (case-blind), released together when the run
 * ends. A name whose reservation was taken over from a run that died is looked for until that run's
 * create could have appeared (engine/core/plan/names.ts deadRunsCreateUntil), before anything lists it
 * for the name check: a different plan creating the same name right after a kill -9 honours the dead
 * run's create the way a `--resume` of that run does, instead of making a second one.
 */
class NameReservations {
  private readonly held = new Map<string, Reservation>();
  private readonly store: RunReservations | undefined;
  readonly label: string;
  private readonly steps: number;

  constructor(
    private readonly backend: PlanBackend,
    plan: Plan,
    private readonly journal: string,
    private readonly opts: {
      home: string;
      /** What step `index` of this run's plan creates (a dead run of the same plan had one of them in flight). */
      createAt: (index: number) => NamedCreate | undefined;
      /** Lists a kind afresh; none: a dead run's create is not waited for (duplicates allowed). */
      listNow?: Lister;
      signal: AbortSignal;
      onWait: (message: string, waitMs: number) => void;
      onLookup: (message: string, waitMs: number) => void;
    },
  ) {
    this.steps = plan.commands.length;
    this.label = `a run of ${plan.summary ? `"${plan.summary.slice(0, 60)}"` : 'another plan'}`;
    this.store = backend.reservations?.forRun({ label: this.label, journal });
  }

  private key(create: NamedCreate) {
    return { provider: create.provider.name, scope: this.backend.scope ?? 'default', kind: create.kind, name: create.name };
  }

  /** Reserves every name the plan creates that is known before the run, before anything is listed or sent. */
  async reserveAll(creates: readonly NamedCreate[]): Promise<void> {
    if (!this.store) return;
    const unique = new Map(creates.map((c) => [reservationId(this.key(c)), c]));
    // One order for every process, so two plans reserving overlapping names meet on the same first one
    // (a store of a key each); this machine's store reserves them all in one write.
    const ids = [...unique.keys()].filter((id) => !this.held.has(id)).sort();
    const reservations = await this.store.reserveMany(
      ids.map((id) => this.key(unique.get(id)!)),
      this.opts.onWait,
    );
    ids.forEach((id, i) => this.held.set(id, reservations[i]!));
    for (const [i, id] of ids.entries()) await this.awaitDeadRun(reservations[i]!, unique.get(id)!);
  }

  /** Reserves a name at run time (bound from an earlier step); true when it was not reserved before. */
  async ensure(create: NamedCreate): Promise<boolean> {
    const id = reservationId(this.key(create));
    if (this.held.has(id) || !this.store) return false;
    await this.reserve(id, create);
    return true;
  }

  private async reserve(id: string, create: NamedCreate): Promise<void> {
    if (!this.store || this.held.has(id)) return;
    const reservation = await this.store.reserve(this.key(create), this.opts.onWait);
    this.held.set(id, reservation);
    await this.awaitDeadRun(reservation, create);
  }

  /** A name taken over from a run that died: looked for until that run's create of it could have appeared. */
  private async awaitDeadRun(reservation: Reservation, create: NamedCreate): Promise<void> {
    const own = { journal: this.journal, create, steps: this.steps, createAt: this.opts.createAt };
    const until = this.opts.listNow && deadRunsCreateUntil(reservation, this.opts.home, own);
    if (until !== undefined && this.opts.listNow) await awaitDeadRunsCreate(create, until, { listNow: this.opts.listNow, signal: this.opts.signal, onWait: this.opts.onLookup });
  }

  /**
   * At the end of the run, every name at once (on this machine, the run's name set: one unlink). A name is kept until then even when its create's outcome is known: another plan creating
   * it meanwhile is refused naming this run (exit 3, nothing sent) instead of by its listing, and a
   * create costs the file system nothing of its own.
   */
  async releaseAll(): Promise<void> {
    this.held.clear();
    await this.store?.releaseAll();
  }
}
