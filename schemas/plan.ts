import { z } from 'zod';

/** `<NAME>` placeholders in plan arguments (DESIGN.md §3). */
export const PLACEHOLDER_PATTERN = /<([A-Z][A-Z0-9_]*)>/g;
export const BINDING_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Bindings predefined from configuration; plans may use them without producing them. `FILES` is bound
 * only by `ask --apply --files DIR`: `<FILES>/name` is an artefact the plan reads from that directory
 * (never substituted as text: the CLI step verbs resolve it, engine/cli/artefacts.ts).
 */
export const PREDEFINED_BINDINGS = ['DEFAULT_SSH_KEY_ID', 'DEFAULT_LOCATION', 'PROJECT_ID', 'FILES'] as const;

/**
 * One more choice for a create whose first choice has no capacity (issue 31): what it changes in the
 * create's body. Tried in order, each only after the ones before it failed for capacity; see the
 * provider's verb (gpucloud: engine/gpucloud/failover.ts).
 */
export const AlternativeSchema = z
  .strictObject({
    instance_type: z.string().min(1).optional(),
    location_code: z.string().min(1).optional(),
    is_spot: z.boolean().optional(),
  })
  .refine((a) => a.instance_type !== undefined || a.location_code !== undefined || a.is_spot !== undefined, 'an alternative changes instance_type, location_code or is_spot');

export const PlanCommandSchema = z.strictObject({
  args: z.array(z.string()).min(1, 'a command needs at least a verb in args'),
  reason: z.string(),
  produces: z
    .record(
      z.string().regex(BINDING_NAME, 'binding names are upper case: [A-Z][A-Z0-9_]*'),
      z.string().min(1, 'a produces entry needs a JSONPath such as $.id'),
    )
    .optional(),
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
export type PlanAlternative = z.infer<typeof AlternativeSchema>;
