/**
 * engine/core/plan/shape.ts decides "plainly valid" without zod; PlanSchema stays the authority. These tests
 * hold it to that: on every example plan and thousands of generated plans and mutations, the shape check
 * never accepts what PlanSchema rejects, returns exactly what PlanSchema returns (same JSON, key order
 * included: the run journal hashes it) when both accept, and accepts the plans real producers write.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32 } from '../support/random.js';
import { PlanSchema } from '../../schemas/plan.js';
import { planShape } from '../../engine/core/plan/shape.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { allProviders } from '../../engine/providers/index.js';
import { instanceActionPlan, listPlan } from '../../engine/providers/gpucloud/static-plans.js';
import { KINDS } from '../../engine/providers/gpucloud/catalogue.js';

const PROVIDERS = await allProviders();
const examplesDir = new URL('../../../examples/plans/', import.meta.url);
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(new URL(f, examplesDir), 'utf8')) as Record<string, unknown>);

const rng = mulberry32;

const ODD_VALUES: unknown[] = [undefined, null, 0, 1, -1, 2, 1.5, NaN, '', 'x', 'gpucloud', 'a b', '$.id', 'ID', 'lower', '9X', true, false, [], [''], ['x'], ['x', 1], {}, { a: 'b' }, { ID: '' }, { ID: '$.id' }];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** One random change somewhere in the value: a key removed, added or replaced, an array emptied or holed. */
function mutate(value: unknown, r: () => number, depth = 0): unknown {
  if (Array.isArray(value)) {
    const out = [...value];
    const roll = r();
    if (roll < 0.15 || out.length === 0) return pick(r, ODD_VALUES);
    if (roll < 0.25) return [];
    if (roll < 0.32) {
      out.length += 1; // a hole at the end
      return out;
    }
    if (roll < 0.45) out.push(pick(r, ODD_VALUES));
    else {
      const i = Math.floor(r() * out.length);
      out[i] = depth < 4 && r() < 0.7 ? mutate(out[i], r, depth + 1) : pick(r, ODD_VALUES);
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(out);
    const roll = r();
    if (roll < 0.1 || keys.length === 0) return pick(r, ODD_VALUES);
    if (roll < 0.25) delete out[pick(r, keys)];
    else if (roll < 0.35) out[pick(r, ['extra', 'produces', 'notes', 'question', 'summary', 'created_at', 'reason', 'args', '__proto__', 'ID', 'x'])] = pick(r, ODD_VALUES);
    else if (roll < 0.4) return Object.assign(Object.create(null), out);
    else {
      const k = pick(r, keys);
      out[k] = depth < 4 && r() < 0.75 ? mutate(out[k], r, depth + 1) : pick(r, ODD_VALUES);
    }
    return out;
  }
  return pick(r, ODD_VALUES);
}

/** A random plan, valid more often than not; each rule of the schema is broken now and then. */
function generate(r: () => number): Record<string, unknown> {
  const odd = (p: number) => r() < p;
  const commands = Array.from({ length: odd(0.05) ? 0 : 1 + Math.floor(r() * 4) }, (_, i) => {
    const args = odd(0.05) ? [] : odd(0.05) ? ['gpucloud-api', 7] : ['gpucloud-api', 'GET', `/v1/instances/${i}`];
    const c: Record<string, unknown> = { args, reason: odd(0.1) ? '' : odd(0.03) ? 3 : `step ${i}` };
    if (odd(0.4)) c.produces = odd(0.3) ? {} : { [odd(0.1) ? `id_${i}` : `ID_${i}`]: odd(0.1) ? '' : odd(0.03) ? 1 : '$.id' };
    return c;
  });
  const provider = odd(0.05) ? '' : odd(0.05) ? [] : odd(0.05) ? ['gpucloud', ''] : odd(0.8) ? 'gpucloud' : ['gpucloud', 'k8s'];
  const plan: Record<string, unknown> = { version: odd(0.05) ? '1' : 1, provider, commands };
  if (odd(0.3)) plan.question = odd(0.05) ? 1 : 'why';
  if (odd(0.2)) plan.summary = 'what';
  if (odd(0.2)) plan.created_at = '2026-01-01T00:00:00Z';
  if (odd(0.2)) plan.notes = odd(0.5) ? 'a note' : odd(0.1) ? ['one', 2] : ['one', 'two'];
  return plan;
}

function compare(input: unknown, label: string): 'both' | 'zod-only' | 'neither' {
  const shaped = planShape(input);
  const parsed = PlanSchema.safeParse(input);
  if (shaped) {
    assert.ok(parsed.success, `${label}: the shape check accepted what PlanSchema rejects: ${JSON.stringify(input)}`);
    assert.is(JSON.stringify(shaped), JSON.stringify(parsed.data), `${label}: different output for ${JSON.stringify(input)}`);
    return 'both';
  }
  return parsed.success ? 'zod-only' : 'neither';
}

test('the shape check accepts every example plan and every plan the gpucloud commands build, exactly as PlanSchema returns them', () => {
  for (const [i, plan] of examples.entries()) assert.is(compare(plan, `examples[${i}]`), 'both');
  for (const spec of KINDS) assert.is(compare(listPlan(spec), `listPlan(${spec.kind})`), 'both');
  assert.is(compare(instanceActionPlan('shutdown', 'id-1', 'train-1'), 'instanceActionPlan'), 'both');
});

test('on generated plans and their mutations, the shape check never says yes where PlanSchema says no, and gives the same plan', () => {
  const seed = Number(process.env.SHAPE_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const r = rng(seed);
  const counts = { both: 0, 'zod-only': 0, neither: 0 };
  for (let i = 0; i < 6000; i++) {
    let input: unknown = i % 3 === 0 ? clone(pick(r, examples)) : generate(r);
    const mutations = i % 5 === 0 ? 0 : 1 + Math.floor(r() * 3);
    for (let m = 0; m < mutations; m++) input = mutate(input, r);
    counts[compare(input, `seed ${seed} (SHAPE_SEED=${seed} to reproduce), case ${i}`)]++;
  }
  // Both verdicts must be well exercised, and PlanSchema alone should accept only what the shape check
  // cannot read plainly (e.g. a plan object without Object.prototype).
  assert.ok(counts.both > 1000, JSON.stringify(counts));
  assert.ok(counts.neither > 1000, JSON.stringify(counts));
  assert.ok(counts['zod-only'] < counts.both / 10, JSON.stringify(counts));
  if (process.env.SHAPE_COUNTS) console.log(JSON.stringify(counts));
});

test('an invalid plan still gets PlanSchema\'s own problems (zod loads for it), with command index and field', () => {
  const v = validatePlan({ version: 2, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'r', extra: 1 }] }, { providers: PROVIDERS, destroyer: false });
  assert.not.ok(v.ok);
  assert.ok(v.problems.some((p) => p.field === 'version'), JSON.stringify(v.problems));
  assert.ok(v.problems.some((p) => p.index === 0 && /unknown key "extra"/.test(p.message)), JSON.stringify(v.problems));
});

test.run();
