import { z } from 'zod';

/** The report of one plan run (`ask --apply -o json`, MCP plan apply). Secrets are redacted before it is built. */
export const StepReportSchema = z.object({
  index: z.number().int(),
  reason: z.string(),
  request: z.string(),
  status: z.enum(['succeeded', 'failed', 'not_run']),
  http_status: z.number().int().optional(),
  attempts: z.number().int().optional(),
  deduplicated: z.boolean().optional(),
  produced: z.record(z.string(), z.string()).optional(),
  duration_ms: z.number().optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
  /**
   * A failed step that still changed something (true: its request succeeded, its `produces` did not), or
   * whose request was sent and whose outcome is unknown ("unknown": a timeout, Ctrl-C or a lost
   * connection after it left; `--resume` looks it up instead of sending it again).
   */
  changed: z.union([z.boolean(), z.literal('unknown')]).optional(),
  /** With changed "unknown": what was sent (`create of instances "train-1"`). */
  sent: z.string().optional(),
  /** The ID of what that step created. */
  created: z.string().optional(),
  /** A create with alternatives: the choice it made (0: as written, n: alternatives[n-1]) and those passed over. */
  alternative: z
    .object({
      index: z.number().int(),
      values: z.record(z.string(), z.union([z.string(), z.boolean()])),
      tried: z.array(z.object({ index: z.number().int(), values: z.record(z.string(), z.union([z.string(), z.boolean()])), outcome: z.string() })),
    })
    .optional(),
});

export const RunReportSchema = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled']),
  steps: z.array(StepReportSchema),
  bindings: z.record(z.string(), z.string()),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), step: z.number().int().optional() }).optional(),
  /** Whether any request that could change something was sent: false means nothing changed (exit 3 is only used then). */
  changes_sent: z.boolean().optional(),
});

export type StepReport = z.infer<typeof StepReportSchema>;
export type RunReport = z.infer<typeof RunReportSchema>;
