/**
 * The sandbox keeps its own runs (issue 38 §3, §6): a plan applied in the sandbox is not "already applied"
 * in the real cloud (nor resumed there with the sandbox's IDs), and `sandbox reset` starts the sandbox
 * over — its resources and its runs — without touching the real cloud's journals.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const plan = (hostname: string) => ({
  version: 1,
  provider: 'gpucloud',
  commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [] })], reason: `create ${hostname}` }],
});

test('a plan applied in the sandbox still applies for real, once: the journals are apart', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const file = join(home, 'plan.json');
    writeFileSync(file, JSON.stringify(plan('both-1')));
    const inSandbox = await runCli(['--sandbox', 'ask', '--apply', file], { home });
    assert.is(inSandbox.code, 0, inSandbox.stderr);
    assert.is(emu.requests().filter((r) => r.method === 'POST').length, 0, 'the sandbox sent nothing to the real endpoint');
    const real = await runCli(['ask', '--apply', file], { home, env });
    assert.is(real.code, 0, real.stderr);
    assert.is(emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances').length, 1);
    const again = await runCli(['ask', '--apply', file], { home, env });
    assert.is(again.code, 3, 'the real run is journaled: not applied twice');
    assert.match(again.stderr, /already applied/);
  });
});

test('sandbox reset removes the sandbox resources and runs; the real journals stay', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    const file = join(home, 'plan.json');
    writeFileSync(file, JSON.stringify(plan('reset-1')));
    assert.is((await runCli(['ask', '--apply', file], { home, env })).code, 0);
    assert.is((await runCli(['--sandbox', 'ask', '--apply', file], { home })).code, 0);
    const listed = await runCli(['--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], { home });
    assert.ok((JSON.parse(listed.stdout) as { hostname: string }[]).some((i) => i.hostname === 'reset-1'));
    const reset = await runCli(['sandbox', 'reset'], { home });
    assert.is(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /sandbox reset: removed/);
    assert.not.ok(existsSync(join(home, '.assistant', 'sandbox')));
    assert.is(readdirSync(join(home, '.assistant', 'runs')).length, 1, "the real run's journal is kept");
    const fresh = await runCli(['--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], { home });
    assert.not.ok((JSON.parse(fresh.stdout) as { hostname: string }[]).some((i) => i.hostname === 'reset-1'), 'the demo resources again');
    const reapplied = await runCli(['--sandbox', 'ask', '--apply', file], { home });
    assert.is(reapplied.code, 0, `after a reset the sandbox has no run of the plan: ${reapplied.stderr}`);
    const twice = await runCli(['sandbox', 'reset'], { home });
    assert.is(twice.code, 0);
    assert.match((await runCli(['sandbox', 'reset'], { home })).stdout, /already fresh/);
  });
});

test.run();
