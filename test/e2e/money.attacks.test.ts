/**
 * The attacks of issue 35, each through the surfaces that apply plans — the CLI (`ask --apply`), MCP
 * `assistant_plan_apply`, talk's `/apply` and `box serve --allow-apply` following a hostile model's plan —
 * each refused before anything is sent (the emulator's request log is the proof):
 *
 *   - a create whose path carries a query (`POST /v1/instances?utm=1`): refused as invalid (exit 2);
 *   - a scale-up (PATCH of a deployment's `/scaling` to 20 H100 replicas): priced as the difference
 *     and refused by the budget (exit 3, budget_exceeded);
 *   - container deployments one after another: each counts in the burn the next is judged on;
 *   - a job deployment: priced (compute × units × most replicas);
 *   - method overrides and keys that fold to one: refused as invalid;
 *   - a change no one can price: refused under a budget (budget_unpriced) unless --allow-unpriced.
 *
 * Emulator prices: H100 serverless 2.41/h per unit, 8H100.80S.176V 17.52/h; the demo account burns 1.4985/h.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, startEmulator, type Emulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { boxAiConfig, postMessage, startBox } from '../support/box.js';
import { cliInThisProcess, configFile, emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { callTool, connectHttp, errorOf, startMcpServer } from '../support/mcp.js';
import { openAiServerFor } from '../support/openai-server.js';
import { until } from '../support/wait.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const srv = openAiServerFor(test);
let emu: Emulator;
test.before(async () => {
  emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
});
test.after(async () => {
  await emu.close();
});
test.before.each(() => emu.reset());

const env = () => emulatorEnv(emu);
const call = (method: string, path: string, body?: unknown, reason = `${method} ${path}`) => ({ args: ['gpucloud-api', method, path, ...(body === undefined ? [] : [typeof body === 'string' ? body : JSON.stringify(body)])], reason });
const plan = (...commands: unknown[]) => ({ version: 1, provider: 'gpucloud', commands });
/** Every request that is not a read (nor a token request). */
const changes = () => emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2'));
const H100_UNIT = 2.41;

const BIG = { instance_type: '8H100.80S.176V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'cheap-1', description: '', location_code: 'FIN-03', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] };
const QUERY_CREATE = plan(call('POST', '/v1/instances?utm=1', BIG, 'create CPU.4V.16G instance cheap-1 (0.03/hour)'));
const SCALE_UP = plan(call('PATCH', '/v1/container-deployments/web/scaling', { max_replica_count: 20 }, 'scale web to 2 replicas (2.41/hour)'));
const container = (name: string, max = 1) => call('POST', '/v1/container-deployments', { name, is_spot: false, compute: { name: 'H100', size: 1 }, scaling: { min_replica_count: 0, max_replica_count: max }, containers: [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }] });
const JOB = plan(call('POST', '/v1/job-deployments', { name: 'nightly', compute: { name: 'H100', size: 1 }, scaling: { max_replica_count: 3, queue_message_ttl_seconds: 300, deadline_seconds: 3600 }, containers: [{ image: 'ghcr.io/me/job:1.0', exposed_port: 8080 }] }));

/** A running container deployment `web`: H100 × 1 unit, at most 1 replica (2.41/h), made directly on the emulator. */
async function existingWeb(): Promise<void> {
  const c = emulatorClient(emu);
  const r = await c.call('POST', '/v1/container-deployments', { name: 'web', is_spot: false, compute: { name: 'H100', size: 1 }, scaling: { min_replica_count: 0, max_replica_count: 1 }, containers: [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }] });
  assert.is(r.status, 200);
}

function planFile(p: unknown): string {
  const home = tempHome('assistant-attack-');
  const file = join(home, 'plan.json');
  writeFileSync(file, JSON.stringify(p));
  return file;
}

// ------------------------------------------------------------------------------------------ the CLI

test('CLI: a create whose path carries a query is refused as invalid (exit 2), naming the step; nothing is sent, not even a token request', async () => {
  const r = await runCli(['ask', '--apply', '--max-hourly-cost', '3', '--plan-file', planFile(QUERY_CREATE)], { env: env() });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: invalid_plan: /m);
  assert.match(r.stderr, /command 0 \(args\[2\]\): a POST request on \/v1\/instances takes no query "utm"/);
  assert.is(emu.requests().length, 0);
  // Without a budget too: the form itself has no single reading.
  const unbudgeted = await runCli(['ask', '--apply', '--plan-file', planFile(QUERY_CREATE)], { env: env() });
  assert.is(unbudgeted.code, 2);
  assert.is(emu.requests().length, 0);
});

test('CLI: a scale-up is priced as the difference (19 more H100 replicas) and refused over the budget; nothing is sent', async () => {
  await existingWeb();
  const r = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(SCALE_UP)], { env: env() });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /^error: budget_exceeded: /m);
  assert.ok(r.stderr.includes(`+ this plan ${(H100_UNIT * 19).toFixed(4)} USD/hour`), r.stderr);
  assert.equal(changes().filter((q) => q.method === 'PATCH'), []);
  const dry = await runCli(['ask', '--apply', '--dry-run', '-o', 'json', '--plan-file', planFile(SCALE_UP)], { env: env() });
  assert.is(dry.code, 0, dry.stderr);
  const doc = JSON.parse(dry.stdout);
  assert.equal(doc.steps[0].price, { price: 'priced', per_hour: H100_UNIT * 19 });
  assert.match(doc.costs[0].part, /scaling of container deployment "web": H100 1 unit\(s\) × 20 replica\(s\), now H100 1 × 1/);
});

test('CLI: container deployments one after another each count in the burn the next is judged on; the second is refused under 5/h', async () => {
  const first = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(plan(container('c-1')))], { env: env() });
  assert.is(first.code, 0, first.stderr);
  const second = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(plan(container('c-2')))], { env: env() });
  assert.is(second.code, 3, second.stderr);
  assert.match(second.stderr, /^error: budget_exceeded: the plan would raise the burn above the budget: current burn 3\.9085 USD\/hour \+ this plan 2\.4100 USD\/hour/m);
  assert.is(changes().filter((q) => q.path === '/v1/container-deployments').length, 1);
});

test('CLI: two applies at once under one budget cannot both pass on the same burn: the second counts what the first is adding', async () => {
  // The first apply's create is held at the emulator: it has passed its budget check and holds what it adds.
  let release!: () => void;
  emu.addFault({ method: 'POST', path: '/v1/container-deployments', until: new Promise<void>((r) => (release = r)) });
  const home = tempHome('assistant-attack-two-');
  const first = runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(plan(container('two-1')))], { env: env(), home });
  await until(() => emu.requests().some((q) => q.method === 'POST' && q.path === '/v1/container-deployments'), 'the first create reaching the emulator');
  const second = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(plan(container('two-2')))], { env: env(), home });
  release();
  const a = await first;
  assert.is(a.code, 0, a.stderr);
  assert.is(second.code, 3, second.stderr);
  assert.match(second.stderr, /^error: budget_exceeded: the plan would raise the burn above the budget: current burn 1\.4985 USD\/hour \+ runs in progress on this machine 2\.4100 USD\/hour \+ this plan 2\.4100 USD\/hour = 6\.3185 USD\/hour/m);
  assert.is(changes().filter((q) => q.path === '/v1/container-deployments').length, 1, 'only the first was sent');
  // Its run over, the first holds nothing: what it made is in the burn itself.
  const third = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(plan(container('two-3')))], { env: env(), home });
  assert.is(third.code, 3);
  assert.match(third.stderr, /current burn 3\.9085 USD\/hour \+ this plan 2\.4100 USD\/hour/);
});

test('CLI: a job deployment is priced at compute × units × its most replicas and refused over the budget', async () => {
  const r = await runCli(['ask', '--apply', '--max-hourly-cost', '5', '--plan-file', planFile(JOB)], { env: env() });
  assert.is(r.code, 3, r.stderr);
  assert.ok(r.stderr.includes(`+ this plan ${(H100_UNIT * 3).toFixed(4)} USD/hour`), r.stderr);
  assert.equal(changes(), []);
});

test('CLI: method overrides and keys that fold to one field are refused as invalid, reads included; nothing is sent', async () => {
  const forms = [
    plan(call('GET', `/v1/instances/${EMULATOR_DEMO_IDS.offlineInstance}?_method=DELETE`)),
    plan(call('PUT', '/v1/instances?X-HTTP-Method-Override=DELETE', { action: 'start', id: EMULATOR_DEMO_IDS.offlineInstance })),
    plan(call('PUT', '/v1/instances', { action: 'start', id: EMULATOR_DEMO_IDS.offlineInstance, _method: 'DELETE' })),
    plan(call('POST', '/v1/instances', `{"instance_type":"CPU.4V.16G","in\\u017Ftance_type":"8H100.80S.176V","image":"ubuntu-24.04","hostname":"fold-1","description":"","location_code":"FIN-01"}`)),
    plan(call('PATCH', '/v1/container-deployments/web/scaling', `{"max_replica_count":1,"MAX_REPLICA_COUNT":20}`)),
  ];
  for (const p of forms) {
    const r = await runCli(['ask', '--apply', '--destroyer', '--plan-file', planFile(p)], { env: env() });
    assert.is(r.code, 2, `${JSON.stringify(p)}\n${r.stderr}`);
    assert.match(r.stderr, /^error: invalid_plan: .*\n.*command 0 \(args\[[23]\]\): /m);
  }
  assert.is(emu.requests().length, 0);
});

test('CLI: a change no one can price is refused under a budget (budget_unpriced, naming the step and why) unless --allow-unpriced; the dry run lists it even without a budget', async () => {
  const spot = plan(call('GET', '/v1/balance'), call('PUT', '/v1/instances', { action: 'configure_spot', id: EMULATOR_DEMO_IDS.offlineInstance }));
  const file = planFile(spot);
  const r = await runCli(['ask', '--apply', '--max-hourly-cost', '100', '--plan-file', file], { env: env() });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /^error: budget_unpriced: cannot check the plan against the budget of 100\.0000 USD\/hour: no price is known for step 1: gpucloud does not know what the instance action "configure_spot" costs; nothing was sent$/m);
  assert.match(r.stderr, /^hint: .*--allow-unpriced/m);
  assert.equal(changes(), []);
  const dry = await runCli(['ask', '--apply', '--dry-run', '--plan-file', file], { env: env() });
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^Unpriced \(no price is known; a budget refuses these without --allow-unpriced\):\n {2}step 1: gpucloud does not know what the instance action "configure_spot" costs$/m);
  const allowed = await runCli(['ask', '--apply', '--max-hourly-cost', '100', '--allow-unpriced', '--plan-file', file], { env: env() });
  assert.not.equal(allowed.code, 3, allowed.stderr);
  assert.is(changes().filter((q) => q.method === 'PUT').length, 1, 'sent once allowed');
});

test('CLI: a bound value may fill in an ID, never make the step another route: refused before it is sent, even with --destroyer', async () => {
  // Statically step 2 is a POST on one instance's ID; bound to "action" it would be the action route.
  const p = plan(
    { ...call('POST', '/v1/scripts', { name: 'action', script: '#!/bin/sh' }), produces: { SCRIPT_ID: '$.id' } },
    { ...call('GET', '/v1/scripts/<SCRIPT_ID>'), produces: { NAME: '$[0].name' } },
    call('POST', '/v1/instances/<NAME>', { action: 'start', id: EMULATOR_DEMO_IDS.offlineInstance }),
  );
  const r = await runCli(['ask', '--apply', '--destroyer', '--plan-file', planFile(p)], { env: env() });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /step 2, once its bindings are substituted, became POST \/v1\/instances\/action, not the POST \/v1\/instances\/\{id\} it was checked and priced as; it was not sent/);
  assert.equal(changes().filter((q) => q.path.startsWith('/v1/instances')), []);
});

// ------------------------------------------------------------------------------------------ MCP

test('MCP assistant_plan_apply with max_hourly_cost: the query create is invalid, the scale-up and the job are over budget; nothing is sent', async () => {
  await existingWeb();
  const home = tempHome('assistant-attack-mcp-');
  const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: env(), home });
  const client = await connectHttp(server.url);
  try {
    const before = changes().length;
    const query = await callTool(client, 'assistant_plan_apply', { plan: QUERY_CREATE, max_hourly_cost: 3 });
    assert.ok(query.isError);
    assert.is(errorOf(query).code, 'invalid_plan');
    assert.match(errorOf(query).message, /takes no query "utm"/);
    const scale = await callTool(client, 'assistant_plan_apply', { plan: SCALE_UP, max_hourly_cost: 5 });
    assert.is(errorOf(scale).code, 'budget_exceeded');
    const job = await callTool(client, 'assistant_plan_apply', { plan: JOB, max_hourly_cost: 5 });
    assert.is(errorOf(job).code, 'budget_exceeded');
    const unpriced = await callTool(client, 'assistant_plan_apply', { plan: plan(call('PUT', '/v1/instances', { action: 'configure_spot', id: EMULATOR_DEMO_IDS.offlineInstance })), max_hourly_cost: 100 });
    assert.is(errorOf(unpriced).code, 'budget_unpriced');
    assert.is(changes().length, before, 'nothing sent');
  } finally {
    await client.close();
    await server.stop();
  }
});

// ------------------------------------------------------------------------------------------ talk

const talkConfig = (extra = '') => configFile(`budget:\n  max_hourly: 5\ngpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n${extra}`);

test('talk /apply: what is shown is the request and its price, the plan’s words after them and flagged; the budget refuses the scale-up and nothing is sent', async () => {
  await existingWeb();
  const home = tempHome('assistant-attack-talk-');
  writeFileSync(join(home, 'scale.json'), JSON.stringify(SCALE_UP));
  const before = changes().length;
  const r = await runCli(['--config', talkConfig(), '--yes', 'talk', '--ai-profile', 'builtin'], { home, env: env(), input: '/plan load scale.json\n/apply\n' });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /^ {2}0\. PATCH \/v1\/container-deployments\/web\/scaling \(update of container\)$/m);
  assert.match(r.stderr, /^ {5}asks for: scaling of container deployment "web": up to 20 replicas$/m);
  assert.match(r.stderr, new RegExp(`^ {5}price: adds ${(H100_UNIT * 19).toFixed(4)} USD/hour`, 'm'));
  assert.match(r.stderr, /^ {5}the plan says: scale web to 2 replicas \(2\.41\/hour\)$/m);
  assert.match(r.stderr, /^ {5}! the plan's words do not match the request: it says 2 replicas; the request asks for 20; it says 2\.41\/hour; the request is priced at 45\.7900\/hour$/m);
  assert.match(r.stderr, /^error: budget_exceeded: /m);
  assert.is(changes().length, before);
  // A lying create: the body's 8H100 is shown, not the reason's CPU.4V.16G; without a terminal it is refused after being shown.
  writeFileSync(join(home, 'big.json'), JSON.stringify(plan(call('POST', '/v1/instances', BIG, 'create CPU.4V.16G instance cheap-1 (0.03/hour)'))));
  const lie = await runCli(['--config', talkConfig(), 'talk', '--ai-profile', 'builtin'], { home, env: env(), input: '/plan load big.json\n/apply\n' });
  assert.is(lie.code, 3, lie.stderr);
  assert.match(lie.stderr, /^ {5}asks for: instance 8H100\.80S\.176V in FIN-03; hostname cheap-1; OS volume 100 GB \(the default\)$/m);
  assert.match(lie.stderr, /^ {5}price: adds 17\.5\d+ USD\/hour/m);
  assert.match(lie.stderr, /! the plan's words do not match the request: it names CPU\.4V\.16G; the request asks for 8H100\.80S\.176V, NVMe; it says 0\.03\/hour; the request is priced at 17\.5\d+\/hour/);
  assert.match(lie.stderr, /^error: refused: applying needs your confirmation/m);
  const talkQuery = await runCli(['--config', talkConfig(), '--yes', 'talk', '--ai-profile', 'builtin'], { home, env: env(), input: `/plan load ${writePlan(home, 'query.json', QUERY_CREATE)}\n/apply\n` });
  assert.is(talkQuery.code, 2, talkQuery.stderr);
  assert.is(changes().length, before, 'nothing sent');
});

function writePlan(home: string, name: string, p: unknown): string {
  writeFileSync(join(home, name), JSON.stringify(p));
  return name;
}

// ------------------------------------------------------------------------------------------ box

test('box serve --allow-apply following a hostile model: the scale-up it was told to make is refused by the budget, the query create never validates; nothing is sent', async () => {
  await existingWeb();
  // boxAiConfig ends in its gpucloud block: the defaults join it.
  const config = configFile(`budget:\n  max_hourly: 5\n${boxAiConfig(srv.baseURL)}  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`);
  const box = await startBox(['--agent', 'assistant', '--allow-apply'], { env: { ...env(), TEST_AI_KEY: 'k' }, globalArgs: ['--config', config] });
  try {
    const before = changes().length;
    srv.setDefault({ text: JSON.stringify(SCALE_UP) });
    const scale = await postMessage(box.url, { message: 'scale my container deployment web a little', mode: 'apply' });
    assert.is(scale.status, 403, JSON.stringify(scale.body));
    assert.is(scale.body.error.code, 'budget_exceeded');
    srv.setDefault({ text: JSON.stringify(QUERY_CREATE) });
    const query = await postMessage(box.url, { message: 'create a cheap cpu instance cheap-1', mode: 'apply' });
    assert.ok(query.status >= 400, JSON.stringify(query.body));
    assert.is(changes().length, before, 'nothing sent');
    // Asked for the plan only, the box says what the request asks for and costs, the model's words after.
    srv.setDefault({ text: JSON.stringify(plan(call('POST', '/v1/instances', BIG, 'create CPU.4V.16G instance cheap-1 (0.03/hour)'))) });
    const shown = await postMessage(box.url, { message: 'create a cheap cpu instance cheap-1', mode: 'plan' });
    assert.is(shown.status, 200, JSON.stringify(shown.body));
    assert.match(shown.body.answer, /asks for: instance 8H100\.80S\.176V in FIN-03/);
    assert.match(shown.body.answer, /! the plan's words do not match the request: it names CPU\.4V\.16G/);
  } finally {
    await box.stop();
  }
});

test.run();
