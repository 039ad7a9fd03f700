/**
 * The maker repair loop against a real local OpenAI-compatible server: what the model is given,
 * repairs of invalid plans, the attempt budget and the destroyer rule.
 */
import { allProviders } from '../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PlanValidator } from '../../engine/producers/ai/maker.js';
import { makePlan } from '../../machines/make/maker-actors.js';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import { SafetyRefusal } from '../../engine/core/errors.js';
import { PREDEFINED_BINDINGS } from '../../schemas/plan.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { openAiServerFor } from '../support/openai-server.js';
import { assistantErrorOf } from '../support/errors.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const srv = openAiServerFor(test);

/** The real whole-plan validator, with the predefined bindings a configured user would have. */
const validate: PlanValidator = (plan, { destroyer }) => validatePlan(plan, { providers: PROVIDERS, destroyer, predefined: PREDEFINED_BINDINGS });

function provider() {
  return resolveAiProvider({ aiConfig: { providers: { openai: { base_url: srv.baseURL, api_key: 'sk-maker-test' } } }, env: {}, policy: { timeoutMs: 10_000 } });
}

const CATALOGUE = {
  instanceTypes: [{ instance_type: '1V100.6V', price_per_hour: 0.39, description: 'Tesla V100', gpu: { description: '1x Tesla V100 16GB' } }],
  locations: [{ code: 'FIN-01', name: 'Finland 1' }],
  images: [{ image_type: 'ubuntu-24.04-cuda-12.8-open-docker', is_default: true }],
  sshKeys: [{ id: 'key-uuid-1', name: 'laptop' }],
  availability: [{ location_code: 'FIN-01', availabilities: ['1V100.6V'] }],
};
const DEFAULTS = { DEFAULT_SSH_KEY_ID: 'key-uuid-1' };

const CREATE = gpucloudPlan(createInstanceStep('train-1', { produces: true }), { args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"start","id":"<INSTANCE_ID>"}'], reason: 'start it' });
const DELETE = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"delete","id":"abc"}'], reason: 'delete train-1' }] };
const SHUTDOWN = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"shutdown","id":"abc"}'], reason: 'shut down train-1' }] };

const opts = (extra: Partial<Parameters<typeof makePlan>[0]> = {}) => ({
  provider: provider(),
  question: 'create a 1V100.6V called train-1 in FIN-01 with my default ssh key and start it',
  catalogue: CATALOGUE,
  defaults: DEFAULTS,
  destroyer: false,
  validate,
  ...extra,
});

const errorOf = assistantErrorOf;

test('the model gets the plan JSON Schema as structured output, the catalogue and the defaults; a valid plan comes back', async () => {
  srv.reply({ text: JSON.stringify(CREATE) });
  const plan = await makePlan(opts());
  assert.equal(plan.commands, CREATE.commands);
  assert.is(plan.question, opts().question);
  const req = srv.chatRequests()[0]!;
  assert.is(req.body.response_format.type, 'json_schema');
  assert.ok(req.body.response_format.json_schema.schema.properties.commands, 'plan schema sent');
  assert.is(req.body.temperature, 0);
  const system: string = req.body.messages[0].content;
  assert.is(req.body.messages[0].role, 'system');
  assert.match(system, /1V100\.6V/);
  assert.match(system, /key-uuid-1/);
  assert.match(system, /<DEFAULT_SSH_KEY_ID> is configured/);
  assert.match(system, /<DEFAULT_LOCATION> is NOT configured/);
  assert.match(system, /discovery-only plan of GET commands/);
  assert.match(system, /did NOT pass --destroyer/);
  assert.match(system, /GET \/v1\/instance-types/, 'API paths come from the catalogue');
  assert.match(req.body.messages[1].content, /create a 1V100\.6V called train-1/);
});

test('repair loop: an invalid plan goes back with its problems and is corrected on attempt 2', async () => {
  const typo = { ...CREATE, commands: [{ ...CREATE.commands[0], produce: { INSTANCE_ID: '$.id' }, produces: undefined }, CREATE.commands[1]] };
  srv.reply({ text: JSON.stringify(typo) }, { text: JSON.stringify(CREATE) });
  const attempts: number[] = [];
  const plan = await makePlan(opts({ onAttempt: (e) => attempts.push(e.attempt) }));
  assert.equal(plan.commands, CREATE.commands);
  assert.equal(attempts, [1]);
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 2);
  const msgs = reqs[1]!.body.messages;
  assert.is(msgs.at(-2).role, 'assistant');
  assert.is(msgs.at(-2).content, JSON.stringify(typo));
  assert.is(msgs.at(-1).role, 'user');
  assert.match(msgs.at(-1).content, /failed validation/);
  assert.match(msgs.at(-1).content, /produce/);
});

test('repair loop: a valid plan naming a location, type or image the live catalogue lacks goes back with the valid values', async () => {
  const body = JSON.parse(CREATE.commands[0]!.args[3]!);
  const bad = { ...CREATE, commands: [{ ...CREATE.commands[0], args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ ...body, location_code: 'MOON-01', image: 'windows-11' })] }, CREATE.commands[1]] };
  const badType = { ...CREATE, commands: [{ ...CREATE.commands[0], args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ ...body, instance_type: '9Z999.1V' })] }, CREATE.commands[1]] };
  srv.reply({ text: JSON.stringify(bad) }, { text: JSON.stringify(badType) }, { text: JSON.stringify(CREATE) });
  const attempts: string[][] = [];
  const plan = await makePlan(opts({ onAttempt: (e) => attempts.push(e.problems.map((p) => `${p.kind} ${p.field}`)) }));
  assert.equal(plan.commands, CREATE.commands);
  assert.equal(attempts, [['catalogue body.location_code', 'catalogue body.image'], ['catalogue body.instance_type']]);
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 3);
  const repair1: string = reqs[1]!.body.messages.at(-1).content;
  assert.match(repair1, /commands\[0\] body\.location_code: location "MOON-01" is not in the gpucloud catalogue \(valid: FIN-01\)/);
  assert.match(repair1, /image "windows-11" is not in the gpucloud catalogue \(valid: ubuntu-24\.04-cuda-12\.8-open-docker\)/);
  assert.match(reqs[2]!.body.messages.at(-1).content, /instance type "9Z999\.1V" is not in the gpucloud catalogue \(valid: 1V100\.6V\)/);
});

test('repair loop: a CPU type with a CUDA image goes back as incompatible (supported_os of the type)', async () => {
  const catalogue = {
    ...CATALOGUE,
    instanceTypes: [...CATALOGUE.instanceTypes, { instance_type: 'CPU.4V.16G', supported_os: ['ubuntu-24.04'] }],
    images: [...CATALOGUE.images, { image_type: 'ubuntu-24.04' }],
    availability: [{ location_code: 'FIN-01', availabilities: ['1V100.6V', 'CPU.4V.16G'] }],
  };
  const body = JSON.parse(CREATE.commands[0]!.args[3]!);
  const cpu = (image: string) => ({ version: 1, provider: 'gpucloud', commands: [{ ...CREATE.commands[0], args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ ...body, instance_type: 'CPU.4V.16G', image })] }] });
  srv.reply({ text: JSON.stringify(cpu('ubuntu-24.04-cuda-12.8-open-docker')) }, { text: JSON.stringify(cpu('ubuntu-24.04')) });
  const plan = await makePlan(opts({ catalogue, question: 'a CPU box called train-1 in FIN-01' }));
  assert.match(plan.commands[0]!.args[3]!, /"image":"ubuntu-24\.04"/);
  assert.match(srv.chatRequests()[1]!.body.messages.at(-1).content, /does not run on CPU\.4V\.16G \(valid for CPU\.4V\.16G: ubuntu-24\.04\) \[catalogue\]/);
});

test('repair loop: a create where the type is sold out goes back naming where it is available; spot creates are not checked', async () => {
  const catalogue = {
    ...CATALOGUE,
    locations: [{ code: 'FIN-01' }, { code: 'FIN-03' }],
    availability: [{ location_code: 'FIN-01', availabilities: [] }, { location_code: 'FIN-03', availabilities: ['1V100.6V'] }],
  };
  const body = JSON.parse(CREATE.commands[0]!.args[3]!);
  const at = (extra: Record<string, unknown>) => ({ version: 1, provider: 'gpucloud', commands: [{ ...CREATE.commands[0], args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ ...body, ...extra })] }] });
  srv.reply({ text: JSON.stringify(at({})) }, { text: JSON.stringify(at({ location_code: 'FIN-03' })) });
  const plan = await makePlan(opts({ catalogue }));
  assert.match(plan.commands[0]!.args[3]!, /FIN-03/);
  assert.match(srv.chatRequests()[1]!.body.messages.at(-1).content, /1V100\.6V is not available in FIN-01 right now \(available in: FIN-03\) \[catalogue\]/);
  srv.reply({ text: JSON.stringify(at({ is_spot: true })) });
  const spot = await makePlan(opts({ catalogue }));
  assert.match(spot.commands[0]!.args[3]!, /"is_spot":true/);
});

test('repair loop: 3 failed attempts → ai_plan_invalid (exit 2) listing the last problems; no fourth request', async () => {
  const unbound = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"start","id":"<NOPE>"}'], reason: 'x' }] };
  srv.reply({ text: 'Sure! Here is your plan.' }, { text: '{"version":2,"commands":[]}' }, { text: JSON.stringify(unbound) }, { text: JSON.stringify(CREATE) });
  const err = await errorOf(makePlan(opts()));
  assert.is(err.code, 'ai_plan_invalid');
  assert.is(err.exitCode, 2);
  assert.match(err.message, /3 attempts/);
  assert.match(err.message, /<NOPE>/);
  assert.is(srv.chatRequests().length, 3);
  assert.match(srv.chatRequests()[1]!.body.messages.at(-1).content, /no JSON object/);
});

test('destroyer rule: a destructive plan is sent back once asking to avoid it, then refused with SafetyRefusal (exit 3)', async () => {
  srv.reply({ text: JSON.stringify(DELETE) }, { text: JSON.stringify(DELETE) }, { text: JSON.stringify(SHUTDOWN) });
  const err = await errorOf(makePlan(opts({ question: 'delete train-1' })));
  assert.ok(err instanceof SafetyRefusal);
  assert.is(err.exitCode, 3);
  assert.match(err.message, /--destroyer/);
  assert.match(err.hint ?? '', /--maker --destroyer/);
  const reqs = srv.chatRequests();
  assert.is(reqs.length, 2, 'asked exactly once to avoid destructive steps');
  assert.match(reqs[1]!.body.messages.at(-1).content, /without destructive steps/);
});

test('destroyer rule: when asked, the model can avoid the destructive step and the plan is accepted', async () => {
  srv.reply({ text: JSON.stringify(DELETE) }, { text: JSON.stringify(SHUTDOWN) });
  const plan = await makePlan(opts({ question: 'get rid of the load on train-1' }));
  assert.equal(plan.commands, SHUTDOWN.commands);
});

test('with --destroyer a destructive plan is accepted at once and the prompt says destructive steps are allowed', async () => {
  srv.reply({ text: JSON.stringify(DELETE) });
  const plan = await makePlan(opts({ question: 'delete train-1', destroyer: true }));
  assert.equal(plan.commands, DELETE.commands);
  assert.match(srv.chatRequests()[0]!.body.messages[0].content, /passed --destroyer/);
});

test('answers in code fences, after <think> blocks or wrapped in {"plan": …} are accepted', async () => {
  srv.reply({ text: '<think>hmm</think>\nHere you go:\n```json\n' + JSON.stringify({ plan: SHUTDOWN }) + '\n```' });
  const plan = await makePlan(opts({ question: 'shut down train-1' }));
  assert.equal(plan.commands, SHUTDOWN.commands);
});

test('the builtin provider plans deterministically without any request; destructive → SafetyRefusal', async () => {
  const builtin = resolveAiProvider({ aiConfig: { default_provider: 'builtin' }, env: {} });
  const lookup = { instances: [{ id: '11111111-1111-4111-8111-111111111111', hostname: 'train-1' }] };
  const plan = await makePlan(opts({ provider: builtin, question: 'shut down train-1', lookup }));
  assert.equal(plan.commands[0]!.args, ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"shutdown","id":"11111111-1111-4111-8111-111111111111"}']);
  const err = await errorOf(makePlan(opts({ provider: builtin, question: 'delete train-1', lookup })));
  assert.ok(err instanceof SafetyRefusal);
  assert.is(srv.chatRequests().length, 0);
});

test.run();
