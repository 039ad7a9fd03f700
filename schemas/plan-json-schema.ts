import { z } from 'zod';
import { PlanSchema } from './plan.js';

let body: Record<string, unknown> | undefined;
/** The plan v1 JSON Schema as zod derives it (the AI maker's prompt and structured output), built once. */
export function planSchemaBody(): Record<string, unknown> {
  body ??= z.toJSONSchema(PlanSchema) as Record<string, unknown>;
  return body;
}

/** The plan v1 JSON Schema checked in as schemas/plan.v1.schema.json (editors, CI): the body with its id and title. */
export function planJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://assistant.local/schemas/plan.v1.schema.json',
    title: 'assistant plan document, version 1',
    ...planSchemaBody(),
  };
}
