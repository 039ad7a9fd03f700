import { createActor, toPromise } from 'xstate';
import type { Plan } from '../../schemas/plan.js';
import type { RunReport, StepReport } from '../../schemas/run-report.js';
import { AssistantError, InvalidInputError, SafetyRefusal } from '../errors.js';
import { executorFor } from '../executors/index.js';
import type { ExecutorContext } from '../executors/types.js';
import { redactText, redactValue } from '../redact.js';
import { runPlanMachine, type CompletedStep } from '../../machines/run-plan.js';
import { formatProblems, validatePlan } from './validate.js';
import type { JournalState, RunJournal } from './journal.js';
import type { RunCreates } from './names.js';

export interface RunOptions {
  destroyer: boolean;
  /** Bindings predefined from config (DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION, PROJECT_ID). */
  predefined: Record<string, string>;
  executorContext: ExecutorContext;
  onStepStart?: (index: number, description: string, reason: string) => void;
  onStepDone?: (step: CompletedStep) => void;
  /** Records every step; with `resume`, continues after the steps it recorded as done. */
  journal?: RunJournal;
  resume?: JournalState;
  /** Create guards of a journaled run (one name snapshot per kind, adoption of interrupted creates). */
  creates?: RunCreates;
  /** Keep every step's response in `results` (static commands, dry runs). Off for applies: a long plan
   * would otherwise hold every response body in memory until the end. */
  keepResults?: boolean;
}

export interface RunOutcome {
  report: RunReport;
  /** Raw step responses, index-aligned with completed steps, when `keepResults` was set (else empty). */
  results: unknown[];
  /** The error that ended a failed or cancelled run (carries the exit code). */
  error?: unknown;
}

/** Validates the whole plan, applies the destroyer gate, then runs it through the machine. Nothing is sent for an invalid or gated plan. */
export function checkPlan(input: unknown, opts: { destroyer: boolean; predefined: Record<string, string> }): Plan {
  const v = validatePlan(input, { destroyer: opts.destroyer, predefined: Object.keys(opts.predefined) });
  if (v.ok) return v.plan!;
  const invalid = v.problems.filter((p) => p.kind !== 'destructive');
  if (invalid.length) {
    throw new InvalidInputError('invalid_plan', `the plan is invalid; nothing was sent:\n${formatProblems(invalid)}`, {
      hint: 'fix the plan and validate it with `assistant plan validate <file>`',
      details: v.problems,
    });
  }
  throw new SafetyRefusal(`the plan has destructive steps; nothing was sent:\n${formatProblems(v.problems)}`, {
    hint: 'review the plan; if the destruction is intended, run again with --destroyer',
    details: v.problems,
  });
}

export async function runPlan(input: unknown, opts: RunOptions): Promise<RunOutcome> {
  const plan = checkPlan(input, opts);
  const resumed: CompletedStep[] = [];
  const bindings = { ...opts.predefined };
  for (let index = 0; opts.resume?.completed.has(index); index++) {
    const done = opts.resume.completed.get(index)!;
    resumed.push({ index, result: { status: done.http_status, data: undefined }, produced: done.produced, durationMs: 0 });
    Object.assign(bindings, done.produced);
  }
  const journal = opts.journal;
  const results: unknown[] = [];
  const actor = createActor(runPlanMachine, {
    input: {
      plan,
      bindings,
      startIndex: resumed.length,
      completed: resumed,
      hooks: opts.creates && {
        before: (index, args) => opts.creates!.before(index, args),
        sent: (index, result) => opts.creates!.sent(index, result),
        done: (step) => journal?.stepDone(step.index, step.produced, step.result.status),
      },
      executorContext: opts.executorContext,
      destroyer: opts.destroyer,
      onStepStart: (index, args) =>
        opts.onStepStart?.(index, executorFor(args[0]!)!.describe(args), plan.commands[index]!.reason),
      onStepDone: (step) => {
        if (opts.keepResults) results.push(step.result.data);
        else step.result = { ...step.result, data: undefined };
        opts.onStepDone?.(step);
      },
    },
  });
  actor.start();
  await toPromise(actor).catch(() => undefined);
  const snapshot = actor.getSnapshot();
  const { completed, error, bindings: finalBindings } = snapshot.context;
  const status = snapshot.value as 'succeeded' | 'failed' | 'cancelled';

  const byIndex = new Map(completed.map((c) => [c.index, c]));
  const steps: StepReport[] = plan.commands.map((command, index) => {
    const done = byIndex.get(index);
    const executor = executorFor(command.args[0]!)!;
    const base = { index, reason: command.reason, request: redactText(executor.describe(executor.substitute(command.args, finalBindings))) };
    if (done) {
      return {
        ...base,
        status: 'succeeded' as const,
        http_status: done.result.status,
        attempts: done.result.attempts,
        deduplicated: done.result.deduplicated || undefined,
        produced: Object.keys(done.produced).length ? done.produced : undefined,
        duration_ms: Math.round(done.durationMs),
      };
    }
    if (index === completed.length && status !== 'succeeded') {
      const changed = (error as { details?: { changed?: boolean; created?: string } })?.details;
      return {
        ...base,
        status: 'failed' as const,
        http_status: (error as { status?: number })?.status,
        error: errorSummary(error),
        ...(changed?.changed === true ? { changed: true, created: changed.created } : {}),
      };
    }
    return { ...base, status: 'not_run' as const };
  });

  const report: RunReport = redactValue({
    status,
    steps,
    bindings: finalBindings,
    error: status === 'succeeded' ? undefined : { ...errorSummary(error), step: completed.length },
  });
  if (status === 'succeeded') journal?.finish();
  return { report, results, error: status === 'succeeded' ? undefined : error };
}

/** What a producer needs to run a plan: the predefined bindings and an executor context (a command's Session, the MCP server's backend). */
export interface PlanBackend {
  predefined: Record<string, string>;
  executorContext(): ExecutorContext;
}

/** Runs a producer's plan through the executor and returns every step's response, or throws the error that ended the run. */
export async function runForResults(backend: PlanBackend, plan: Plan, opts: { destroyer?: boolean; signal?: AbortSignal } = {}): Promise<unknown[]> {
  const executorContext = backend.executorContext();
  const outcome = await runPlan(plan, {
    destroyer: opts.destroyer ?? false,
    predefined: backend.predefined,
    executorContext: opts.signal ? { ...executorContext, signal: opts.signal } : executorContext,
    keepResults: true,
  });
  if (outcome.report.status !== 'succeeded') throw outcome.error;
  return outcome.results;
}

/** Runs a one-step (or read-then-use) producer plan and returns the last step's response. */
export async function runForResult(backend: PlanBackend, plan: Plan, opts: { destroyer?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
  const results = await runForResults(backend, plan, opts);
  return results[results.length - 1];
}

function errorSummary(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof AssistantError) return { code: error.code, message: redactText(error.message), hint: error.hint };
  return { code: 'internal', message: redactText(error instanceof Error ? error.message : String(error)) };
}
