/**
 * A gpucloud create is priced by the catalogue type its body names (engine/providers/gpucloud/price-creates.ts,
 * one rule for instances, clusters and volumes): a type that is missing, not a string or only known at
 * run time (a placeholder another step produces) makes the create unpriced, with why, in the dry run;
 * a known type is priced from the emulator's catalogue. Nothing but reads is sent.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../../emulator/index.js';
import { cliInThisProcess, runCli, withEmulator } from '../../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): a dry run is not about the process.
cliInThisProcess();

const CREATES = {
  instance: { path: '/v1/instances', field: 'instance_type', called: 'instance_type', type: '1V100.6V', body: { image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'p-1', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] } },
  cluster: { path: '/v1/clusters', field: 'cluster_type', called: 'cluster_type', type: '16H100', body: { image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'c-1', description: '', location_code: 'FIN-03', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] } },
  volume: { path: '/v1/volumes', field: 'type', called: 'volume type', type: 'NVMe', body: { name: 'v-1', size: 100, location_code: 'FIN-01' } },
} as const;

/** A plan whose first step makes the key a placeholder can name, then the create with `type` in its type field. */
function plan(kind: keyof typeof CREATES, type: unknown): string {
  const c = CREATES[kind];
  const body = type === undefined ? { ...c.body } : { ...c.body, [c.field]: type };
  return JSON.stringify({
    version: 1,
    provider: 'gpucloud',
    commands: [
      { args: ['gpucloud-api', 'GET', '/v1/instance-types'], reason: 'a read producing a type', produces: { TYPE_LATER: '$[0].instance_type' } },
      { args: ['gpucloud-api', 'POST', c.path, JSON.stringify(body)], reason: `create a ${kind}` },
    ],
  });
}

/** Why step 1 is unpriced in the dry run (undefined when it is priced), and whether only reads were sent. */
async function unpricedWhy(env: Record<string, string>, input: string): Promise<string | undefined> {
  const r = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env, input });
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { unpriced?: { step: number; why: string }[]; costs: { step: number; per_hour?: number }[] };
  const why = doc.unpriced?.find((u) => u.step === 1)?.why;
  if (why === undefined) assert.ok(doc.costs.some((c) => c.step === 1 && typeof c.per_hour === 'number'), r.stdout);
  return why;
}

test('a create whose type is missing, not a string or a placeholder is unpriced with why; a known type is priced', async () => {
  await withEmulator(async ({ emu, env }) => {
    for (const [kind, c] of Object.entries(CREATES) as [keyof typeof CREATES, (typeof CREATES)[keyof typeof CREATES]][]) {
      const missing = await unpricedWhy(env, plan(kind, undefined));
      assert.match(missing ?? '', new RegExp(`^${c.called} is missing`), `${kind}: ${missing}`);
      assert.match((await unpricedWhy(env, plan(kind, 42))) ?? '', new RegExp(`^${c.called} is 42, not a type known before the run`), kind);
      assert.match((await unpricedWhy(env, plan(kind, '<TYPE_LATER>'))) ?? '', new RegExp(`^${c.called} is "<TYPE_LATER>", not a type known before the run`), kind);
      assert.is(await unpricedWhy(env, plan(kind, c.type)), undefined, `${kind} ${c.type} is priced`);
    }
    assert.equal(emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2')), [], 'a dry run sends only reads');
  });
});

test.run();
