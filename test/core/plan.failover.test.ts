/**
 * Capacity failover (issue 31 §1): a create step's `alternatives`, applied through the CLI and the MCP
 * apply tool against the emulator, with its capacity switch set per instance type and location.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { callTool, connectHttp, startMcpServer, textOf } from '../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const home = () => tempHome('assistant-failover-');

const H100 = '1H100.80S.22V';
const A100 = '1A100.22V';
const IMAGE = 'ubuntu-24.04-cuda-12.8-open-docker';

function createPlan(hostname: string, alternatives: Record<string, unknown>[], first: Record<string, unknown> = { instance_type: H100, location_code: 'FIN-02' }) {
  const body = { instance_type: H100, image: IMAGE, hostname, description: '', location_code: 'FIN-02', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], ...first };
  return {
    version: 1,
    provider: 'gpucloud',
    commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: `an H100 called ${hostname}`, produces: { INSTANCE_ID: '$.id' }, alternatives }],
  };
}

function planFile(h: string, plan: unknown): string {
  const path = join(h, 'plan.json');
  writeFileSync(path, JSON.stringify(plan));
  return path;
}

async function instancesNamed(emu: Emulator, hostname: string): Promise<{ id: string; status: string; instance_type: string; location: string }[]> {
  const all = (await emulatorClient(emu).call('GET', '/v1/instances')).json as { id: string; hostname: string; status: string; instance_type: string; location: string }[];
  return all.filter((i) => i.hostname === hostname);
}

const posts = (emu: Emulator) => emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances');

test('a create fails over past a sold-out choice, a 503 and a no_capacity instance to the first choice with capacity; the report, journal and progress say which', () =>
  withEmulator(async ({ emu, env }) => {
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-02', mode: 'sold_out' });
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-03', mode: 'lost' });
    emu.setCapacity({ instance_type: H100, location_code: 'ICE-01', mode: 'no_capacity' });
    const h = home();
    const plan = createPlan('fo-1', [{ location_code: 'FIN-03' }, { location_code: 'ICE-01' }, { instance_type: A100, location_code: 'FIN-01' }]);
    const r = await runCli(['ask', '--apply', '--plan-file', planFile(h, plan), '-o', 'json'], { env, home: h });
    assert.is(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const alt = report.steps[0].alternative;
    assert.is(alt.index, 3);
    assert.equal(alt.values, { instance_type: A100, location_code: 'FIN-01' });
    assert.equal(alt.tried.map((t: { index: number }) => t.index), [0, 1, 2]);
    assert.match(alt.tried[0].outcome, /not available/);
    assert.match(alt.tried[1].outcome, /service_unavailable/);
    assert.match(alt.tried[2].outcome, /no_capacity/);
    // Progress on stderr names each choice passed over.
    assert.match(r.stderr, /capacity: the step as written \(1H100\.80S\.22V in FIN-02\) is not available; trying alternative 1: 1H100\.80S\.22V in FIN-03/);
    assert.match(r.stderr, /capacity: alternative 2 \(1H100\.80S\.22V in ICE-01\) ended in no_capacity/);
    // The sold-out choice never got a create; the lost one got its create (and the client's retries); one instance runs.
    const sent = posts(emu).map((p) => JSON.parse(p.body!).location_code);
    assert.not.ok(sent.includes('FIN-02'), `no create in the sold-out location: ${sent}`);
    const made = await instancesNamed(emu, 'fo-1');
    assert.equal(made.map((i) => [i.location, i.status === 'no_capacity']).sort(), [['FIN-01', false], ['ICE-01', true]]);
    assert.is(report.bindings.INSTANCE_ID, made.find((i) => i.location === 'FIN-01')!.id);
    // The name now means the placed instance, not the no_capacity record beside it.
    const got = await runCli(['gpucloud', 'get', 'instance', 'fo-1', '-o', 'json'], { env, home: h });
    assert.is(got.code, 0, got.stderr);
    assert.is(JSON.parse(got.stdout).id, report.bindings.INSTANCE_ID);
    // The journal's done entry records the choice.
    const runs = join(h, '.assistant', 'runs');
    const journal = readFileSync(join(runs, readdirSync(runs).find((f) => f.endsWith('.jsonl'))!), 'utf8');
    const done = journal.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'done');
    assert.is(done.alternative.index, 3);
    // The table report says it too.
    const again = await runCli(['ask', '--apply', '--fresh', '--allow-duplicate-names', '--plan-file', planFile(h, plan)], { env, home: h });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /used alternative 3: 1A100\.22V in FIN-01; passed over: the step as written \(1H100\.80S\.22V in FIN-02\) is not available/);
  }));

test('a 503 whose create did happen is adopted, never followed by a create of the next choice', () =>
  withEmulator(async ({ emu, env }) => {
    // Every create answers 503 after the emulator made the instance (three attempts: the client's retries find it).
    emu.addFault({ method: 'POST', path: '/v1/instances', status: 503, code: 'service_unavailable', afterHandler: true, times: 1 });
    const h = home();
    const r = await runCli(['ask', '--apply', '--plan-file', planFile(h, createPlan('fo-2', [{ location_code: 'FIN-03' }])), '-o', 'json'], { env, home: h });
    assert.is(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.is(report.steps[0].alternative.index, 0);
    assert.is(report.steps[0].deduplicated, true);
    assert.is(posts(emu).length, 1, 'one create sent, none for the alternative');
    assert.is((await instancesNamed(emu, 'fo-2')).length, 1);
  }));

test('an instance accepted and then gone (404 while it is placed) passes its choice over like no_capacity', () =>
  withEmulator(async ({ emu, env }) => {
    emu.addFault({ method: 'GET', path: '/v1/instances/*', status: 404, code: 'not_found', message: 'Invalid instance id', times: 1 });
    const h = home();
    const r = await runCli(['ask', '--apply', '--plan-file', planFile(h, createPlan('fo-gone', [{ location_code: 'FIN-03' }])), '-o', 'json'], { env, home: h });
    assert.is(r.code, 0, r.stderr);
    const alt = JSON.parse(r.stdout).steps[0].alternative;
    assert.is(alt.index, 1);
    assert.match(alt.tried[0].outcome, /was accepted, then disappeared before it was placed/);
  }));

test('no choice with capacity: exit 1, no_capacity naming every choice, nothing running', () =>
  withEmulator(async ({ emu, env }) => {
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-02', mode: 'sold_out' });
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-03', mode: 'sold_out' });
    const h = home();
    const r = await runCli(['ask', '--apply', '--plan-file', planFile(h, createPlan('fo-3', [{ location_code: 'FIN-03' }, { location_code: 'XX-99' }]))], { env, home: h });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: no_capacity: no capacity for "fo-3" in any of its 3 choices: the step as written \(1H100\.80S\.22V in FIN-02\) is not available; alternative 1 \(1H100\.80S\.22V in FIN-03\) is not available; alternative 2 \(1H100\.80S\.22V in XX-99\) cannot be checked/m);
    assert.match(r.stderr, /^hint: .*list availability --matrix/m);
    assert.is(posts(emu).length, 0);
    assert.is((await instancesNamed(emu, 'fo-3')).length, 0);
  }));

test('dry run prices every choice, counts the most expensive, and the budget guard judges that one', () =>
  withEmulator(async ({ emu, env }) => {
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-02', mode: 'sold_out' });
    const h = home();
    // The cheap A100 first, the H100 as the alternative: the H100 is what the budget must allow.
    const plan = createPlan('fo-4', [{ instance_type: H100, location_code: 'FIN-03' }, { location_code: 'XX-99' }], { instance_type: A100, location_code: 'FIN-01' });
    const file = planFile(h, plan);
    const dry = await runCli(['ask', '--apply', '--dry-run', '--plan-file', file], { env, home: h });
    assert.is(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /step 0: instance 1H100\.80S\.22V in FIN-03   2\.19\/hour/);
    assert.match(dry.stdout, /as written   : 1A100\.22V in FIN-01   1\.29\/hour   available now/);
    assert.match(dry.stdout, /alternative 1: 1H100\.80S\.22V in FIN-03   2\.19\/hour   available now/);
    assert.match(dry.stdout, /alternative 2: 1A100\.22V in XX-99   .*NOT AVAILABLE now/);
    assert.match(dry.stderr + dry.stdout, /alternative 2: location "XX-99" is not in the gpucloud catalogue/);
    const json = JSON.parse((await runCli(['ask', '--apply', '--dry-run', '--plan-file', file, '-o', 'json'], { env, home: h })).stdout);
    const line = json.costs.find((c: { kind: string }) => c.kind === 'instance');
    assert.is(line.per_hour, 2.19);
    assert.equal(line.choices.map((c: { choice: number; available: boolean }) => [c.choice, c.available]), [[0, true], [1, true], [2, false]]);
    // Burn of the demo account 1.4985/h + H100 2.19 + its OS volume: over 3.5 though the A100 would fit.
    const refused = await runCli(['ask', '--apply', '--max-hourly-cost', '3.5', '--plan-file', file], { env, home: h });
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /^error: budget_exceeded: .*this plan 2\.2178 USD\/hour/m);
    assert.is(posts(emu).length, 0);
  }));

test('alternatives are validated: only on instance creates, known keys, no repeats, no placeholders (exit 2, nothing sent)', () =>
  withEmulator(async ({ emu, env }) => {
    const h = home();
    const cases: [unknown, RegExp][] = [
      [{ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'r', alternatives: [{ location_code: 'FIN-03' }] }] }, /alternatives apply to instance creates \(POST \/v1\/instances\) only/],
      [createPlan('v1', [{ location: 'FIN-03' }]), /unknown key "location"/],
      [createPlan('v2', [{}]), /an alternative changes instance_type, location_code or is_spot/],
      [createPlan('v3', [{ location_code: 'FIN-02' }]), /alternatives\[0\]\): repeats the step as written/],
      [createPlan('v4', [{ location_code: '<DEFAULT_LOCATION>' }]), /must be a literal value/],
      [createPlan('v6', [{ location_code: 'FIN-03' }], { hostname: undefined }), /needs its hostname in the body/],
      [{ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-wait', 'instances', 'x', 'running'], reason: 'r', alternatives: [{ is_spot: true }] }] }, /"gpucloud-wait" steps take no alternatives/],
    ];
    for (const [plan, message] of cases) {
      const r = await runCli(['plan', 'validate', planFile(h, plan)], { env, home: h });
      assert.is(r.code, 2, `${message}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    const applied = await runCli(['ask', '--apply', '--plan-file', planFile(h, createPlan('v5', [{ location_code: 'FIN-02' }]))], { env, home: h });
    assert.is(applied.code, 2);
    assert.is(emu.requests().length, 0);
  }));

test('the MCP apply tool fails over too and its report says which alternative was used', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.setCapacity({ instance_type: H100, location_code: 'FIN-02', mode: 'sold_out' });
    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env, home: home() });
    const client = await connectHttp(server.url);
    try {
      const validated = await callTool(client, 'assistant_plan_validate', { plan: createPlan('fo-mcp', [{ location_code: 'ICE-01' }]) });
      assert.match(textOf(validated), /alternative 1: 1H100\.80S\.22V in ICE-01   2\.19\/hour   available now/);
      const r = await callTool(client, 'assistant_plan_apply', { plan: createPlan('fo-mcp', [{ location_code: 'ICE-01' }]) });
      assert.not.ok(r.isError, textOf(r));
      assert.is(r.structuredContent.steps[0].alternative.index, 1);
      assert.match(textOf(r), /used alternative 1: 1H100\.80S\.22V in ICE-01/);
      assert.equal((await instancesNamed(emu, 'fo-mcp')).map((i) => i.location), ['ICE-01']);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

test('the emulator capacity switch answers the availability check and the create per type, location and spot', () =>
  withEmulator(async ({ emu }) => {
    const c = emulatorClient(emu);
    const avail = async (type: string, loc: string, spot = false) => (await c.call('GET', `/v1/instance-availability/${type}?location_code=${loc}${spot ? '&is_spot=true' : ''}`)).json;
    assert.is(await avail('8V100.48V', 'FIN-01'), false, 'sold out in the static table');
    emu.setCapacity({ instance_type: '8V100.48V', location_code: 'FIN-01', mode: 'available' });
    assert.is(await avail('8V100.48V', 'FIN-01'), true);
    assert.is(await avail('8V100.48V', 'FIN-01', true), false, 'spot is its own switch');
    const list = (await c.call('GET', '/v1/instance-availability?location_code=FIN-01')).json as { availabilities: string[] }[];
    assert.ok(list[0]!.availabilities.includes('8V100.48V'));
    emu.setCapacity({ instance_type: A100, location_code: 'FIN-01', mode: 'lost' });
    assert.is(await avail(A100, 'FIN-01'), true);
    const body = { instance_type: A100, image: IMAGE, hostname: 'sw', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] };
    assert.is((await c.call('POST', '/v1/instances', body)).status, 503);
    emu.setCapacity({ instance_type: A100, location_code: 'FIN-01' });
    assert.is((await c.call('POST', '/v1/instances', body)).status, 202);
    const control = await fetch(`${emu.url}/__emulator/capacity`, { method: 'POST', body: JSON.stringify({ instance_type: A100, location_code: 'FIN-01', mode: 'bogus' }) });
    assert.is(control.status, 400);
  }));

test.run();
