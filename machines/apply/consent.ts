/**
 * What a person consents to before a plan is applied (engine/core/plan/consent.ts), computed the way the
 * apply prices it: the plan validated once, each change step priced from its canonical request through
 * the executor (reads only). Every surface that asks (talk's /apply, the ACP permission request, the
 * CLI's confirmation) and every one that reports what it applied without asking (a box) calls this.
 */
import { derivedSignal } from '../../engine/core/deadline.js';
import { InvalidInputError } from '../../engine/core/errors.js';
import { checkForPreview } from '../../engine/core/plan/check.js';
import { renderConsent, stepConsents, type StepConsent } from '../../engine/core/plan/consent.js';
import { formatProblems } from '../../engine/core/plan/validate.js';
import type { PlanBackend } from '../run/run-plan.js';
import { pricePlan } from './price.js';

export interface PlanConsent {
  steps: StepConsent[];
  currency: string;
  /** The consent as text, one line each: what every surface shows. */
  lines: string[];
}

/** The consent for a plan (exit 2 when it is invalid). */
export async function planConsent(backend: PlanBackend, input: unknown, opts: { signal?: AbortSignal } = {}): Promise<PlanConsent> {
  const providers = await backend.providers.forPlan(input);
  const { validation, previewable } = checkForPreview(input, { providers, predefined: backend.predefined });
  if (!previewable) {
    throw new InvalidInputError('invalid_plan', `the plan is invalid; nothing was sent:\n${formatProblems(validation.problems)}`, { details: validation.problems });
  }
  const { plan, classes, requests } = previewable;
  const priced = await pricePlan(backend, previewable, { signal: derivedSignal(backend.runContext().signal, opts.signal) });
  const steps = stepConsents(
    plan.commands.map((c, index) => {
      const { verb } = providers.verb(c.args[0]!)!;
      return { index, request: verb.describe(verb.substitute(c.args, backend.predefined), requests[index]), class: classes[index]!, reason: c.reason };
    }),
    priced.prices,
  );
  return { steps, currency: priced.currency, lines: renderConsent(steps, priced.currency) };
}
