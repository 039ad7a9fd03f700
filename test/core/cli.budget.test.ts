import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/**
 * The budget guard against the emulator's demo account. Hand-computed burn (emulator/fixtures.ts and
 * seed prices): demo-a100 1.29 + demo-cpu 0.0279 (offline, still billing) + NVMe volumes of 100, 50 and
 * 500 GB at 0.20 per GB and month / 720 h. The plan adds a 1V100.6V (0.39/h) with its 100 GB NVMe OS volume.
 */
const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const BURN = 1.29 + 0.0279 + GB_HOUR(0.2, 100 + 50 + 500);
const ADDED = 0.39 + GB_HOUR(0.2, 100);
const AFTER = BURN + ADDED; // 1.9162…
const HDD = GB_HOUR(0.05, 200);
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

const post = (path: string, body: Record<string, unknown>) => ({ args: ['gpucloud-api', 'POST', path, JSON.stringify(body)], reason: `create via ${path}` });
const instance = (hostname: string) => post('/v1/instances', { instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] });
const plan = (...commands: unknown[]) => JSON.stringify({ version: 1, provider: 'gpucloud', commands });
const changes = (emu: Emulator) => emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2'));
const rate = (n: number) => `${n.toFixed(4)} USD/hour`;

test('ask --apply --max-hourly-cost refuses a plan that would push the burn above the limit (exit 3, budget_exceeded, every figure named, nothing sent) and runs it under a higher limit', async () => {
  await withEmulator(async ({ emu, env }) => {
    const input = plan(instance('budget-1'));
    const r = await runCli(['ask', '--apply', '--max-hourly-cost', '1.9'], { env, input });
    assert.is(r.code, 3, r.stderr);
    assert.ok(
      r.stderr.includes(`error: budget_exceeded: the plan would raise the burn above the budget: current burn ${rate(BURN)} + this plan ${rate(ADDED)} = ${rate(AFTER)}, above the limit of 1.9000 USD/hour (--max-hourly-cost); nothing was sent`),
      r.stderr,
    );
    assert.match(r.stderr, /^hint: raise the limit \(--max-hourly-cost\) or free resources first/m);
    assert.equal(changes(emu), [], 'nothing but reads was sent');
    const ok = await runCli(['ask', '--apply', '--max-hourly-cost', '1.92', '-o', 'json'], { env, input });
    assert.is(ok.code, 0, ok.stderr);
    assert.is(JSON.parse(ok.stdout).status, 'succeeded');
    assert.is(changes(emu).filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 1);
  });
});

test('budget.max_hourly in the config refuses the same way, naming the config key; the flag overrides it', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const config = join(home, 'c.yaml');
    writeFileSync(config, 'budget:\n  max_hourly: 1.5\n');
    const input = plan(instance('budget-2'));
    const r = await runCli(['--config', config, 'ask', '--apply'], { env, input, home });
    assert.is(r.code, 3, r.stderr);
    assert.ok(r.stderr.includes(`= ${rate(AFTER)}, above the limit of 1.5000 USD/hour (budget.max_hourly)`), r.stderr);
    assert.equal(changes(emu), []);
    const ok = await runCli(['--config', config, 'ask', '--apply', '--max-hourly-cost', '2'], { env, input, home });
    assert.is(ok.code, 0, ok.stderr);
    writeFileSync(config, 'budget:\n  max_hourly: -2\n');
    const bad = await runCli(['--config', config, 'ask', '--apply'], { env, input, home });
    assert.is(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /budget\.max_hourly/);
  });
});

test('a plan that adds nothing is never refused, even on an account already over its limit', async () => {
  await withEmulator(async ({ env }) => {
    const r = await runCli(['ask', '--apply', '--max-hourly-cost', '0.5', '-o', 'json'], { env, input: plan({ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'read' }) });
    assert.is(r.code, 0, r.stderr);
  });
});

test('--dry-run with a budget shows the burn before and after the plan and the limit; over the limit it exits 3 like other refusals', async () => {
  await withEmulator(async ({ emu, env }) => {
    const input = plan(instance('budget-3'));
    const j = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1.9', '-o', 'json'], { env, input });
    assert.is(j.code, 3, j.stderr);
    const b = JSON.parse(j.stdout).budget;
    close(b.current_per_hour, BURN, 'current');
    close(b.added_per_hour, ADDED, 'added');
    close(b.after_per_hour, AFTER, 'after');
    assert.equal([b.max_hourly, b.limit_from, b.within, b.unpriced, b.not_counted], [1.9, '--max-hourly-cost', false, [], []]);
    assert.match(j.stderr, /warning: applying it would be refused: the plan would raise the burn above the budget/);
    const within = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '2'], { env, input });
    assert.is(within.code, 0, within.stderr);
    assert.ok(within.stdout.includes(`Burn: ${rate(BURN)} now, ${rate(AFTER)} after this plan (+${ADDED.toFixed(4)}); limit 2.0000 USD/hour (--max-hourly-cost): within\n`), within.stdout);
    // Without a budget the dry run keeps to the reads it needs: no burn.
    const none = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env, input });
    assert.is(none.code, 0, none.stderr);
    assert.is(JSON.parse(none.stdout).budget, undefined);
    assert.equal(changes(emu), []);
  });
});

test('--max-hourly-cost must be a positive number and goes with --apply: exit 2, nothing sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    for (const v of ['abc', '0', '-1', 'Infinity']) {
      const r = await runCli(['ask', '--apply', `--max-hourly-cost=${v}`], { env, input: plan(instance('x')) });
      assert.is(r.code, 2, `${v}: ${r.stderr}`);
      assert.match(r.stderr, /error: invalid_input: --max-hourly-cost: expected a number greater than 0/);
    }
    const q = await runCli(['ask', '--max-hourly-cost', '3', 'what is my balance'], { env });
    assert.is(q.code, 2);
    assert.match(q.stderr, /--max-hourly-cost goes with --apply/);
    assert.is(emu.requests().length, 0);
  });
});

test('a resumed run is judged on what is still to be created: the completed create is already in the burn and not counted twice', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const input = plan(post('/v1/volumes', { type: 'HDD', name: 'budget-vol', size: 200, location_code: 'FIN-01' }), instance('budget-4'));
    emu.addFault({ method: 'POST', path: '/v1/instances', status: 400, times: 1 });
    const first = await runCli(['ask', '--apply'], { env, input, home });
    assert.is(first.code, 1, first.stderr);
    // Now the account burns BURN + HDD; what is left to create adds ADDED.
    const refused = await runCli(['ask', '--apply', '--resume', '--max-hourly-cost', '1.92'], { env, input, home });
    assert.is(refused.code, 3, refused.stderr);
    assert.ok(refused.stderr.includes(`current burn ${rate(BURN + HDD)} + this plan ${rate(ADDED)} = ${rate(BURN + HDD + ADDED)}`), refused.stderr);
    // 1.94 is above BURN + HDD + ADDED (1.9301) but below what counting the volume twice would give (1.9440).
    const resumed = await runCli(['ask', '--apply', '--resume', '--max-hourly-cost', '1.94', '-o', 'json'], { env, input, home });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(JSON.parse(resumed.stdout).status, 'succeeded');
    assert.is(changes(emu).filter((q) => q.method === 'POST' && q.path === '/v1/volumes').length, 1, 'the volume was created once');
  });
});

test('a create the guard cannot price is refused under a budget: it cannot tell', async () => {
  await withEmulator(async ({ emu, env }) => {
    const input = plan(post('/v1/volumes', { type: 'TAPE', name: 'budget-tape', size: 10, location_code: 'FIN-01' }));
    const r = await runCli(['ask', '--apply', '--max-hourly-cost', '100'], { env, input });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /error: budget_unpriced: cannot check the plan against the budget of 100\.0000 USD\/hour: no price is known for step 0: volume TAPE/);
    assert.equal(changes(emu), []);
  });
});

test.run();
