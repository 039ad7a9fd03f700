#!/usr/bin/env node
// Regenerates the JSON Schemas in schemas/ from the zod schemas (run after `npm run build`):
// plan.v1.schema.json, and the onboarding scan report, install plan, install report and recipe file.
import { writeFileSync } from 'node:fs';
import { planJsonSchema } from '../dist/schemas/plan-json-schema.js';
import { onboardingJsonSchemas } from '../dist/schemas/onboarding.js';

const write = (name, schema) => {
  const target = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(target, JSON.stringify(schema, null, 2) + '\n');
  console.log(`wrote ${target.pathname}`);
};
write('plan.v1.schema.json', planJsonSchema());
for (const [name, schema] of Object.entries(onboardingJsonSchemas())) write(name, schema);
