/**
 * The maker flow (machines/make/maker-flow.ts) against a real local OpenAI-compatible server: repairs with the
 * validator's problems, the attempt budget, the phases its observer sees, and the context signal
 * ending it mid-draft with the model request cancelled.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allProviders } from '../../engine/providers/index.js';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { formatProblems, type PlanValidator, type ValidationProblem } from '../../engine/producers/ai/maker.js';
import { InterruptedError, OperationError } from '../../engine/core/errors.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { PREDEFINED_BINDINGS } from '../../schemas/plan.js';
import { makePlan } from '../../machines/make/maker-actors.js';
import type { MakerEvent } from '../../machines/make/maker-flow.js';
import { openAiServerFor } from '../support/openai-server.js';
import { assistantErrorOf } from '../support/errors.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';

const PROVIDERS = await allProviders();
const srv = openAiServerFor(test);

const validate: PlanValidator = (plan, { destroyer }) => validatePlan(plan, { providers: PROVIDERS, destroyer, predefined: PREDEFINED_BINDINGS });

const CATALOGUE = {
  instanceTypes: [{ instance_type: '1V100.6V', price_per_hour: 0.39, description: 'Tesla V100' }],
  locations: [{ code: 'FIN-01', name: 'Finland 1' }],
  images: [{ image_type: 'ubuntu-24.04-cuda-12.8-open-docker', is_default: true }],
  sshKeys: [{ id: 'key-uuid-1', name: 'laptop' }],
  availability: [{ location_code: 'FIN-01', availabilities: ['1V100.6V'] }],
};
const CREATE = gpucloudPlan(createInstanceStep('train-1', { produces: true }), { args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"start","id":"<INSTANCE_ID>"}'], reason: 'start it' });
/** Wrong: `produce` is not a step field (the validator names it). */
const TYPO = { ...CREATE, commands: [{ ...CREATE.commands[0], produce: { INSTANCE_ID: '$.id' }, produces: undefined }, CREATE.commands[1]] };

function options(extra: Partial<Parameters<typeof makePlan>[0]> = {}) {
  return {
    provider: resolveAiProvider({ aiConfig: { providers: { openai: { base_url: srv.baseURL, api_key: 'sk-flow-test' } } }, env: {}, policy: { timeoutMs: 10_000 } }),
    question: 'create a 1V100.6V called train-1 in FIN-01 with my default ssh key and start it',
    catalogue: CATALOGUE,
    defaults: { DEFAULT_SSH_KEY_ID: 'key-uuid-1' },
    destroyer: false,
    validate,
    ...extra,
  };
}

function recorder() {
  const events: MakerEvent[] = [];
  return {
    events,
    observe: (e: MakerEvent) => void events.push(e),
    phases: () => events.flatMap((e) => (e.type === 'ask.phase' ? [`${e.from}->${e.to}`] : [])),
    rejected: () => events.flatMap((e) => (e.type === 'maker.rejected' ? [e] : [])),
  };
}

test('a plan the first draft gets wrong is repaired on the second: the repair message carries the validator problems', async () => {
  srv.reply({ text: JSON.stringify(TYPO) }, { text: JSON.stringify(CREATE) });
  const r = recorder();
  const plan = await makePlan(options({ observe: r.observe }));
  assert.equal(plan.commands, CREATE.commands);
  const [rejection] = r.rejected();
  assert.is(r.rejected().length, 1);
  assert.is(rejection!.attempt, 1);
  assert.ok(rejection!.problems.some((p) => /produce/.test(p.message) || /produce/.test(p.field ?? '')), JSON.stringify(rejection!.problems));
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 2);
  const messages = reqs[1]!.body.messages;
  assert.equal(messages.slice(-3), [
    { role: 'user', content: `Request: ${options().question}` },
    { role: 'assistant', content: JSON.stringify(TYPO) },
    { role: 'user', content: `The plan failed validation:\n${formatProblems(rejection!.problems)}\nReturn the corrected complete plan as one JSON object.` },
  ]);
});

test('after maxAttempts invalid drafts the flow fails with the last draft problems, and asks no more', async () => {
  srv.setDefault({ text: JSON.stringify(TYPO) });
  const r = recorder();
  const err = await assistantErrorOf(makePlan(options({ maxAttempts: 2, observe: r.observe })));
  assert.is(err.code, 'ai_plan_invalid');
  assert.match(err.message, /did not produce a valid plan in 2 attempts/);
  assert.is(srv.chatRequests().length, 2);
  const last = r.rejected().at(-1)!;
  assert.is(last.attempt, 2);
  assert.equal((err.details as { problems: ValidationProblem[] }).problems, last.problems);
  assert.ok(err.message.endsWith(formatProblems(last.problems)));
  assert.is(r.events.at(-1)!.type, 'ask.failed');
});

test('the observer sees the phases in order, progress for the spinner, and the plan last', async () => {
  srv.reply({ text: JSON.stringify(TYPO) }, { text: JSON.stringify(CREATE) });
  const r = recorder();
  await makePlan(options({ observe: r.observe }));
  assert.equal(r.phases(), [
    'start->routing',
    'routing->preparing',
    'preparing->drafting',
    'drafting->validating',
    'validating->repairing',
    'repairing->drafting',
    'drafting->validating',
    'validating->done',
  ]);
  const progress = r.events.flatMap((e) => (e.type === 'ask.progress' ? [e.text] : []));
  assert.equal(progress, [`asking ${options().provider.describe()} for a plan`, 'the plan had problems; asking again (attempt 2)']);
  assert.is(r.events.at(-1)!.type, 'maker.plan');
});

/** The model holds its answer (ten minutes): resolves once the draft request has arrived. */
function modelHoldsDraft(): Promise<void> {
  return new Promise<void>((arrived) =>
    srv.reply(() => {
      arrived();
      return { text: JSON.stringify(CREATE), delayMs: 600_000 };
    }),
  );
}

test('the context signal aborting mid-draft ends the flow in failed with the interrupt, and the held model request is cancelled', async () => {
  const controller = new AbortController();
  const held = modelHoldsDraft();
  const r = recorder();
  const made = makePlan(options({ signal: controller.signal, observe: r.observe }));
  await held;
  const cancelled = srv.nextCancelled();
  controller.abort();
  const err = await assistantErrorOf(made);
  assert.instance(err, InterruptedError);
  assert.is((await cancelled).path, '/v1/chat/completions');
  assert.equal(r.phases().slice(-2), ['preparing->drafting', 'drafting->failed']);
  assert.is(r.events.at(-1)!.type, 'ask.failed');
});

test('a signal aborted with one of our errors (--timeout) fails the flow with that error', async () => {
  const controller = new AbortController();
  const held = modelHoldsDraft();
  const made = makePlan(options({ signal: controller.signal }));
  await held;
  controller.abort(new OperationError('timeout', 'the command ran out of time (--timeout 5)'));
  const err = await assistantErrorOf(made);
  assert.is(err.code, 'timeout');
});

test('the built-in planner drafts once: its plan is judged, never sent back', async () => {
  const builtin = resolveAiProvider({ aiConfig: { default_provider: 'builtin' }, env: {} });
  const r = recorder();
  const plan = await makePlan(options({ provider: builtin, question: 'shut down train-1', lookup: { instances: [{ id: '11111111-1111-4111-8111-111111111111', hostname: 'train-1' }] }, observe: r.observe }));
  assert.ok(plan.commands.length > 0);
  assert.is(srv.chatRequests().length, 0);
  assert.equal(r.phases().slice(-3), ['preparing->drafting', 'drafting->validating', 'validating->done']);
  assert.equal(r.events.find((e) => e.type === 'ask.progress'), { type: 'ask.progress', text: 'writing the plan' });
});

test.run();
