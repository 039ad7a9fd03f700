import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/** The built-in (no AI) answers to cost questions, from the same reads and prices as `cost summary` (figures as in cli.budget.test.ts). */
const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const BURN = 1.29 + 0.0279 + GB_HOUR(0.2, 100 + 50 + 500);
const BALANCE = 250;

test('the built-in ask answers "what am I spending per hour" with the burn, what it goes on, offline instances still billing, and the runway', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.setBalance(BALANCE);
    const r = await runCli(['ask', '--ai-profile', 'builtin', 'what am I spending per hour?'], { env });
    assert.is(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.is(lines[0], `You are spending ${BURN.toFixed(4)} USD per hour (${(BURN * 24).toFixed(2)} per day, ${(BURN * 720).toFixed(2)} per 30 days) on 5 billable resources.`);
    assert.is(lines[1], `Most of it: instance demo-a100 1.29 USD/hour, volume demo-data 0.14 USD/hour, instance demo-cpu 0.0279 USD/hour.`); // 0.0279 > 100 GB NVMe at 0.0278
    assert.is(lines[2], '1 offline instance still bills (shutdown keeps billing, only delete stops it): demo-cpu.');
    const hours = BALANCE / BURN;
    assert.match(lines[3]!, new RegExp(`^Your balance of 250\\.00 USD lasts ${hours.toFixed(1)} hours \\(${(hours / 24).toFixed(1)} days\\) at this rate, until \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\.$`));
    assert.is(lines.length, 4);
  });
});

test('"how long will my balance last" routes to cost, reads what cost summary reads, and answers with the runway', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.setBalance(BALANCE);
    const route = await runCli(['ask', '--route-only', '-o', 'json', 'how long will my balance last?'], { env });
    assert.is(route.code, 0, route.stderr);
    const d = JSON.parse(route.stdout);
    assert.equal(d.providers, ['gpucloud']);
    assert.ok(d.kinds.includes('cost'), JSON.stringify(d.kinds));
    assert.equal(d.context_kinds, ['instances', 'balance', 'volumes', 'clusters', 'instance-types', 'volume-types', 'cluster-types']);
    const r = await runCli(['ask', '--ai-profile', 'builtin', 'how long will my balance last?'], { env });
    assert.is(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`Your balance of 250.00 USD lasts ${(BALANCE / BURN).toFixed(1)} hours`), r.stdout);
    // A price question stays a price question.
    const price = await runCli(['ask', '--route-only', '-o', 'json', 'what does CPU.4V.16G cost per hour'], { env });
    assert.equal(JSON.parse(price.stdout).kinds, ['instance-types']);
  });
});

test('on an account where nothing bills the built-in cost answer says so', async () => {
  await withEmulator(
    async ({ env }) => {
      const r = await runCli(['ask', '--ai-profile', 'builtin', "what's my burn rate"], { env });
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Nothing bills right now \(0 USD per hour\); your balance of [0-9.]+ USD is not being drawn down\.$/m);
    },
    { seed: 'empty' },
  );
});

test.run();
