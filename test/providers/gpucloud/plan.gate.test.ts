/**
 * The destroyer gate covers every destructive route and every path or body a server could read as one
 * (issue 9 §2): rules on the canonical path, invalid when no canonical form exists, strict JSON for plans
 * and bodies, placeholders that could spell a destructive route. CLI tests prove nothing was sent.
 */
import { allProviders } from '../../../engine/providers/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEMO_IDS } from '../../../emulator/index.js';
import { canonicalPath, destructiveReasons } from '../../../engine/providers/gpucloud/destroyer.js';
import { findDuplicateKey } from '../../../engine/core/plan/strict-json.js';
import { validatePlan } from '../../../engine/core/plan/validate.js';
import { cliInThisProcess, runCli, withEmulator } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const destructive = (method: string, path: string, body?: string) => destructiveReasons(method, path, body).length > 0;
const plan = (...commands: { args: string[]; reason: string; produces?: Record<string, string> }[]) => ({ version: 1, provider: 'gpucloud', commands });
const step = (method: string, path: string, body?: string) => ({ args: ['gpucloud-api', method, path, ...(body === undefined ? [] : [body])], reason: 'r' });
const pathProblem = (path: string, method = 'PUT', body = '{"action":"start","id":"x"}') =>
  validatePlan(plan(step(method, path, method === 'GET' ? undefined : body)), { providers: PROVIDERS, destroyer: true }).problems.find((p) => p.kind === 'schema' && p.field === 'args[2]');
const ID = EMULATOR_DEMO_IDS.offlineInstance;

test('the deprecated POST /v1/instances/action is gated like PUT /v1/instances', () => {
  assert.ok(destructive('POST', '/v1/instances/action', `{"action":"delete","id":"${ID}"}`));
  assert.ok(destructive('POST', '/v1/instances/action', '{"action":"hibernate","id":"x"}'));
  assert.ok(destructive('POST', '/v1/instances/Action', '{"action":"discontinue","id":"x"}'), 'case folded by the server');
  assert.ok(destructive('POST', '/v1/instances/action.json', '{"action":"delete","id":"x"}'), 'format suffix dropped by the server');
  assert.not.ok(destructive('POST', '/v1/instances/action', '{"action":"start","id":"x"}'));
});

test('container and job purge-queue are destructive, the other lifecycle calls are not', () => {
  assert.ok(destructive('POST', '/v1/container-deployments/web/purge-queue'));
  assert.ok(destructive('POST', '/v1/job-deployments/nightly/purge-queue'));
  assert.ok(destructive('POST', '/v1/job-deployments/nightly/purge-queue/'));
  for (const op of ['restart', 'pause', 'resume']) assert.not.ok(destructive('POST', `/v1/container-deployments/web/${op}`), op);
});

test('path variants a server may normalise are invalid (exit 2), not guessed at', () => {
  const variants = [
    '/v1/instances;x=1',
    '/v1/instances.',
    '/v1/instances%20',
    '/v1/Instances',
    '/v1/instances/.',
    '/v1/instances/x%2Fpurge-queue',
    '/v1%2Finstances',
    '/v1/instances%252e',
    '/v1/%69nstances',
    '/v1/container-deployments/web;v=1/purge-queue',
    '/v1/container-deployments/web/purge-queue;x',
    '/v1/container-deployments/web./purge-queue',
    '/v1/container-deployments/web/Purge-Queue',
    '/v1/instances?action=delete',
    '/v1/instances?ACTION=delete',
    '/v1/instances?actions=delete',
    '/v1/instances?status=running&status=offline',
    '/v1/instances?<K>=delete',
    '/v1/instances#x',
    '/v1//instances',
    'v1/instances',
    '/v1/instances\u00a0',
  ];
  for (const path of variants) {
    assert.ok(pathProblem(path), `${JSON.stringify(path)} should be invalid`);
    assert.not.ok(canonicalPath(path).ok, JSON.stringify(path));
    assert.ok(destructive('PUT', path, '{"action":"start","id":"x"}'), `${JSON.stringify(path)} is also treated as destructive if ever substituted into`);
  }
});

test('ordinary paths keep working: IDs, type codes, query filters, placeholders in IDs and query values', () => {
  for (const path of [
    '/v1/instances',
    '/v1/instances/',
    `/v1/instances/${ID}`,
    '/v1/instance-availability/1V100.6V?location_code=FIN-01',
    '/v1/instance-availability/<T>?location_code=<DEFAULT_LOCATION>',
    '/v1/instances?status=running',
    '/v1/instance-types?currency=usd',
    '/v1/container-deployments/<NAME>/scaling',
    '/v1/volumes/trash',
  ]) {
    assert.is(pathProblem(path, 'GET'), undefined, path);
  }
  const canon = canonicalPath("/v1/instances/");
  assert.is(canon.ok && canon.path, "/v1/instances");
});

test('a placeholder where a destructive route has a fixed word is refused before the first step', () => {
  assert.ok(destructive('POST', '/v1/container-deployments/web/<OP>'));
  assert.ok(destructive('POST', '/v1/container-deployments/<NAME>/<OP>'));
  assert.ok(destructive('POST', '/v1/job-deployments/web/purge-<WHAT>'));
  assert.ok(destructive('POST', '/v1/instances/<X>', '{"action":"delete","id":"x"}'), 'X may be "action"');
  assert.ok(destructive('POST', '/v1/instances/act<X>', '{"action":"delete","id":"x"}'));
  // A placeholder standing for the deployment name cannot change the route: it is URL-encoded when bound.
  assert.not.ok(destructive('POST', '/v1/container-deployments/<NAME>/restart'));
  assert.not.ok(destructive('PATCH', '/v1/container-deployments/<NAME>', '{"containers":[]}'));
});

test('a body that repeats a key is invalid and destructive on an action path (parsers keep either)', () => {
  for (const body of ['{"action":"start","action":"delete","id":"x"}', '{"action":"start","\\u0061ction":"delete","id":"x"}', '{"actions":[{"action":"start","action":"discontinue"}]}']) {
    assert.ok(destructive('PUT', body.includes('actions') ? '/v1/clusters' : '/v1/instances', body), body);
    const v = validatePlan(plan(step('PUT', '/v1/instances', body)), { providers: PROVIDERS, destroyer: true });
    assert.ok(v.problems.some((p) => p.field === 'args[3]' && /appears twice/.test(p.message)), body);
  }
  assert.is(findDuplicateKey('{"a":{"b":1},"c":[{"b":2},{"b":3}],"s":"\\"b\\":1,\\"b\\""}'), undefined, 'equal keys in different objects and strings are fine');
  assert.equal(findDuplicateKey('{"commands":[{"args":[],"args":[]}]}'), { key: 'args', at: '$.commands[0]' });
});

test('action keys are matched in any case, as Go-style decoders match them', () => {
  assert.ok(destructive('PUT', '/v1/instances', '{"ACTION":"delete","id":"x"}'));
  assert.ok(destructive('PUT', '/v1/clusters', '{"Actions":[{"Action":"discontinue","id":"x"}]}'));
  assert.ok(destructive('PUT', '/v1/instances', '{"action":"start","Action":"delete","id":"x"}'), 'keys equal but for case');
  assert.not.ok(destructive('PUT', '/v1/instances', '{"Action":"start","id":"x"}'));
});

// ------------------------------------------------------------------------------- through the real CLI

test('ask --apply refuses purge-queue and the deprecated action route without --destroyer: exit 3, nothing sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const plans = [
      plan({ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'harmless first step' }, step('POST', '/v1/container-deployments/web/purge-queue')),
      plan(step('POST', '/v1/job-deployments/nightly/purge-queue')),
      plan(step('POST', '/v1/instances/action', `{"action":"delete","id":"${ID}"}`)),
      plan({ args: ['gpucloud-api', 'GET', '/v1/container-deployments'], reason: 'list', produces: { OP: '$[0].name' } }, step('POST', '/v1/container-deployments/web/<OP>')),
    ];
    for (const p of plans) {
      const r = await runCli(['ask', '--apply'], { env, input: JSON.stringify(p), timeoutMs: 60_000 });
      assert.is(r.code, 3, `${JSON.stringify(p)}\n${r.stderr}`);
      assert.match(r.stderr, /^error: refused: /m);
    }
    assert.is(emu.requests().length, 0, 'no request at all, not even a token');
  });
});

test('with --destroyer the deprecated POST /v1/instances/action really deletes on the emulator (so the gate guards a live route)', async () => {
  await withEmulator(async ({ emu, env }) => {
    const p = plan(step('POST', '/v1/instances/action', `{"action":"delete","id":"${ID}"}`));
    const r = await runCli(['ask', '--apply', '--destroyer'], { env, input: JSON.stringify(p), timeoutMs: 60_000 });
    assert.is(r.code, 0, r.stderr);
    const after = await runCli(['gpucloud', 'get', 'instance', ID], { env, timeoutMs: 60_000 });
    assert.is(after.code, 1, after.stderr);
    assert.ok(emu.requests().some((q) => q.method === 'POST' && q.path === '/v1/instances/action'));
  });
});

test('a bound value that would change the route (an encoded slash) is refused before its step is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    // Statically the last step is a harmless POST on one deployment; bound to "web/purge-queue" it
    // becomes web%2Fpurge-queue, which a server decoding %2F routes to purge-queue.
    const p = plan(
      { args: ['gpucloud-api', 'POST', '/v1/scripts', '{"name":"web/purge-queue","script":"#!/bin/sh"}'], reason: 'create', produces: { SCRIPT_ID: '$.id' } },
      { args: ['gpucloud-api', 'GET', '/v1/scripts/<SCRIPT_ID>'], reason: 'read', produces: { NAME: '$[0].name' } },
      step('POST', '/v1/container-deployments/<NAME>', '{}'),
    );
    const r = await runCli(['ask', '--apply'], { env, input: JSON.stringify(p), timeoutMs: 60_000 });
    // Exit 3 means nothing was sent; step 0 already created the script, so this refusal is a failure (exit 1).
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /step 2 became destructive after substituting bindings/);
    assert.match(r.stderr, /earlier steps had already changed things/);
    assert.not.ok(emu.requests().some((q) => q.path.startsWith('/v1/container-deployments')), 'the step was not sent');
  });
});

test('plan files with a repeated key or invalid UTF-8 are exit 2 and nothing is sent (plan validate and ask --apply)', async () => {
  await withEmulator(async ({ emu, env }) => {
    const dir = tempDir('assistant-gate-');
    const dupTop = join(dir, 'dup-top.json');
    // JSON.parse keeps the last "commands": a reviewer's tool that keeps the first would see only the GET.
    writeFileSync(dupTop, `{"version":1,"provider":"gpucloud","commands":[${JSON.stringify(step('GET', '/v1/instances'))}],"commands":[${JSON.stringify(step('GET', '/v1/balance'))}]}`);
    const dupArgs = join(dir, 'dup-args.json');
    writeFileSync(dupArgs, `{"version":1,"provider":"gpucloud","commands":[{"args":["gpucloud-api","GET","/v1/instances"],"args":["gpucloud-api","GET","/v1/balance"],"reason":"r"}]}`);
    const badUtf8 = join(dir, 'bad-utf8.json');
    writeFileSync(badUtf8, Buffer.concat([Buffer.from(`{"version":1,"provider":"gpucloud","commands":[{"args":["gpucloud-api","GET","/v1/instances"],"reason":"caf`), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]));
    for (const [file, pattern] of [
      [dupTop, /key "commands" appears twice in \$/],
      [dupArgs, /key "args" appears twice in \$\.commands\[0\]/],
      [badUtf8, /not valid UTF-8 \(first bad byte at offset 107\)/],
    ] as const) {
      const v = await runCli(['plan', 'validate', file], { env, timeoutMs: 60_000 });
      assert.is(v.code, 2, `${file}: ${v.stderr}`);
      assert.match(v.stderr, pattern);
      const a = await runCli(['ask', '--apply', '--plan-file', file], { env, timeoutMs: 60_000 });
      assert.is(a.code, 2, `${file}: ${a.stderr}`);
      assert.match(a.stderr, /^error: invalid_plan: /m);
    }
    assert.is(emu.requests().length, 0);
  });
});

test.run();
