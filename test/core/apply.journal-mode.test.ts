/**
 * A run's journal keeps what its steps sent and received, so it is readable by its owner only (0600):
 * when a run makes it (created 0600, no chmod of its own: engine/core/plan/journal.ts), and when a run
 * starts it afresh over an earlier run's file that was left with a looser mode. The real CLI in this
 * process against the emulator.
 */
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

cliInThisProcess();

const plan = JSON.stringify({ version: 1, provider: 'gpucloud', summary: 'journal mode', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'read the balance' }] });

function journalOf(home: string): string {
  const runs = join(home, '.assistant', 'runs');
  const files = readdirSync(runs).filter((f) => f.endsWith('.jsonl'));
  assert.is(files.length, 1, `one journal in ${runs}: ${files.join(', ')}`);
  return join(runs, files[0]!);
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

test('a new journal is 0600, and a run that starts an earlier 0644 journal afresh leaves it 0600', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    const first = await runCli(['ask', '--apply'], { env, home, input: plan, timeoutMs: 60_000 });
    assert.is(first.code, 0, first.stderr);
    const journal = journalOf(home);
    assert.is(modeOf(journal), 0o600, 'made by the run: 0600');

    chmodSync(journal, 0o644);
    // A finished plan of reads runs again as a new run: its journal starts afresh (truncated, not made).
    const again = await runCli(['ask', '--apply'], { env, home, input: plan, timeoutMs: 60_000 });
    assert.is(again.code, 0, again.stderr);
    assert.is(journalOf(home), journal);
    assert.is(modeOf(journal), 0o600, 'an existing looser journal is brought back to 0600');
  });
});

test.run();
