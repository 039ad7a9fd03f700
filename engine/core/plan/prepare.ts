/**
 * What validating a plan loads besides its providers. validatePlan is synchronous and the two libraries
 * it may need are kept off the start-up path (test/core/startup.modules.test.ts): PlanSchema (zod) for a
 * plan that does not plainly fit it (shape.ts), jsonpath-plus for a command with `produces`. Both are
 * imported here, by ProviderSource.forPlan, which every surface awaits before validating: the rule
 * "await providers.forPlan(plan), then validate" covers them as it covers the providers.
 */
import { loadJsonPath } from './produces.js';
import { loadPlanSchema, planShape } from './shape.js';

/** Imports what validating `input` needs; `everything` for a source that validates any plan (`all()`). */
export async function loadPlanChecks(input: unknown, everything = false): Promise<void> {
  await Promise.all([everything || !planShape(input) ? loadPlanSchema() : undefined, everything || hasProduces(input) ? loadJsonPath() : undefined]);
}

/** Whether any command of the input (read as loosely as validation reads it) has a `produces` map. */
function hasProduces(input: unknown): boolean {
  const commands = (input as { commands?: unknown } | null | undefined)?.commands;
  if (!Array.isArray(commands)) return false;
  return Array.from(commands).some((c) => {
    const produces = (c as { produces?: unknown } | null | undefined)?.produces;
    return Boolean(produces) && typeof produces === 'object';
  });
}
