import { z } from 'zod';
import { BINDING_NAME } from './plan-bindings.js';

// Defined without zod (the plan engine's hot path uses them); engine/plan/shape.ts mirrors the schema below.
export { BINDING_NAME, PLACEHOLDER_PATTERN, PREDEFINED_BINDINGS } from './plan-bindings.js';

export const PlanCommandSchema = z.strictObject({
  args: z.array(z.string()).min(1, 'a command needs at least a verb in args'),
  reason: z.string(),
  produces: z
    .record(
      z.string().regex(BINDING_NAME, 'binding names are upper case: [A-Z][A-Z0-9_]*'),
      z.string().min(1, 'a produces entry needs a JSONPath such as $.id'),
    )
    .optional(),
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
