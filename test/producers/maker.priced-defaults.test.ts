/**
 * Makers never choose a size the user did not ask for at a price the user did not see (issue 39 item 8),
 * through the real CLI: the offline cluster maker asks for the 40 GB shared volume `k8s create gpucloud`
 * uses (not the 30000 GB the API makes without a size), and every maker states in the plan's notes the
 * defaults it chose that cost money — its own choices and the sizes a model's plan leaves to the API —
 * which `ask --apply --dry-run` shows beside their prices.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { cliInThisProcess, runCli as runCliDefault, type RunCliOptions, tempHome, withEmulator } from '../support/cli.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const runCli = (args: string[], opts: RunCliOptions = {}) => runCliDefault(args, { timeoutMs: 120_000, ...opts });
const CLUSTER = 'create a 16H100 instant cluster called c2 in FIN-03';
/** The emulator's NVMe_Shared price: 0.28 per GB and 30-day month. */
const SHARED_PER_GB_HOUR = 0.28 / 720;

type PlanOut = { commands: { args: unknown[] }[]; notes?: string[] };
/** The maker writes a body as a JSON object. */
const bodyOf = (plan: PlanOut, i: number) => plan.commands[i]!.args[3] as Record<string, unknown>;

test('ask --maker offline: the cluster gets a 40 GB shared volume, and the plan notes say it was chosen and what the API would have made', async () => {
  const r = await runCli(['--sandbox', 'ask', '--maker', CLUSTER], { home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as PlanOut;
  assert.equal(bodyOf(plan, 0).shared_volume, { name: 'c2-shared-volume', size: 40 });
  assert.is(plan.notes?.length, 1, JSON.stringify(plan.notes));
  assert.match(plan.notes![0]!, /^default chosen: c2's shared volume \(NVMe_Shared\) is 40 GB, the smallest the API makes, because the request named no size \(without one the API would make 30000 GB\)/);
});

test('ask --apply --dry-run of the maker\'s plan prices the 40 GB volume and prints the notes; -o json carries them', async () => {
  const home = tempHome();
  const made = await runCli(['--sandbox', 'ask', '--maker', CLUSTER], { home });
  assert.is(made.code, 0, made.stderr);
  const r = await runCli(['--sandbox', 'ask', '--apply', '--dry-run'], { home, input: made.stdout });
  assert.is(r.code, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => /shared volume NVMe_Shared/.test(l)) ?? '';
  assert.match(line, /NVMe_Shared 40 GB in FIN-03\s+(\d+\.\d\d)\/hour/, r.stdout);
  assert.is(Number(/(\d+\.\d\d)\/hour/.exec(line)![1]), Number((40 * SHARED_PER_GB_HOUR).toFixed(2)));
  assert.not.match(r.stdout, /30000 GB in/);
  assert.match(r.stdout, /\nNotes:\n {2}- default chosen: c2's shared volume \(NVMe_Shared\) is 40 GB/);

  const json = await runCli(['--sandbox', 'ask', '--apply', '--dry-run', '-o', 'json'], { home, input: made.stdout });
  assert.is(json.code, 0, json.stderr);
  const preview = JSON.parse(json.stdout) as { notes?: string[]; costs: { part?: string; size_gb?: number }[] };
  assert.is(preview.costs.find((c) => c.part === 'shared volume')?.size_gb, 40);
  assert.match(preview.notes?.join('\n') ?? '', /40 GB, the smallest the API makes/);
});

test('the built-in maker says which sizes it left to the API (the OS volume) and which it chose (a volume with no size or type)', async () => {
  const home = tempHome();
  const instance = await runCli(['--sandbox', 'ask', '--maker', 'create a 1V100.6V instance called n-1 in FIN-01'], { home });
  assert.is(instance.code, 0, instance.stderr);
  const notes = (JSON.parse(instance.stdout) as PlanOut).notes ?? [];
  assert.equal(notes, ['step 0 (instance n-1): no OS volume size was given, so the API makes a 100 GB NVMe OS volume, billed until it is deleted; set os_volume.size to choose']);

  const volume = await runCli(['--sandbox', 'ask', '--maker', 'create a volume called scratch in FIN-01'], { home });
  assert.is(volume.code, 0, volume.stderr);
  const v = JSON.parse(volume.stdout) as PlanOut;
  assert.equal(bodyOf(v, 0), { type: 'NVMe', name: 'scratch', size: 100, location_code: 'FIN-01' });
  assert.equal(v.notes, [
    'default chosen: volume scratch is 100 GB because the request named no size; say the size (e.g. "500 GB") to choose',
    'default chosen: volume scratch is NVMe (HDD costs less per GB) because the request named no type; say "hdd" for HDD',
  ]);
  // Said sizes and types are not defaults: no notes.
  const said = await runCli(['--sandbox', 'ask', '--maker', 'create a 500 GB hdd volume called cold in FIN-01'], { home });
  assert.is(said.code, 0, said.stderr);
  assert.is((JSON.parse(said.stdout) as PlanOut).notes, undefined);
});

test('a model\'s cluster plan without a shared volume size gets a note that the API makes 30000 GB, and its dry run prices that', async () => {
  const srv = await startOpenAiServer();
  try {
    await withEmulator(async ({ env }) => {
      const body = { cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'ai-c', description: '', location_code: 'FIN-03', ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] };
      srv.setDefault({ text: JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/clusters', JSON.stringify(body)], reason: 'create a small cluster' }] }) });
      const dir = tempDir('assistant-ai-');
      writeFileSync(
        join(dir, 'c.yaml'),
        `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\nai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`,
        { mode: 0o600 },
      );
      const opts = { env: { ...env, TEST_AI_KEY: 'sk-test-key-123456' } };
      const made = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--maker', 'a 16H100 cluster called ai-c in FIN-03'], opts);
      assert.is(made.code, 0, made.stderr);
      assert.equal((JSON.parse(made.stdout) as PlanOut).notes, [
        'step 0 (Instant Cluster ai-c): no shared volume size was given, so the API makes a 30000 GB NVMe_Shared file system, billed until it is deleted; set shared_volume.size (at least 40) to choose',
      ]);
      const dry = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--apply', '--dry-run', '-o', 'json'], { ...opts, input: made.stdout });
      assert.is(dry.code, 0, dry.stderr);
      const preview = JSON.parse(dry.stdout) as { notes?: string[]; costs: { part?: string; size_gb?: number }[] };
      assert.is(preview.costs.find((c) => c.part === 'shared volume')?.size_gb, 30000);
      assert.match(preview.notes?.[0] ?? '', /30000 GB NVMe_Shared/);
    });
  } finally {
    await srv.close();
  }
});

test('k8s create gpucloud --plan says which cluster type and shared volume size it chose, and only those it chose', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`, { mode: 0o600 });
    const chosen = await runCli(['k8s', 'create', 'gpucloud', 'k-1', '--location', 'FIN-03', '--plan'], { env, home });
    assert.is(chosen.code, 0, chosen.stderr);
    const notes = (JSON.parse(chosen.stdout) as PlanOut).notes ?? [];
    assert.is(notes.length, 2, JSON.stringify(notes));
    assert.match(notes[0]!, /^default chosen: cluster type \S+, the cheapest available in FIN-03, because --cluster-type was not given$/);
    assert.match(notes[1]!, /^default chosen: the shared volume \(NVMe_Shared\) is 40 GB, the smallest the API makes, because --shared-volume was not given/);
    const said = await runCli(['k8s', 'create', 'gpucloud', 'k-2', '--location', 'FIN-03', '--cluster-type', '16H100', '--shared-volume', '500', '--plan'], { env, home });
    assert.is(said.code, 0, said.stderr);
    assert.is((JSON.parse(said.stdout) as PlanOut).notes, undefined);
  });
});

test.run();
