/**
 * Plans that cannot change: a producer that hands out the same plan again and again (a list of one kind,
 * every MCP list call) freezes it once here, deeply, and the check of a frozen plan is kept
 * (engine/core/plan/check.ts), so it is validated once, not on every call. Only plans frozen by this
 * function count: a plan frozen some other way may still hold a mutable part.
 */
import type { Plan } from '../../../schemas/plan.js';

const frozen = new WeakSet<object>();

function deepFreeze(v: unknown): void {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/** Freezes `plan` whole (every command, argument list and map) and remembers it as unchangeable. */
export function freezePlan<P extends Plan>(plan: P): P {
  deepFreeze(plan);
  frozen.add(plan);
  return plan;
}

/** Whether `input` is a plan frozen by freezePlan (so a check of it stays true). */
export function isFrozenPlan(input: unknown): boolean {
  return typeof input === 'object' && input !== null && frozen.has(input);
}
