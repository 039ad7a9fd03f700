/**
 * The burn counts everything that bills, and `cost summary` and the budget guard give the same number
 * (issue 35 §3): one function (engine/providers/gpucloud/cost.ts accountCost) behind both, over an
 * account with instances (running and offline), volumes, a cluster with its shared file system, a
 * container deployment (at its most replicas), a paused one (nothing) and a job deployment.
 * Emulator prices: NVMe 0.20 and NVMe_Shared 0.28 per GB and month, 16H100 30.24/h, H100 serverless 2.41/h.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../../emulator/index.js';
import { emulatorClient } from '../../../emulator/test-client.js';
import { cliInThisProcess, runCli, withEmulator } from '../../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const DEMO = 1.29 + 0.0279 + GB_HOUR(0.2, 100 + 50 + 500);
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const containers = [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }];

test('cost summary and the budget start from the same burn: instances, volumes, a cluster, container and job deployments (a paused one bills nothing)', async () => {
  await withEmulator(
    async ({ emu, env }) => {
      const c = emulatorClient(emu);
      const ok = async (method: string, path: string, body?: unknown) => {
        const r = await c.call(method, path, body);
        assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      };
      await ok('POST', '/v1/clusters', { cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'burn-c', description: '', location_code: 'FIN-03', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], shared_volume: { name: 'sfs', size: 1000 } });
      await ok('POST', '/v1/container-deployments', { name: 'web', is_spot: false, compute: { name: 'H100', size: 2 }, scaling: { min_replica_count: 0, max_replica_count: 3 }, containers });
      await ok('POST', '/v1/container-deployments', { name: 'idle', is_spot: false, compute: { name: 'H100', size: 1 }, scaling: { min_replica_count: 0, max_replica_count: 5 }, containers });
      await ok('POST', '/v1/container-deployments/idle/pause');
      await ok('POST', '/v1/job-deployments', { name: 'nightly', compute: { name: 'H100', size: 1 }, scaling: { max_replica_count: 2, queue_message_ttl_seconds: 300, deadline_seconds: 3600 }, containers });
      const expected = DEMO + 30.24 + GB_HOUR(0.28, 1000) + 2.41 * 2 * 3 + 2.41 * 1 * 2;

      const summary = await runCli(['cost', 'summary', '-o', 'json'], { env });
      assert.is(summary.code, 0, summary.stderr);
      const s = JSON.parse(summary.stdout);
      close(s.hourly_cost, expected, 'cost summary');
      const kinds = (k: string) => s.resources.filter((r: { kind: string }) => r.kind === k).map((r: { name: string; replicas?: number; hourly_cost: number }) => [r.name, r.replicas, r.hourly_cost]);
      assert.equal(kinds('container'), [['web', 3, 2.41 * 2 * 3]]);
      assert.equal(kinds('job'), [['nightly', 2, 2.41 * 2]]);
      assert.ok(s.resources.some((r: { kind: string; name: string }) => r.kind === 'cluster' && r.name === 'burn-c'));

      const dry = await runCli(['ask', '--apply', '--dry-run', '--max-hourly-cost', '1000', '-o', 'json'], { env, input: JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/sshkeys', JSON.stringify({ name: 'k', key: 'ssh-ed25519 AAAA' })], reason: 'free' }] }) });
      assert.is(dry.code, 0, dry.stderr);
      const budget = JSON.parse(dry.stdout).budget;
      assert.is(budget.current_per_hour, s.hourly_cost, 'the budget starts from the burn cost summary shows, to the last digit');
    },
    { lifecycleMs: 1 },
  );
});

test.run();
