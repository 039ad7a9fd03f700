import type { Plan } from '../../schemas/plan.js';
import { InvalidInputError, SafetyRefusal } from '../errors.js';
import type { ProviderSet, StepClass } from '../provider.js';
import { formatProblems, validatePlan } from './validate.js';

/**
 * The gate in front of every run: the whole plan is validated and every step classified; an invalid plan
 * is exit 2 and a destructive one without `destroyer` exit 3, before anything is sent.
 */
export function checkPlan(input: unknown, opts: { providers: ProviderSet; destroyer: boolean; predefined: Record<string, string> }): { plan: Plan; classes: StepClass[] } {
  const v = validatePlan(input, { providers: opts.providers, destroyer: opts.destroyer, predefined: Object.keys(opts.predefined) });
  if (v.ok) return { plan: v.plan!, classes: v.classes };
  const invalid = v.problems.filter((p) => p.kind !== 'destructive');
  if (invalid.length) {
    throw new InvalidInputError('invalid_plan', `the plan is invalid; nothing was sent:\n${formatProblems(invalid)}`, {
      hint: 'fix the plan and validate it with `assistant plan validate <file>`',
      details: v.problems,
    });
  }
  if (v.problems.some((p) => p.refused)) {
    throw new SafetyRefusal(`the plan has steps that may never run from a plan; nothing was sent:\n${formatProblems(v.problems)}`, {
      hint: 'a plan step may not read or write your files (except artefacts: <FILES>/name with --files DIR) or change a CLI\'s own configuration; remove those steps',
      details: v.problems,
    });
  }
  throw new SafetyRefusal(`the plan has destructive steps; nothing was sent:\n${formatProblems(v.problems)}`, {
    hint: 'review the plan; if the destruction is intended, run again with --destroyer',
    details: v.problems,
  });
}
