/**
 * The built-in planner: accuracy over the phrasings in planner-questions.ts (printed and held to
 * 100%), plan validity, lookups, errors, and answers rendered without a model.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AssistantError } from '../../engine/core/errors.js';
import { answerFromResults } from '../../engine/producers/planner/answer.js';
import { builtinNeeds, planBuiltin } from '../../engine/producers/planner/builtin.js';
import { PLACEHOLDER_PATTERN, PlanSchema, PREDEFINED_BINDINGS, type Plan } from '../../schemas/plan.js';
import { CONTEXT, I1, PLANNER_CASES, type ExpectedCommand, type PlannerCase } from './planner-questions.js';

function sameCommand(actual: Plan['commands'][number], expected: ExpectedCommand): string | undefined {
  if (expected.args) {
    return JSON.stringify(actual.args) === JSON.stringify(expected.args) ? undefined : `args ${JSON.stringify(actual.args)} ≠ ${JSON.stringify(expected.args)}`;
  }
  const [verb, method, path, body] = actual.args;
  if (verb !== 'gpucloud-api' || method !== expected.m || path !== expected.p) return `${verb} ${method} ${path} ≠ gpucloud-api ${expected.m} ${expected.p}`;
  const parsed = body === undefined ? undefined : JSON.parse(body);
  if (JSON.stringify(parsed) !== JSON.stringify(expected.body)) return `body ${body} ≠ ${JSON.stringify(expected.body)}`;
  if (JSON.stringify(actual.produces) !== JSON.stringify(expected.produces)) return `produces ${JSON.stringify(actual.produces)} ≠ ${JSON.stringify(expected.produces)}`;
  return undefined;
}

/** Why a case failed, or undefined when the planner got it right. */
function check(c: PlannerCase): string | undefined {
  let plan: Plan;
  try {
    plan = planBuiltin(c.q, CONTEXT);
  } catch (err) {
    const code = err instanceof AssistantError ? err.code : String(err);
    return c.error === code ? undefined : `error ${code}: ${(err as Error).message}`;
  }
  if (c.error) return `expected error ${c.error}, got a plan ${JSON.stringify(plan.commands.map((x) => x.args))}`;
  const expected = c.expect ?? [];
  if (plan.commands.length !== expected.length) return `${plan.commands.length} commands ≠ ${expected.length}: ${JSON.stringify(plan.commands.map((x) => x.args))}`;
  for (const [i, e] of expected.entries()) {
    const why = sameCommand(plan.commands[i]!, e);
    if (why) return `command ${i}: ${why}`;
  }
  return undefined;
}

test('builtin planner accuracy over the question set is 100%: every case plans exactly, or is refused with its error (printed)', () => {
  assert.ok(PLANNER_CASES.length >= 40, `${PLANNER_CASES.length} phrasings`);
  const failures = PLANNER_CASES.map((c) => ({ q: c.q, why: check(c) })).filter((f) => f.why);
  const right = PLANNER_CASES.length - failures.length;
  const pct = (100 * right) / PLANNER_CASES.length;
  console.log(`builtin planner accuracy: ${right}/${PLANNER_CASES.length} (${pct.toFixed(1)}%)`);
  for (const f of failures) console.error(`  miss: "${f.q}" → ${f.why}`);
  assert.is(failures.length, 0, `accuracy ${pct.toFixed(1)}%: ${failures.map((f) => f.q).join(' | ')}`);
});

test('every plan the planner makes is a valid plan document whose placeholders are all bound', () => {
  for (const c of PLANNER_CASES.filter((x) => !x.error)) {
    let plan: Plan;
    try {
      plan = planBuiltin(c.q, CONTEXT);
    } catch {
      continue; // counted by the accuracy test
    }
    assert.ok(PlanSchema.safeParse(plan).success, c.q);
    assert.is(plan.version, 1);
    assert.is(plan.provider, 'gpucloud');
    assert.is(plan.question, c.q);
    const bound = new Set<string>(PREDEFINED_BINDINGS);
    for (const cmd of plan.commands) {
      for (const arg of cmd.args) for (const m of arg.matchAll(PLACEHOLDER_PATTERN)) assert.ok(bound.has(m[1]!), `${c.q}: <${m[1]}> unbound`);
      for (const name of Object.keys(cmd.produces ?? {})) bound.add(name);
      if (cmd.args[0] === 'gpucloud-api' && cmd.args[3] !== undefined) JSON.parse(cmd.args[3]); // bodies are JSON strings
    }
  }
});

test('the planner is deterministic: the same question gives the same plan', () => {
  for (const q of ['provision a 1L40S.20V', 'create a 16H100 instant cluster called c2 in FIN-03', 'list instances and volumes']) {
    assert.equal(planBuiltin(q, CONTEXT), planBuiltin(q, CONTEXT));
  }
});

test('outside the grammar → exit 2 error whose hint shows how to configure an AI provider', () => {
  try {
    planBuiltin('write me a haiku about GPU clouds');
    assert.unreachable();
  } catch (err) {
    assert.ok(err instanceof AssistantError);
    const e = err as AssistantError;
    assert.is(e.code, 'not_understood');
    assert.is(e.exitCode, 2);
    assert.match(e.hint ?? '', /default_provider: openai/);
    assert.match(e.hint ?? '', /--ai-profile/);
  }
});

test('a refusal gives the real reason: a verb the planner lacks ("rename") is named as such; a compound request is said to be several changes, with the first one to ask', () => {
  const refusal = (q: string) => {
    try {
      planBuiltin(q, CONTEXT);
    } catch (err) {
      return err as AssistantError;
    }
    throw new Error(`expected a refusal of ${q}`);
  };
  const rename = refusal('rename train-1 to train-big');
  assert.is(rename.code, 'not_understood');
  assert.match(rename.message, /does not know how to "rename" \(it can create, start, shut down/);
  assert.not.match(rename.message, /names no gpucloud resource/);
  const compound = refusal('create a 1V100.6V instance called a1 in FIN-01 and a volume of 100GB called v1');
  assert.is(compound.code, 'not_understood');
  assert.match(compound.message, /makes one change per request, and .* reads as several \(it does not understand "volume", "100GB", "v1"\)/);
  assert.match(compound.hint ?? '', /ask for each change in turn \(e\.g\. the first: "create a 1V100\.6V instance called a1 in FIN-01"\)/);
  // Without a joining word it is the plain "does not understand".
  assert.match(refusal('create a 1V100.6V instance called a1 with wings').message, /does not understand "wings"/);
});

test('a hostname without the current instances → builtin_needs_data; an unknown one lists the known ones', () => {
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err as AssistantError;
    }
    throw new Error('expected an error');
  };
  assert.is(codeOf(() => planBuiltin('shut down train-1')).code, 'builtin_needs_data');
  const unknown = codeOf(() => planBuiltin('shut down train-9', CONTEXT));
  assert.is(unknown.code, 'builtin_unknown_target');
  assert.match(unknown.hint ?? '', /train-1, train-2, big-box/);
  assert.is(codeOf(() => planBuiltin('create an instant cluster called x')).code, 'builtin_missing_value');
  assert.is(codeOf(() => planBuiltin('create a 16H100 cluster called x')).code, 'builtin_needs_data');
  // ids need no lookup
  assert.equal(JSON.parse(planBuiltin(`stop ${I1}`).commands[0]!.args[3]!), { action: 'shutdown', id: I1 });
});

test('a request too long for the grammar (a 40 000-character hostname) is refused as not understood, not crashed on', () => {
  try {
    planBuiltin(`create a 1V100.6V called ${'a-'.repeat(20_000)}b`, CONTEXT);
    assert.unreachable();
  } catch (err) {
    assert.ok(err instanceof AssistantError, String(err));
    assert.is((err as AssistantError).code, 'not_understood');
  }
});

test('a configured default location the catalogue lacks is refused naming <DEFAULT_LOCATION>; a valid one is checked and kept as the placeholder', () => {
  const ctx = (loc: string) => ({ ...CONTEXT, defaults: { DEFAULT_SSH_KEY_ID: 'k', DEFAULT_LOCATION: loc } });
  try {
    planBuiltin('create a 1V100.6V called d1', ctx('FIN-09'));
    assert.unreachable();
  } catch (err) {
    assert.is((err as AssistantError).code, 'unknown_location');
    assert.match((err as Error).message, /location "FIN-09" \(the value of <DEFAULT_LOCATION>\)/);
    assert.match((err as AssistantError).hint ?? '', /valid locations: FIN-01, FIN-02, FIN-03, ICE-01/);
  }
  assert.match(planBuiltin('create a 1V100.6V called d1', ctx('FIN-01')).commands[0]!.args[3]!, /"location_code":"<DEFAULT_LOCATION>"/);
});

test('builtinNeeds tells the caller which records to fetch before planning', () => {
  assert.equal(builtinNeeds('shut down train-1'), { instances: true, clusters: false, volumes: false, clusterImages: false, instanceTypes: false });
  assert.ok(builtinNeeds('discontinue cluster c1').clusters);
  assert.ok(builtinNeeds('create a kubernetes cluster 16H100 named k').clusterImages);
  assert.ok(builtinNeeds('attach volume data to train-1').volumes);
  assert.ok(builtinNeeds('attach volume data to train-1').instances);
  assert.equal(builtinNeeds('what is my balance'), { instances: false, clusters: false, volumes: false, clusterImages: false, instanceTypes: false });
});

test('a generated hostname does not collide with existing instances', () => {
  const ctx = { ...CONTEXT, lookup: { instances: [{ id: I1, hostname: '1v100-6v' }] } };
  const body = JSON.parse(planBuiltin('create a 1V100.6V', ctx).commands[0]!.args[3]!);
  assert.is(body.hostname, '1v100-6v-2');
});

const INSTANCES = [
  { id: 'a', hostname: 'train-1', status: 'running', instance_type: '1V100.6V', location: 'FIN-01' },
  { id: 'b', hostname: 'train-2', status: 'offline', instance_type: '1V100.6V', location: 'FIN-03' },
  { id: 'c', hostname: 'big', status: 'running', instance_type: '8H100.80S.176V', location: 'FIN-03' },
];

test('answerFromResults: balance without a model', () => {
  const text = answerFromResults('what is my balance', [{ args: ['gpucloud-api', 'GET', '/v1/balance'], data: { amount: 123.456, currency: 'usd' } }]);
  assert.is(text, 'Your balance is 123.46 USD.');
});

test('answerFromResults: instances counted by status, with a short list', () => {
  const text = answerFromResults('list my instances', [{ args: ['gpucloud-api', 'GET', '/v1/instances'], data: INSTANCES }]);
  assert.match(text, /^You have 3 instances: 2 running, 1 offline\./);
  assert.match(text, /- train-2 \(1V100\.6V, FIN-03, offline\)/);
  assert.is(answerFromResults('how many instances do I have?', [{ path: '/v1/instances', data: INSTANCES }]), 'You have 3 instances: 2 running, 1 offline.');
  assert.is(answerFromResults('which instances are running', [{ path: '/v1/instances', data: INSTANCES }]), '2 instances are running: train-1, big.');
  assert.is(answerFromResults('list my instances', [{ path: '/v1/instances', data: [] }]), 'You have no instances.');
});

test('answerFromResults: names of any kind, single records and changes', () => {
  assert.is(
    answerFromResults('list locations', [{ path: '/v1/locations', data: [{ code: 'FIN-01' }, { code: 'ICE-01' }] }]),
    '2 locations.\nFIN-01, ICE-01',
  );
  assert.is(
    answerFromResults('show instance train-1', [{ path: '/v1/instances/a', data: INSTANCES[0] }]),
    'instance train-1: status running, instance type 1V100.6V, location FIN-01.',
  );
  assert.is(answerFromResults('create', [{ args: ['gpucloud-api', 'POST', '/v1/instances', '{}'], data: 'new-id-1' }]), 'Created instance new-id-1.');
  assert.is(answerFromResults('stop', [{ args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"shutdown","id":"a"}'], data: undefined }]), 'Done: shutdown instance.');
});

test.run();
