/**
 * A plan that cannot change is checked once (issue 40 item 3): `listPlan` hands out one frozen plan per
 * kind, and `checkPlan` keeps the check of a plan frozen by `freezePlan`, only for the same provider
 * set, destroyer gate and predefined names. Every other plan is validated on every check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlan } from '../../engine/core/plan/check.js';
import { freezePlan } from '../../engine/core/plan/frozen.js';
import { PROVIDERS, allProviders } from '../../engine/providers/index.js';
import { findKind } from '../../engine/providers/gpucloud/catalogue.js';
import { listPlan } from '../../engine/providers/gpucloud/static-plans.js';
import type { Plan } from '../../schemas/plan.js';

const instances = findKind('instances')!;

test('a list plan is one frozen plan per kind: no caller can change what the next call runs', () => {
  const plan = listPlan(instances);
  assert.is(listPlan(instances), plan);
  assert.is.not(listPlan(findKind('volumes')!), plan);
  assert.throws(() => {
    (plan.commands[0]!.args as string[])[2] = '/v1/volumes';
  }, TypeError);
  assert.throws(() => {
    plan.commands.push({ args: ['gpucloud-api', 'DELETE', '/v1/volumes'], reason: 'x' });
  }, TypeError);
  assert.equal(plan.commands[0]!.args, ['gpucloud-api', 'GET', '/v1/instances']);
});

test('freezePlan freezes a part that was frozen only on the outside: its children cannot change under a kept check', () => {
  const args = ['gpucloud-api', 'GET', '/v1/instances'];
  const command = Object.freeze({ args, reason: 'list' });
  const plan = freezePlan({ version: 1, provider: 'gpucloud', commands: [command] } as Plan);
  assert.throws(() => {
    (plan.commands[0]!.args as string[])[1] = 'DELETE';
  }, TypeError);
  assert.equal(plan.commands[0]!.args, ['gpucloud-api', 'GET', '/v1/instances']);
});

test('the check of a frozen plan is kept for the same providers, gate and predefined names, and made again otherwise', async () => {
  const plan = listPlan(instances);
  const providers = await PROVIDERS.forPlan(plan);
  const first = checkPlan(plan, { providers, destroyer: false, predefined: {} });
  assert.is(checkPlan(plan, { providers, destroyer: false, predefined: {} }), first, 'kept');
  assert.is.not(checkPlan(plan, { providers, destroyer: true, predefined: {} }), first, 'another gate');
  assert.is.not(checkPlan(plan, { providers, destroyer: false, predefined: { PROJECT_ID: 'p' } }), first, 'other predefined names');
  assert.is.not(checkPlan(plan, { providers: await allProviders(), destroyer: false, predefined: {} }), first, 'another provider set');
  assert.equal(first.classes.map((c) => c.effect), ['read']);
});

test('a plan frozen some other way, or not at all, is validated on every check', async () => {
  const built: Plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'list' }] };
  const providers = await PROVIDERS.forPlan(built);
  const opts = { providers, destroyer: false, predefined: {} };
  assert.is.not(checkPlan(built, opts), checkPlan(built, opts));
  const shallow = Object.freeze({ ...built });
  assert.is.not(checkPlan(shallow, opts), checkPlan(shallow, opts), 'Object.freeze leaves the commands changeable');
  // What a mutable plan becomes is what its next check sees: a delete is refused without the destroyer.
  (built.commands[0]!.args as string[])[1] = 'DELETE';
  assert.throws(() => checkPlan(built, opts), /destructive/);
});

test('a frozen destructive plan is refused on every check: only passed checks are kept', async () => {
  const plan = freezePlan<Plan>({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'DELETE', '/v1/volumes/3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f'], reason: 'delete' }] });
  const providers = await PROVIDERS.forPlan(plan);
  for (let i = 0; i < 2; i++) assert.throws(() => checkPlan(plan, { providers, destroyer: false, predefined: {} }), /destructive/);
  assert.ok(checkPlan(plan, { providers, destroyer: true, predefined: {} }));
});

test.run();
