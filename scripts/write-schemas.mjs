#!/usr/bin/env node
// Regenerates schemas/plan.v1.schema.json from the zod schema (run after `npm run build`).
import { writeFileSync } from 'node:fs';
import { planJsonSchema } from '../dist/schemas/plan-json-schema.js';

const target = new URL('../schemas/plan.v1.schema.json', import.meta.url);
writeFileSync(target, JSON.stringify(planJsonSchema(), null, 2) + '\n');
console.log(`wrote ${target.pathname}`);
