/**
 * A plan's `notes` (SPEC 2.4: a string or a list of strings) as one list, and a plan with notes added:
 * makers say in them what they chose that the request did not (a default that costs money, an auto-stop
 * policy), and a dry run shows them.
 */
import type { Plan } from '../../../schemas/plan.js';

export function planNotes(plan: Pick<Plan, 'notes'>): string[] {
  return plan.notes === undefined ? [] : Array.isArray(plan.notes) ? [...plan.notes] : [plan.notes];
}

/** The plan with `more` notes after its own, none repeated (the same plan when nothing is added). */
export function withNotes(plan: Plan, more: readonly string[]): Plan {
  const own = planNotes(plan);
  const added = more.filter((n, i) => !own.includes(n) && more.indexOf(n) === i);
  return added.length ? { ...plan, notes: [...own, ...added] } : plan;
}
