/**
 * Read plans: what producers read before they decide (list commands, the ask flow's context, the
 * catalogue a maker compiles against, a dry run's prices). They go through the same executor as any
 * plan, but only here: a read plan is checked to read only, so no producer can change anything except
 * through `applyPlan` (machines/apply/index.ts), with its budget, reservations and journal.
 */
import type { Plan } from '../../schemas/plan.js';
import { linkedSignal } from '../../engine/core/deadline.js';
import { OperationError } from '../../engine/core/errors.js';
import type { RunObserver } from '../../engine/core/provider.js';
import { checkPlan } from '../../engine/core/plan/check.js';
import { runPlan, type PlanBackend } from '../run/run-plan.js';

export interface ReadOptions {
  /** A narrower cancel (an MCP request's), under the backend's own deadline: never a replacement. */
  signal?: AbortSignal;
  observer?: RunObserver;
}

/** Runs a read-only plan and returns every step's response, or throws the error that ended the run. */
export async function readPlan(backend: PlanBackend, plan: Plan, opts: ReadOptions = {}): Promise<unknown[]> {
  const providers = await backend.providers.forPlan(plan);
  const checked = checkPlan(plan, { providers, destroyer: false, predefined: backend.predefined });
  const changing = checked.classes.findIndex((c) => c.effect !== 'read');
  if (changing !== -1) {
    // A producer bug, never a user's: changes go through applyPlan.
    throw new OperationError('internal', `step ${changing} of a read plan would ${checked.classes[changing]!.effect} something; reads never change anything (apply it instead)`);
  }
  const context = backend.runContext();
  // Reads are short and many (every MCP list): a signal linked for the run and unlinked after it.
  const { signal, unlink } = linkedSignal(context.signal, opts.signal);
  try {
    const outcome = await runPlan(checked, { providers, predefined: backend.predefined, context: { ...context, signal }, observer: opts.observer, keepResults: true });
    if (outcome.status !== 'succeeded') throw outcome.error;
    return outcome.results;
  } finally {
    unlink();
  }
}

/** A read plan's last response (a one-step read, or read-then-use). */
export async function readResult(backend: PlanBackend, plan: Plan, opts: ReadOptions = {}): Promise<unknown> {
  const results = await readPlan(backend, plan, opts);
  return results[results.length - 1];
}
