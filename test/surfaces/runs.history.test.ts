/**
 * The team's run history (issue 41 item 1): the CLI applies plans against the emulator with a real
 * backend process configured (PGlite, and PostgreSQL when installed), and the backend holds each run —
 * who, the plan's hash, each step's canonical request and outcome, what it created with its ID, the
 * priced hourly change — for `runs list|show`; refusals and dry runs too; never a secret. The backend
 * down during an apply: the apply is unchanged, the run is queued 0600 and sent later, stored once.
 */
import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { asClient, createApiKey, startBackendProcess, storageArgs, type BackendProcess } from '../support/backend.js';
import { freePort } from '../support/net.js';
import { backendStorages } from '../support/postgres.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const post = (path: string, body: Record<string, unknown>) => ({ args: ['gpucloud-api', 'POST', path, JSON.stringify(body)], reason: `create via ${path}` });
const instance = (hostname: string) => post('/v1/instances', { instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] });
const plan = (summary: string, ...commands: unknown[]) => JSON.stringify({ version: 1, provider: 'gpucloud', summary, commands });
const changes = (emu: Emulator) => emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2'));
/** 1V100.6V at 0.39/h and its 100 GB NVMe OS volume at 0.20 per GB-month (emulator seed prices; test/core/cli.budget.test.ts). */
const ADDED = 0.39 + (0.2 * 100) / 720;

async function keyFor(b: BackendProcess, tenant: string, label: string): Promise<string> {
  const r = await runCli(['backend', 'keys', 'create', '--tenant', tenant, '--label', label, '--env', 'production', '--env', 'testing', ...storageArgs(b)], { home: b.home });
  assert.is(r.code, 0, r.stderr);
  return r.stdout.trim();
}

const runsJson = async (b: BackendProcess, key: string, args: string[] = []) => {
  const r = await runCli(['runs', 'list', '--all', '-o', 'json', ...args], { env: asClient(b, key), home: tempHome('runs-reader-') });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
};

const storages = backendStorages(test, 'runs');

for (const storage of storages) {
  test(`${storage.name}: an apply against the emulator is in the history — who, plan hash, each step's canonical request and outcome, the instance created with its ID, the priced hourly change; runs show -o json; no secret anywhere`, async () => {
    const b = await startBackendProcess({ database: await storage.database() });
    try {
      const key = await keyFor(b, 'ml-team', 'alice');
      await withEmulator(async ({ emu, env }) => {
        const home = tempHome('runs-apply-');
        const r = await runCli(['ask', '--apply', '-o', 'json'], { env: { ...env, ...asClient(b, key) }, input: plan('train box', instance('hist-1')), home });
        assert.is(r.code, 0, r.stderr);
        const listed = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home: tempHome('runs-reader-') });
        const created = (JSON.parse(listed.stdout) as Array<{ id: string; hostname: string }>).find((i) => i.hostname === 'hist-1')?.id;
        assert.ok(created, listed.stdout);
        assert.equal(readdirSync(join(home, '.assistant', 'run-outbox')), [], 'nothing left queued');
        const runs = await runsJson(b, key);
        assert.is(runs.length, 1);
        const run = runs[0]!;
        assert.is(run.who, 'alice');
        assert.is(run.env, 'production');
        assert.is(run.status, 'succeeded');
        assert.is(run.kind, 'apply');
        assert.is(run.summary, 'train box');
        assert.is(run.resources, 1);
        assert.ok(Math.abs(Number(run.hourly_change) - ADDED) < 1e-6, `hourly change ${run.hourly_change} != ${ADDED}`);
        const show = await runCli(['runs', 'show', String(run.id), '-o', 'json'], { env: asClient(b, key), home: tempHome('runs-reader-') });
        assert.is(show.code, 0, show.stderr);
        const detail = JSON.parse(show.stdout);
        assert.is(detail.tenant, 'ml-team');
        assert.match(detail.plan_hash, /^[0-9a-f]{64}$/);
        assert.is(detail.record.steps[0].canonical.method, 'POST');
        assert.is(detail.record.steps[0].canonical.path, '/v1/instances');
        assert.is(detail.record.steps[0].canonical.body.hostname, 'hist-1');
        assert.is(detail.record.steps[0].status, 'succeeded');
        assert.is(detail.record.steps[0].effect, 'create');
        assert.equal(detail.record.resources, [{ provider: 'gpucloud', effect: 'create', kind: 'instance', name: 'hist-1', id: created }]);
        const table = await runCli(['runs', 'show', String(run.id)], { env: asClient(b, key), home: tempHome('runs-reader-') });
        assert.match(table.stdout, /by alice/);
        assert.match(table.stdout, new RegExp(`create gpucloud instance "hist-1" id ${created}`));
        for (const text of [show.stdout, table.stdout, JSON.stringify(runs)]) {
          assert.not.ok(text.includes(env.GPUCLOUD_CLIENT_SECRET!), 'the client secret is not in the history');
          assert.not.ok(text.includes(key), 'the API key is not in the history');
        }
        // Another tenant's key sees none of it.
        const other = await createApiKey(b, 'other-team');
        assert.equal(await runsJson(b, other), []);
        const foreign = await runCli(['runs', 'show', String(run.id)], { env: asClient(b, other), home: tempHome('runs-reader-') });
        assert.is(foreign.code, 2, foreign.stderr);
        assert.match(foreign.stderr, /error: run_not_found: /);
        assert.is(changes(emu).length, 1);
      });
    } finally {
      await b.kill();
      rmSync(b.home, { recursive: true, force: true });
    }
  });
}

test('a budget refusal and a dry run are in the history too (refused, exit 3; previewed with its priced change), and nothing was sent to the cloud', async () => {
  const b = await startBackendProcess();
  try {
    const key = await keyFor(b, 'ml-team', 'bob');
    await withEmulator(async ({ emu, env }) => {
      const client = { ...env, ...asClient(b, key) };
      const refused = await runCli(['ask', '--apply', '--max-hourly-cost', '0.1'], { env: client, input: plan('too dear', instance('hist-2')), home: tempHome('runs-') });
      assert.is(refused.code, 3, refused.stderr);
      const dry = await runCli(['ask', '--apply', '--dry-run', '-o', 'json'], { env: client, input: plan('just looking', instance('hist-3')), home: tempHome('runs-') });
      assert.is(dry.code, 0, dry.stderr);
      assert.equal(changes(emu), [], 'nothing but reads was sent');
      const runs = await runsJson(b, key);
      assert.equal(runs.map((r) => [r.kind, r.status, r.exit_code, r.summary]), [
        ['dry_run', 'previewed', 0, 'just looking'],
        ['apply', 'refused', 3, 'too dear'],
      ]);
      assert.ok(Math.abs(Number(runs[0]!.hourly_change) - ADDED) < 1e-6, String(runs[0]!.hourly_change));
      const show = await runCli(['runs', 'show', String(runs[1]!.id), '-o', 'json'], { env: asClient(b, key), home: tempHome('runs-reader-') });
      const detail = JSON.parse(show.stdout);
      assert.is(detail.record.error.code, 'budget_exceeded');
      assert.is(detail.record.steps[0].status, 'not_run');
      assert.equal(detail.record.resources, []);
    });
  } finally {
    await b.kill();
    rmSync(b.home, { recursive: true, force: true });
  }
});

test('the backend down during an apply: the apply ends as it would (exit 0), the run waits in a 0600 queue, is sent by the next runs list, and is stored once even when sent again', async () => {
  const port = await freePort();
  const args = ['--listen', `127.0.0.1:${port}`];
  let b = await startBackendProcess({ args });
  const home = b.home;
  try {
    const key = await keyFor(b, 'ml-team', 'carol');
    await b.kill('SIGTERM');
    await withEmulator(async ({ env }) => {
      const client = { ...env, ...asClient(b, key) };
      const clientHome = tempHome('runs-down-');
      const r = await runCli(['ask', '--apply', '-o', 'json'], { env: client, input: plan('while down', instance('hist-4')), home: clientHome });
      assert.is(r.code, 0, r.stderr);
      assert.is(JSON.parse(r.stdout).status, 'succeeded');
      const outbox = join(clientHome, '.assistant', 'run-outbox');
      const queued = readdirSync(outbox);
      assert.is(queued.length, 1);
      assert.is(statSync(join(outbox, queued[0]!)).mode & 0o777, 0o600);
      assert.is(statSync(outbox).mode & 0o777, 0o700);
      const kept = join(clientHome, 'kept.json');
      copyFileSync(join(outbox, queued[0]!), kept);

      b = await startBackendProcess({ home, args });
      const list = await runCli(['runs', 'list', '-o', 'json'], { env: client, home: clientHome });
      assert.is(list.code, 0, list.stderr);
      assert.equal((JSON.parse(list.stdout) as Array<{ summary: string }>).map((x) => x.summary), ['while down']);
      assert.equal(readdirSync(outbox), [], 'sent, so no longer queued');
      // The same run sent again (a kill -9 after the server stored it, before the file was removed): stored once.
      copyFileSync(kept, join(outbox, queued[0]!));
      const again = await runCli(['runs', 'list', '-o', 'json'], { env: client, home: clientHome });
      assert.is(JSON.parse(again.stdout).length, 1, again.stdout);
      assert.equal(readdirSync(outbox), []);
    });
  } finally {
    await b.kill();
    rmSync(home, { recursive: true, force: true });
  }
});

test('the history is bounded per tenant (ASSISTANT_BACKEND_RUN_RETENTION): the oldest runs beyond it are deleted, another tenant keeps its own', async () => {
  const b = await startBackendProcess({ env: { ASSISTANT_BACKEND_RUN_RETENTION: '2' } });
  try {
    const key = await keyFor(b, 'ml-team', 'dan');
    const other = await keyFor(b, 'other-team', 'erin');
    await withEmulator(async ({ env }) => {
      await runCli(['ask', '--apply', '--dry-run'], { env: { ...env, ...asClient(b, other) }, input: plan('theirs', instance('hist-x')), home: tempHome('runs-') });
      for (const n of [1, 2, 3]) {
        const r = await runCli(['ask', '--apply', '--dry-run'], { env: { ...env, ...asClient(b, key) }, input: plan(`dry ${n}`, instance(`hist-r${n}`)), home: tempHome('runs-') });
        assert.is(r.code, 0, r.stderr);
      }
    });
    assert.equal((await runsJson(b, key)).map((r) => r.summary), ['dry 3', 'dry 2']);
    assert.equal((await runsJson(b, other)).map((r) => r.summary), ['theirs']);
  } finally {
    await b.kill();
    rmSync(b.home, { recursive: true, force: true });
  }
});

test('runs list without a backend key is a usage error (exit 2) naming the setting; runs show of a malformed id is exit 2', async () => {
  const r = await runCli(['runs', 'list'], { env: { ASSISTANT_BACKEND_API_KEY: undefined }, home: tempHome('runs-') });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /ASSISTANT_BACKEND_API_KEY/);
  const bad = await runCli(['runs', 'show', '../x'], { env: { ASSISTANT_BACKEND_API_KEY: 'asb_x_y' }, home: tempHome('runs-') });
  assert.is(bad.code, 2, bad.stderr);
});

test.run();
