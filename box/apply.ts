/**
 * The box's one way to change anything: a plan its agent made, through the project's apply path
 * (machines/apply/: validation, gate, budget, name reservations and checks, journal, run). Never destructive
 * (the gate refuses a destructive plan before its first request), never a resume or a re-run.
 * Every apply of the box goes through this function and no other.
 */
import type { Plan } from '../schemas/plan.js';
import type { RunObserver } from '../engine/core/provider.js';
import { applyPlan, type ApplyOutcome, type BudgetLimit, type PlanBackend } from '../machines/apply/index.js';

export interface BoxApplyOptions {
  backend: PlanBackend;
  home: string;
  signal: AbortSignal;
  budget?: BudgetLimit;
  observer?: RunObserver;
}

export function applyBoxPlan(plan: Plan, opts: BoxApplyOptions): Promise<ApplyOutcome> {
  return applyPlan(plan, { backend: opts.backend, home: opts.home, destroyer: false, mode: 'new', budget: opts.budget, signal: opts.signal, observer: opts.observer });
}
