import type { Plan } from '../../../schemas/plan.js';
import { InvalidInputError, SafetyRefusal } from '../errors.js';
import type { CanonicalRequest, ProviderSet, StepClass } from '../provider.js';
import { isFrozenPlan } from './frozen.js';
import { formatProblems, validatePlan, type ValidationResult } from './validate.js';

declare const checked: unique symbol;

/**
 * A plan that passed whole-plan validation and the destroyer gate, with the class of every step. Only
 * `checkPlan` makes one, and the executor (machines/run/run-plan.ts) accepts nothing else: a plan is
 * validated exactly once, and nothing unvalidated can run.
 */
export interface CheckedPlan {
  readonly plan: Plan;
  readonly classes: readonly StepClass[];
  /** Every step's canonical request, made once at validation (undefined for verbs without one). */
  readonly requests: readonly (CanonicalRequest | undefined)[];
  /** Whether destructive steps were allowed when it was checked (the run re-checks substituted values against it). */
  readonly destroyer: boolean;
  readonly [checked]: true;
}

/** The checks of frozen plans that passed, with what they were checked against (a provider set is one object per set of providers). */
const keptChecks = new WeakMap<object, { providers: ProviderSet; key: string; checked: CheckedPlan }>();

/**
 * The gate in front of every run: the whole plan is validated and every step classified; an invalid plan
 * is exit 2 and a destructive one without `destroyer` exit 3, before anything is sent.
 */
export function checkPlan(input: unknown, opts: { providers: ProviderSet; destroyer: boolean; predefined: Record<string, string> }): CheckedPlan {
  const predefined = Object.keys(opts.predefined);
  // A frozen plan (engine/core/plan/frozen.ts: the same list plan on every MCP call) passes the same
  // check every time against the same providers, gate and predefined names: it is checked once.
  const frozen = isFrozenPlan(input);
  const key = frozen ? `${opts.destroyer}\n${predefined.join('\n')}` : '';
  if (frozen) {
    const kept = keptChecks.get(input as object);
    if (kept && kept.providers === opts.providers && kept.key === key) return kept.checked;
  }
  const v = validatePlan(input, { providers: opts.providers, destroyer: opts.destroyer, predefined });
  if (v.ok) {
    const checked = Object.freeze({ plan: v.plan!, classes: v.classes, requests: v.requests, destroyer: opts.destroyer }) as unknown as CheckedPlan;
    if (frozen) keptChecks.set(input as object, { providers: opts.providers, key, checked });
    return checked;
  }
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

/** A plan and its step classes, valid except perhaps for destructive steps: what a preview prices and shows (never run). */
export interface PreviewablePlan {
  readonly plan: Plan;
  readonly classes: readonly StepClass[];
  readonly requests: readonly (CanonicalRequest | undefined)[];
}

/**
 * Validation for a preview (dry run, the MCP validate tool): destructive steps are shown and marked, not
 * refused. `previewable` is set when the plan is valid apart from them; `validation` carries every
 * problem and each step's destructive reasons. Not a CheckedPlan: a preview never reaches the executor.
 */
export function checkForPreview(input: unknown, opts: { providers: ProviderSet; predefined: Record<string, string> }): { validation: ValidationResult; previewable?: PreviewablePlan } {
  const validation = validatePlan(input, { providers: opts.providers, destroyer: true, predefined: Object.keys(opts.predefined) });
  return { validation, previewable: validation.ok ? { plan: validation.plan!, classes: validation.classes, requests: validation.requests } : undefined };
}
