import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planJsonSchema } from '../../schemas/plan-json-schema.js';

test('the checked-in plan JSON Schema matches the zod schema (run `npm run schemas` after changing it)', () => {
  const checkedIn = JSON.parse(readFileSync(new URL('../../../schemas/plan.v1.schema.json', import.meta.url), 'utf8'));
  assert.equal(checkedIn, JSON.parse(JSON.stringify(planJsonSchema())));
});

test('the JSON Schema forbids unknown keys at top level and in commands', () => {
  const schema = planJsonSchema() as { additionalProperties?: boolean; properties: { commands: { items: { additionalProperties?: boolean } } } };
  assert.is(schema.additionalProperties, false);
  assert.is(schema.properties.commands.items.additionalProperties, false);
});

test.run();
