/**
 * A flag's value arrives as the user typed it: cac's parser makes numbers of values that read as
 * numbers (`--name 007` → 7, `--name 1e3` → 1000), so a name, a ref or a hash prefix silently became
 * another one. The value flags get their typed text back (commands/flag-text.ts); the flags declared as
 * numbers are then coerced from that text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typedValues } from '../../commands/flag-text.js';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { seedEmptyCluster } from '../support/backend-cluster.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { COMPOSE_IMAGE, makeRepo } from '../support/git-repos.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): the flags' values are parsed by cli.ts's own main.
cliInThisProcess();

function config(): string {
  const dir = tempDir('flag-text-cfg-');
  writeFileSync(join(dir, 'c.yaml'), `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`, { mode: 0o600 });
  return join(dir, 'c.yaml');
}

test('deploy --name 007 / --name=1e3 and cost tags --key 007: the values are used as typed, not 7 or 1000; --max-replicas 05 is still the number 5', async () => {
  const repo = makeRepo('flag-text', COMPOSE_IMAGE);
  await withEmulator(async ({ env }) => {
    for (const [args, name] of [
      [['--name', '007'], '007'],
      [['--name=1e3'], '1e3'],
      [['--name', '0x1f'], '0x1f'],
    ] as const) {
      const r = await runCli(['--config', config(), 'deploy', repo.url, ...args, '--max-replicas', '05'], { timeoutMs: 120_000, env });
      assert.is(r.code, 0, r.stderr);
      const deployment = JSON.parse(r.stdout).commands.at(-1).args[3];
      assert.is(deployment.name, name, args.join(' '));
      assert.is(deployment.scaling.max_replica_count, 5);
    }
    const tags = await runCli(['cost', 'tags', '--key', '007', '-o', 'json'], { env });
    assert.is(tags.code, 0, tags.stderr);
    assert.is(JSON.parse(tags.stdout).key, '007');
  });
});

test('backend keys create --tenant 007 --label 1e3: the tenant and the label are kept as typed', async () => {
  const home = tempHome('flag-text-backend-');
  // An empty cluster copied in (not initdb's ~9 s of CPU): this test is about the flags, not the first start.
  await seedEmptyCluster(join(home, '.assistant', 'backend'));
  const made = await runCli(['backend', 'keys', 'create', '--tenant', '007', '--label', '1e3', '--env', 'testing'], { home });
  assert.is(made.code, 0, made.stderr);
  const list = await runCli(['backend', 'keys', 'list', '--tenant', '007', '-o', 'json'], { home });
  assert.is(list.code, 0, list.stderr);
  const keys = JSON.parse(list.stdout) as { tenant: string; label?: string }[];
  assert.equal(keys.map((k) => [k.tenant, k.label]), [['007', '1e3']]);
});

test('the scan gives each value to the flag the parser gave it to: = and the next word, -abc to c, nothing after --, a dash word is no value', () => {
  const typed = typedValues(['run', '--name', '007', '--ref=1e3', '-xn', '42', '--plan', '--other', '-5', '--tag', 'a', '--tag', '010', '--no-color', '--', '--after', '1']);
  assert.equal(Object.fromEntries(typed), { name: ['007'], ref: ['1e3'], n: ['42'], tag: ['a', '010'] });
});

test.run();
