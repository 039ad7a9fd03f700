import { z } from 'zod';
import { PlanSchema } from './plan.js';

/** The plan v1 JSON Schema checked in as schemas/plan.v1.schema.json (editors, CI, the AI maker). */
export function planJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://assistant.local/schemas/plan.v1.schema.json',
    title: 'assistant plan document, version 1',
    ...z.toJSONSchema(PlanSchema),
  };
}
