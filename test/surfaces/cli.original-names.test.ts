/**
 * Coming from the original tool (issue 39 §2): its provider flags (--aws, --verda, --github…) still
 * work, each saying its new name once, and stay out of the help; the names come from the manifest's
 * `formerly` rows, so a provider that had another name there brings its alias with it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { PROVIDER_MANIFEST } from '../../engine/providers/index.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

test('--aws, --verda and --github select cloud_a, gpucloud and repohost, each with one warning naming the new flag', async () => {
  const r = await runCli(['ask', '--aws', '--verda', '--github', '--route-only', '-o', 'json', 'what is running']);
  assert.is(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { providers: string[] }).providers.sort(), ['cloud_a', 'gpucloud', 'repohost']);
  for (const [old, now] of [['aws', 'cloud-a'], ['verda', 'gpucloud'], ['github', 'repohost']]) {
    assert.is(r.stderr.split('\n').filter((l) => l === `warning: --${old} is --${now} here (the original tool's name still works)`).length, 1, r.stderr);
  }
});

test('the original names are hidden from ask --help and every routable provider with a former name has its flag', async () => {
  const help = await runCli(['ask', '--help']);
  assert.not.match(help.stdout, /--aws|--verda|--github/);
  const formers = PROVIDER_MANIFEST.filter((e) => e.formerly && e.has?.includes('routing')).map((e) => e.formerly!.name);
  assert.ok(formers.length >= 4, formers.join(','));
  for (const former of formers) {
    const r = await runCli(['ask', `--${former}`, '--route-only', 'what is running']);
    assert.is(r.code, 0, `--${former}: ${r.stderr}`);
  }
});

test.run();
