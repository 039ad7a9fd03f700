/**
 * The per-resource results of a multi-status answer (207, or 202 carrying a results array). Its own
 * module so that zod loads only when such an answer arrives (response.ts imports it then): every
 * other response, a list's included, is decoded without it.
 */
import { z } from 'zod';

/** One per-resource result of PUT /v1/instances or a cluster action (camelCase on the wire: instanceId, statusCode). */
const actionResultSchema = z
  .object({
    action: z.string().optional(),
    instanceId: z.string().optional(),
    /** Cluster actions name the resource `id`. */
    id: z.union([z.string(), z.array(z.string())]).optional(),
    status: z.string(),
    error: z.string().nullish(),
    statusCode: z.number().nullish(),
  })
  .loose();
export type ActionResult = z.infer<typeof actionResultSchema>;

export const actionResultsSchema = z.array(actionResultSchema).min(1);
