/**
 * The plan writer (engine/core/plan/writer.ts, issue 39 §9): makers write request bodies as JSON
 * objects, keys sorted, one field a line, and what is written reads back (engine/core/plan/document.ts)
 * to a plan with the same canonical requests; its string form is the same plan (same hash). A body that
 * would read back differently (a key twice, a number respelled or rounded, two keys Go's decoder folds
 * together, a text argument that is not spelled as JSON) stays the string it was. `plan convert`'s
 * `kept` order keeps the hash of a plan already checked in with string bodies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPlanDocument } from '../../engine/core/plan/document.js';
import { planHash } from '../../engine/core/plan/journal.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { planForWriting, planText } from '../../engine/core/plan/writer.js';
import { PREDEFINED_BINDINGS } from '../../schemas/plan.js';
import { allProviders } from '../../engine/providers/index.js';
import type { Plan } from '../../schemas/plan.js';

const PROVIDERS = await allProviders();
const examplesDir = new URL('../../../examples/plans/', import.meta.url);
const EXAMPLES = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, plan: JSON.parse(readFileSync(new URL(f, examplesDir), 'utf8')) as Plan }));

const step = (body: string, path = '/v1/instances') => ({ args: ['gpucloud-api', 'POST', path, body], reason: 'r' });
const plan = (...commands: { args: unknown[]; reason: string }[]) => ({ version: 1, provider: 'gpucloud', commands }) as unknown as Plan;
/** A written plan as every plan reader takes it: parsed, then read (bodies back to text), then validated. */
const reread = (text: string) => validated(readPlanDocument(JSON.parse(text) as unknown, { strict: true }).plan);
function validated(input: unknown) {
  const v = validatePlan(input, { providers: PROVIDERS, destroyer: true, predefined: [...PREDEFINED_BINDINGS] });
  assert.ok(v.ok, JSON.stringify(v.problems));
  return { plan: v.plan!, hash: planHash(v.plan!), requests: v.requests };
}
const bodyOf = (text: string, i = 0) => (JSON.parse(text) as { commands: { args: unknown[] }[] }).commands[i]!.args[3];

test('a maker body is written as an object, every object keys sorted (nested too), arrays in their order, one field a line', () => {
  const text = planText(plan(step(JSON.stringify({ location_code: 'FIN-01', hostname: 'w-1', os_volume: { size: 50, name: 'os' }, ssh_key_ids: ['b', 'a'], image: 'img', instance_type: '1V100.6V' }))));
  const body = bodyOf(text) as Record<string, unknown>;
  assert.equal(Object.keys(body), ['hostname', 'image', 'instance_type', 'location_code', 'os_volume', 'ssh_key_ids']);
  assert.equal(Object.keys(body.os_volume as object), ['name', 'size']);
  assert.equal(body.ssh_key_ids, ['b', 'a']);
  assert.is(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`, 'two spaces, one field a line');
  assert.match(text, /\n {10}"hostname": "w-1",\n {10}"image": "img",\n/);
});

test("a model's body spelled with spaces and escapes is written plainly, sorted; it reads back to the same canonical request", () => {
  const spelled = '{ "location_code" : "FIN-01",\n  "hostname": "w\\u002d2", "instance_type": "1V100.6V", "image": "img", "ssh_key_ids": [ ] }';
  const written = planText(plan(step(spelled)));
  assert.equal(bodyOf(written), { hostname: 'w-2', image: 'img', instance_type: '1V100.6V', location_code: 'FIN-01', ssh_key_ids: [] });
  assert.equal(Object.keys(bodyOf(written) as object), ['hostname', 'image', 'instance_type', 'location_code', 'ssh_key_ids']);
  assert.equal(reread(written).requests, validated(plan(step(spelled))).requests);
});

test('the object form and the string form of a written plan are one plan: same hash, same canonical requests; writing again gives the same text', () => {
  const made = plan({ ...step(JSON.stringify({ location_code: 'FIN-01', instance_type: '1V100.6V', image: 'img', hostname: 'w-3' })), produces: { INSTANCE_ID: '$.id' } } as never, {
    args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ id: '<INSTANCE_ID>', action: 'shutdown' })],
    reason: 'r',
  });
  const objects = planText(made);
  const strings = planText(made, { body: 'string' });
  assert.type(bodyOf(strings), 'string');
  const a = reread(objects);
  const b = reread(strings);
  assert.is(a.hash, b.hash);
  assert.equal(a.requests, b.requests);
  assert.is(planText(a.plan), objects, 'read and written again: the same text');
  assert.is(planText(JSON.parse(strings), { keys: 'kept' }), objects, 'string form → object form (plan convert) is the maker’s text');
});

test('a body that would not read back the same stays the string it was: a key twice, numbers respelled or rounded, keys Go folds together', () => {
  for (const body of [
    '{"hostname":"a","hostname":"b"}',
    '{"size":1.0}',
    '{"size":1e3}',
    '{"size":-0}',
    '{"size":12345678901234567890}',
    '{ "b": 1, "a": 1.50 }',
    '{"name":"a","Name":"b"}',
    '{"os_volume":{"size":1,"SIZE":2},"a":1}',
    '{"hoſtname":"x","hostname":"y"}',
  ]) {
    assert.is(bodyOf(planText(plan(step(body)))), body, body);
  }
  // Spelled exactly as it reads, a number is fine: 1.5, 1e+21 and 2^53 read back as written.
  assert.equal(bodyOf(planText(plan(step('{"b":1e+21,"a":1.5,"c":9007199254740992}')))), { a: 1.5, b: 1e21, c: 9007199254740992 });
});

test('a text argument that is an array spelled otherwise than JSON writes it stays text ([ "$x" ] is a shell test); an object argument is sorted', () => {
  const ssh = { args: ['ssh-exec', '10.0.0.1', '[ "$x" ]'], reason: 'r' };
  assert.is((JSON.parse(planText(plan(ssh))) as Plan).commands[0]!.args[2], '[ "$x" ]');
  assert.equal(bodyOf(planText(plan(step('["b","a"]')))), ['b', 'a']);
  const given = { args: ['gpucloud-api', 'POST', '/v1/volumes', { size: 1, name: 'v' }], reason: 'r' };
  assert.equal(Object.keys(bodyOf(planText(plan(given))) as object), ['name', 'size']);
});

test('a "__proto__" key stays a key of the body (written, read back, sent) and changes no prototype', () => {
  const body = '{"name":"v","__proto__":{"polluted":true}}';
  const written = planText(plan(step(body, '/v1/volumes')));
  assert.match(written, /"__proto__": \{\n/);
  assert.equal(Object.keys(bodyOf(written) as object), ['__proto__', 'name']);
  const back = readPlanDocument(JSON.parse(written), { strict: true }).plan as Plan;
  assert.is(back.commands[0]!.args[3], '{"__proto__":{"polluted":true},"name":"v"}');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('a body nested deeper than JSON.stringify goes stays the text it was (the writer does not crash)', () => {
  const deep = `${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`;
  assert.is(bodyOf(planText(plan(step(deep)))), deep);
});

test('plans checked in with string bodies keep their hash and canonical requests through plan convert (kept order) both ways', () => {
  assert.ok(EXAMPLES.length >= 3);
  for (const { file, plan: example } of EXAMPLES) {
    const asIs = validated(readPlanDocument(example, { strict: true }).plan);
    const objects = planText(asIs.plan, { keys: 'kept' });
    const back = reread(objects);
    assert.is(back.hash, asIs.hash, file);
    assert.equal(back.requests, asIs.requests, file);
    assert.is(reread(planText(back.plan, { body: 'string', keys: 'kept' })).hash, asIs.hash, file);
  }
});

test('what is not a plan is written as it is; the step verb and other keys are untouched, in the schema order', () => {
  assert.is(planText({ hello: 'x' }), '{\n  "hello": "x"\n}\n');
  assert.equal(planForWriting([1, 2]), [1, 2]);
  const written = JSON.parse(planText({ notes: ['n'], commands: [{ reason: 'r', args: ['{"v":1}', '{"b":1,"a":2}'] }], provider: 'p', version: 1, extra: true })) as Record<string, unknown>;
  assert.equal(Object.keys(written), ['version', 'provider', 'commands', 'notes', 'extra']);
  const cmd = (written.commands as { args: unknown[] }[])[0]!;
  assert.equal(Object.keys(cmd), ['args', 'reason']);
  assert.equal(cmd.args, ['{"v":1}', { a: 2, b: 1 }]);
});

test.run();
