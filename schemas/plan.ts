import { z } from 'zod';
import { AUTOSTOP_ACTIONS, AUTOSTOP_ACTIONS_TEXT, AUTOSTOP_MAX_MINUTES, AUTOSTOP_MIN_MINUTES, BINDING_NAME } from './plan-bindings.js';

// Defined without zod (the plan engine's hot path uses them); engine/core/plan/shape.ts mirrors the schema below.
export { AUTOSTOP_MAX_MINUTES, AUTOSTOP_MIN_MINUTES, BINDING_NAME, PLACEHOLDER_PATTERN, PREDEFINED_BINDINGS } from './plan-bindings.js';

/**
 * One more choice for a create whose first choice has no capacity (issue 31): what it changes in the
 * create's body. Tried in order, each only after the ones before it failed for capacity; see the
 * provider's verb (gpucloud: engine/providers/gpucloud/failover.ts).
 */
export const AlternativeSchema = z
  .strictObject({
    instance_type: z.string().min(1).optional(),
    location_code: z.string().min(1).optional(),
    is_spot: z.boolean().optional(),
  })
  .refine((a) => a.instance_type !== undefined || a.location_code !== undefined || a.is_spot !== undefined, 'an alternative changes instance_type, location_code or is_spot');

/**
 * Idle auto-stop of an instance create (issue 31 §2): stop the instance once its GPUs and logins have
 * been idle this long. Valid only on an instance create whose startup script installs the watcher with
 * the same policy (the gpucloud verb checks it: engine/providers/gpucloud/autostop-check.ts; the policy is engine/core/kits/autostop/). `assistant autostop check` acts on it.
 */
export const AutostopSchema = z.strictObject({
  idle_minutes: z
    .int({ error: 'idle_minutes is a whole number of minutes' })
    .min(AUTOSTOP_MIN_MINUTES, `idle_minutes is at least ${AUTOSTOP_MIN_MINUTES} (the watcher records once a minute)`)
    .max(AUTOSTOP_MAX_MINUTES, `idle_minutes is at most ${AUTOSTOP_MAX_MINUTES} (30 days)`),
  action: z.enum(AUTOSTOP_ACTIONS, { error: `action is ${AUTOSTOP_ACTIONS_TEXT}` }),
});

export const PlanCommandSchema = z.strictObject({
  args: z.array(z.string()).min(1, 'a command needs at least a verb in args'),
  reason: z.string(),
  produces: z
    .record(
      z.string().regex(BINDING_NAME, 'binding names are upper case: [A-Z][A-Z0-9_]*'),
      z.string().min(1, 'a produces entry needs a JSONPath such as $.id'),
    )
    .optional(),
  /** Idle auto-stop of the instance this step creates (engine/producers/autostop/). */
  autostop: AutostopSchema.optional(),
  /** Other choices (instance type, location, spot) tried in order when the create finds no capacity. */
  alternatives: z.array(AlternativeSchema).min(1).max(10).optional(),
  /**
   * Show the secrets this step produces (a created access key, a password) on the CLI's stdout after
   * the report. They stay masked everywhere else: the journal, progress, `-o json` reports' other
   * fields and every MCP result (an agent never sees them).
   */
  reveal: z.boolean().optional(),
});

export const PlanSchema = z.strictObject({
  version: z.literal(1),
  /** The provider the steps belong to, or a list of them for a plan that spans several (DESIGN.md §6). */
  provider: z.union([z.string().min(1), z.array(z.string().min(1)).min(1, 'list at least one provider')]),
  commands: z.array(PlanCommandSchema).min(1, 'a plan needs at least one command'),
  question: z.string().optional(),
  summary: z.string().optional(),
  created_at: z.string().optional(),
  notes: z.union([z.string(), z.array(z.string())]).optional(),
});

export type PlanCommand = z.infer<typeof PlanCommandSchema>;
export type Plan = z.infer<typeof PlanSchema>;
export type AutostopPolicy = z.infer<typeof AutostopSchema>;
export type PlanAlternative = z.infer<typeof AlternativeSchema>;
