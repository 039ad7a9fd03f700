/**
 * Drift (issue 31 §3): `plan diff` against the emulator, before a plan is applied, after it, and after
 * edits made outside the plan (through the API directly); exit 4 when anything drifted, 0 in sync.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, configFile, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const EXAMPLES = fileURLToPath(new URL('../../../examples/plans/', import.meta.url));
const ATTACH = join(EXAMPLES, 'volume-create-attach.json');
const TEARDOWN = join(EXAMPLES, 'teardown-instance.json');
const dirs: string[] = [];
const home = () => tempHome('assistant-drift-');
const config = () => {
  const path = configFile(`gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`);
  dirs.push(join(path, '..'));
  return path;
};
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Entry = { kind: string; name?: string; id?: string; state: string; differences: { field: string; plan: string; live: string }[]; note?: string };
const byName = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [`${e.kind} ${e.name}`, e]));

test('plan diff: missing before the apply, in sync after it, different after edits outside the plan, missing after a delete; exit 4 on drift', () =>
  withEmulator(async ({ emu, env }) => {
    const h = home();
    const cfg = config();
    const diff = (...extra: string[]) => runCli(['--config', cfg, 'plan', 'diff', '--plan-file', ATTACH, ...extra], { env, home: h });

    const before = await diff();
    assert.is(before.code, 4, before.stderr);
    assert.match(before.stdout, /^missing\s+instance\s+data-box/m);
    assert.match(before.stdout, /^missing\s+volume\s+data-1/m);
    assert.match(before.stdout, /^drift: 2 missing; 0 in sync \(exit 4\)$/m);
    assert.ok(emu.requests().every((r) => r.method === 'GET' || r.path === '/v1/oauth2/token'), 'only reads');

    const applied = await runCli(['--config', cfg, 'ask', '--apply', '--plan-file', ATTACH], { env, home: h });
    assert.is(applied.code, 0, applied.stderr);
    const synced = await diff('-o', 'json');
    assert.is(synced.code, 0, synced.stdout + synced.stderr);
    const report = JSON.parse(synced.stdout);
    assert.equal([report.drift, report.counts], [false, { in_sync: 2, missing: 0, different: 0, unowned: 0 }]);
    const instanceId = byName(report.resources)['instance data-box']!.id!;
    const volumeId = byName(report.resources)['volume data-1']!.id!;

    // Edits outside the plan: the volume grows, the instance is started again.
    const api = emulatorClient(emu);
    assert.is((await api.call('PUT', '/v1/volumes', { action: 'resize', id: volumeId, size: 200 })).status, 202);
    assert.is((await api.call('PUT', '/v1/instances', { action: 'start', id: instanceId })).status, 202);
    const drifted = await diff('-o', 'json');
    assert.is(drifted.code, 4);
    const d = byName(JSON.parse(drifted.stdout).resources);
    assert.equal(d['instance data-box']!.differences, [{ field: 'status', plan: 'offline', live: 'running' }]);
    assert.equal(d['volume data-1']!.differences, [{ field: 'size', plan: '100', live: '200' }]);
    const table = await diff();
    assert.match(table.stdout, /^different\s+instance\s+data-box\s+3\s+.*status: plan offline, live running/m);
    assert.match(table.stdout, /^drift: 2 different; 0 in sync \(exit 4\)$/m);

    // --all: what no step owns, each instance with its OS volume; the plan's own OS volume is its instance's.
    const all = JSON.parse((await diff('--all', '-o', 'json')).stdout);
    const unowned = all.resources.filter((e: Entry) => e.state === 'unowned').map((e: Entry) => `${e.kind} ${e.name}`);
    assert.equal(unowned, ['instance demo-a100', 'instance demo-cpu', 'volume demo-data']);
    assert.match(byName(all.resources)['instance demo-a100']!.note!, /with its OS volume OS-demo-a100/);

    // The instance deleted outside the plan: missing, and its volume no longer attached to it.
    assert.is((await api.call('PUT', '/v1/instances', { action: 'delete_stuck', id: instanceId })).status, 202);
    const gone = byName(JSON.parse((await diff('-o', 'json')).stdout).resources);
    assert.is(gone['instance data-box']!.state, 'missing');
    assert.equal(gone['volume data-1']!.differences.map((x) => x.field), ['size', 'status', 'attached_to']);
  }));

test('a plan that deletes by ID: different while the resource is there, in sync once it is gone', () =>
  withEmulator(async ({ emu, env }) => {
    const h = home();
    const there = await runCli(['plan', 'diff', TEARDOWN, '-o', 'json'], { env, home: h });
    assert.is(there.code, 4, there.stderr);
    const [entry] = JSON.parse(there.stdout).resources;
    assert.equal([entry.kind, entry.name, entry.state, entry.differences], ['instance', 'demo-cpu', 'different', [{ field: 'status', plan: 'deleted', live: 'offline' }]]);
    const applied = await runCli(['ask', '--apply', '--destroyer', '--plan-file', TEARDOWN], { env, home: h });
    assert.is(applied.code, 0, applied.stderr);
    const after = await runCli(['plan', 'diff', TEARDOWN], { env, home: h });
    assert.is(after.code, 0, after.stdout);
    assert.match(after.stdout, /^in_sync\s+instance\s+.*deleted by the plan, and gone/m);
    assert.ok(emu.requests().length > 0);
  }));

test('a create with alternatives is in sync in any of its choices; an invalid plan is exit 2 and reads nothing', () =>
  withEmulator(async ({ emu, env }) => {
    const h = home();
    const body = { instance_type: '1H100.80S.22V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'alt-box', description: '', location_code: 'FIN-02', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] };
    const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: 'r', alternatives: [{ location_code: 'ICE-01' }] }] };
    const file = join(h, 'alt.json');
    writeFileSync(file, JSON.stringify(plan));
    assert.is((await emulatorClient(emu).call('POST', '/v1/instances', { ...body, location_code: 'ICE-01' })).status, 202);
    const r = await runCli(['plan', 'diff', file], { env, home: h });
    assert.is(r.code, 0, r.stdout + r.stderr);
    writeFileSync(file, JSON.stringify({ ...plan, version: 2 }));
    const before = emu.requests().length;
    const bad = await runCli(['plan', 'diff', file], { env, home: h });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /^error: invalid_plan: /m);
    assert.is(emu.requests().length, before);
  }));

test('plan diff --help documents the drift exit code', async () => {
  const r = await runCli(['plan', 'diff', '--help'], { home: home() });
  assert.is(r.code, 0);
  assert.match(r.stdout, /Exit codes of plan diff: 0 in sync, 4 drift found/);
});

test.run();
