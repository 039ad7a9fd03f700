/**
 * The duplicate-name check reads one listing per kind per run, indexed by case-folded name once
 * (engine/core/plan/names.ts, issue 40): among many instances, a planned name that exists in another case
 * is refused before anything is sent, and a name the run itself made is seen by its next create.
 * The real CLI in this process against the emulator.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { createInstanceStep } from '../support/plans.js';

cliInThisProcess();

const LONG = { timeoutMs: 90_000 };

const createStep = (hostname: string) =>
  createInstanceStep(hostname, { instanceType: 'CPU.4V.16G', image: 'ubuntu-24.04', sshKey: EMULATOR_DEFAULT_SSH_KEY_ID, reason: `create ${hostname}` });

const planOf = (summary: string, ...commands: object[]) => JSON.stringify({ version: 1, provider: 'gpucloud', summary, commands });
const posts = (emu: Emulator) => emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/instances');
const lists = (emu: Emulator, from: number) => emu.requests().slice(from).filter((r) => r.method === 'GET' && r.path === '/v1/instances').length;

test('among 40 instances, a planned name that exists in another case is refused (exit 3) naming its ID; nothing is sent; one listing', async () => {
  await withEmulator(
    async ({ emu, env }) => {
      const home = tempHome();
      const names = Array.from({ length: 40 }, (_, i) => (i === 17 ? 'Web-Seven' : `many-${i}`));
      const made = await runCli(['ask', '--apply'], { env, home, input: planOf('forty', ...names.map(createStep)), ...LONG });
      assert.is(made.code, 0, made.stderr);
      assert.is(posts(emu).length, 40);
      const ids = (JSON.parse((await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home, ...LONG })).stdout) as { id: string; hostname: string }[]).filter((i) => i.hostname === 'Web-Seven').map((i) => i.id);
      assert.is(ids.length, 1);

      const from = emu.requests().length;
      const again = await runCli(['ask', '--apply'], { env, home, input: planOf('one more', createStep('brand-new'), createStep('web-seven')), ...LONG });
      assert.is(again.code, 3, again.stderr);
      assert.match(again.stderr, `step 1 creates instance "web-seven", which already exists (${ids[0]})`);
      assert.is(posts(emu).length, 40, 'nothing was sent');
      assert.is(lists(emu, from), 1, 'the kind was listed once');
    },
    { seed: 'empty' },
  );
});

test('a name the run itself created is seen by its later create of the same name in another case: refused before it is sent', async () => {
  await withEmulator(
    async ({ emu, env }) => {
      const home = tempHome();
      const r = await runCli(['ask', '--apply'], { env, home, input: planOf('twins', createStep('twin-1'), createStep('other-1'), createStep('TWIN-1')), ...LONG });
      assert.is.not(r.code, 0, r.stderr);
      assert.match(r.stderr, /instance "TWIN-1", which already exists/);
      const sent = posts(emu).map((q) => (JSON.parse(q.body ?? '{}') as { hostname: string }).hostname);
      assert.equal(sent, ['twin-1', 'other-1'], 'the third create was not sent');
    },
    { seed: 'empty' },
  );
});

test.run();
