/** Static plan validation, the destroyer rule, bindings and produces — in-process, nothing is sent. */
import { allProviders } from '../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OperationError } from '../../engine/core/errors.js';
import { substituteBody, substitutePath } from '../../engine/core/plan/bindings.js';
import { destructiveReasons } from '../../engine/providers/gpucloud/destroyer.js';
import { evaluateProduces } from '../../engine/core/plan/produces.js';
import { validatePlan } from '../../engine/core/plan/validate.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const ID = '0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21';
type Cmd = { args: string[]; reason: string; produces?: Record<string, string> };
const step = (method: string, path: string, body?: string, produces?: Record<string, string>): Cmd => ({
  args: ['gpucloud-api', method, path, ...(body !== undefined ? [body] : [])],
  reason: 'test',
  ...(produces ? { produces } : {}),
});
const plan = (...commands: Cmd[]) => ({ version: 1, provider: 'gpucloud', commands });
const strict = { providers: PROVIDERS, destroyer: false };
const destructive = (method: string, path: string, body?: string) => destructiveReasons(method, path, body).length > 0;

test('a valid plan with produces and a later placeholder is ok and not destructive', () => {
  const v = validatePlan(
    plan(
      step('POST', '/v1/volumes', JSON.stringify({ type: 'NVMe', name: 'v1', size: 50, location_code: 'FIN-01' }), { VOLUME_ID: '$.id' }),
      step('GET', '/v1/volumes/<VOLUME_ID>'),
    ),
    strict,
  );
  assert.ok(v.ok, JSON.stringify(v.problems));
  assert.equal(v.problems, []);
  assert.equal(v.destructive, [[], []]);
});

test('unknown keys are rejected at top level and in a command (a typo like "produce")', () => {
  const top = validatePlan({ ...plan(step('GET', '/v1/instances')), extra: 1 }, strict);
  assert.not.ok(top.ok);
  assert.ok(top.problems.some((p) => p.kind === 'schema' && /unknown key "extra"/.test(p.message)));
  const inCmd = validatePlan(plan({ ...step('GET', '/v1/instances'), produce: { X: '$.id' } } as Cmd), strict);
  assert.not.ok(inCmd.ok);
  const p = inCmd.problems.find((q) => /unknown key "produce"/.test(q.message));
  assert.ok(p, JSON.stringify(inCmd.problems));
  assert.is(p!.index, 0);
});

test('an unbound placeholder is an "unbound" problem', () => {
  const v = validatePlan(plan(step('GET', '/v1/instances/<INSTANCE_ID>')), strict);
  assert.not.ok(v.ok);
  assert.equal(
    v.problems.map((p) => [p.kind, p.index, p.field]),
    [['unbound', 0, 'args[2]']],
  );
  // produced only by a LATER step is still unbound at the point of use
  const later = validatePlan(plan(step('GET', '/v1/instances/<X>'), step('GET', '/v1/instances', undefined, { X: '$[0].id' })), strict);
  assert.ok(later.problems.some((p) => p.kind === 'unbound' && p.index === 0));
});

test('a predefined binding is allowed only when it is passed as predefined', () => {
  const body = JSON.stringify({ type: 'NVMe', name: 'v', size: 1, location_code: '<DEFAULT_LOCATION>' });
  const without = validatePlan(plan(step('POST', '/v1/volumes', body)), strict);
  assert.not.ok(without.ok);
  assert.is(without.problems[0]!.kind, 'unbound');
  assert.match(without.problems[0]!.message, /predefined from config but not set/);
  const withIt = validatePlan(plan(step('POST', '/v1/volumes', body)), { providers: PROVIDERS, destroyer: false, predefined: ['DEFAULT_LOCATION'] });
  assert.ok(withIt.ok, JSON.stringify(withIt.problems));
});

test('HTTP DELETE is destructive in any case', () => {
  for (const m of ['DELETE', 'delete', 'Delete', ' dElEtE ']) assert.ok(destructive(m, `/v1/volumes/${ID}`), m);
  const v = validatePlan(plan(step('Delete', '/v1/sshkeys/' + ID)), strict);
  assert.not.ok(v.ok);
  assert.is(v.problems[0]!.kind, 'destructive');
  assert.ok(validatePlan(plan(step('delete', '/v1/sshkeys/' + ID)), { providers: PROVIDERS, destroyer: true }).ok, '--destroyer allows it');
});

test('destructive instance actions are detected; start/shutdown/boot are not', () => {
  for (const a of ['delete', 'discontinue', 'force_shutdown', 'delete_stuck', 'hibernate']) {
    assert.ok(destructive('PUT', '/v1/instances', JSON.stringify({ action: a, id: ID })), a);
    assert.ok(destructive('PUT', '/v1/instances', JSON.stringify({ action: a.toUpperCase(), id: [ID] })), a.toUpperCase());
  }
  for (const a of ['start', 'shutdown', 'boot', 'restore', 'configure_spot']) {
    assert.not.ok(destructive('PUT', '/v1/instances', JSON.stringify({ action: a, id: ID })), a);
  }
  const v = validatePlan(plan(step('PUT', '/v1/instances', JSON.stringify({ action: 'shutdown', id: ID }))), strict);
  assert.ok(v.ok, JSON.stringify(v.problems));
});

test('cluster discontinue via an actions array and volume delete are destructive', () => {
  assert.ok(destructive('PUT', '/v1/clusters', JSON.stringify({ actions: [{ action: 'discontinue', id: ID }] })));
  assert.ok(destructive('PUT', '/v1/clusters', JSON.stringify({ actions: [{ action: 'start', id: ID }, { action: 'discontinue', id: ID }] })));
  assert.ok(destructive('PUT', '/v1/clusters', JSON.stringify({ action: 'discontinue', id: ID })));
  assert.ok(destructive('PUT', '/v1/volumes', JSON.stringify({ action: 'delete', id: ID })));
  assert.not.ok(destructive('PUT', '/v1/volumes', JSON.stringify({ action: 'detach', id: ID })));
  const v = validatePlan(plan(step('PUT', '/v1/clusters', JSON.stringify({ actions: [{ action: 'discontinue', id: ID }] }))), strict);
  assert.not.ok(v.ok);
  assert.match(v.problems[0]!.message, /discontinue/);
});

test('JSON unicode escapes and whitespace in the body do not hide a delete', () => {
  assert.ok(destructive('PUT', '/v1/instances', `{"action":"\\u0064elete","id":"${ID}"}`));
  assert.ok(destructive('PUT', '/v1/instances', `{\n  "action" :\t" delete "  ,\n "id": "${ID}" }`));
  assert.ok(destructive('PUT', '/v1/clusters', `{"actions":[{"action":"disc\\u006fntinue","id":"${ID}"}]}`));
  const v = validatePlan(plan(step('PUT', '/v1/instances', `{"action":"\\u0064elete","id":"${ID}"}`)), strict);
  assert.ok(v.problems.some((p) => p.kind === 'destructive'));
});

test('trailing-slash and doubled-slash paths are still action paths', () => {
  const body = JSON.stringify({ action: 'delete', id: ID });
  for (const p of ['/v1/instances/', '//v1//instances', '/v1//instances//', '/v1/instances?x=1', '/v1/INSTANCES']) {
    assert.ok(destructive('PUT', p, body), p);
  }
  // as a plan: the trailing slash is a valid path and is flagged; '//v1//…' is rejected as not origin-relative
  const trailing = validatePlan(plan(step('PUT', '/v1/instances/', body)), strict);
  assert.equal(trailing.problems.map((p) => p.kind), ['destructive']);
  const doubled = validatePlan(plan(step('PUT', '//v1//instances', body)), strict);
  assert.ok(doubled.problems.some((p) => p.kind === 'schema'));
  assert.ok(doubled.problems.some((p) => p.kind === 'destructive'));
});

test('an upper-case path /V1/INSTANCES is flagged destructive and also rejected as not under /v1/', () => {
  const body = JSON.stringify({ action: 'delete', id: ID });
  assert.ok(destructive('PUT', '/V1/INSTANCES', body));
  const v = validatePlan(plan(step('PUT', '/V1/INSTANCES', body)), strict);
  assert.not.ok(v.ok);
  assert.ok(v.problems.some((p) => p.kind === 'schema' && /must start with \/v1\//.test(p.message)));
  assert.ok(v.problems.some((p) => p.kind === 'destructive'));
});

test('an unparseable body on an action path is destructive (and invalid), elsewhere it is only invalid', () => {
  assert.ok(destructive('PUT', '/v1/instances', '{action: delete'));
  assert.ok(destructive('POST', '/v1/volumes', 'not json'));
  assert.not.ok(destructive('POST', '/v1/sshkeys', 'not json'));
  const v = validatePlan(plan(step('PUT', '/v1/instances', '{oops')), strict);
  assert.ok(v.problems.some((p) => p.kind === 'schema' && p.field === 'args[3]'));
  assert.ok(v.problems.some((p) => p.kind === 'destructive'));
  // non-string action values count as destructive
  assert.ok(destructive('PUT', '/v1/instances', JSON.stringify({ action: ['delete'], id: ID })));
  assert.ok(destructive('PUT', '/v1/instances', 'null'));
});

test('GET on an action path never counts as destructive', () => {
  assert.not.ok(destructive('GET', '/v1/instances', undefined));
  assert.not.ok(destructive('PUT', '/v1/instances', ''));
});

test('substituteBody JSON-escapes quotes, backslashes and control characters', () => {
  const value = 'a"b\\c\nd</x>';
  const out = substituteBody('{"name":"<NAME>","other":"<UNSET>"}', { NAME: value });
  const parsed = JSON.parse(out) as Record<string, string>;
  assert.is(parsed.name, value);
  assert.is(parsed.other, '<UNSET>', 'unknown placeholders are left as they are');
  // an injected quote cannot add a key
  const evil = JSON.parse(substituteBody('{"action":"start","id":"<ID>"}', { ID: 'x","action":"delete' })) as Record<string, string>;
  assert.is(evil.action, 'start');
});

test('substitutePath URL-encodes values so a slash cannot change the route', () => {
  assert.is(substitutePath('/v1/instances/<ID>', { ID: '../volumes/x' }), '/v1/instances/..%2Fvolumes%2Fx');
  assert.is(substitutePath('/v1/scripts/<ID>?q=<ID>', { ID: 'a b?c' }), '/v1/scripts/a%20b%3Fc?q=a%20b%3Fc');
});

test('evaluateProduces binds $.id from a bare-text ID and from {id}', async () => {
  assert.equal(await evaluateProduces({ INSTANCE_ID: '$.id' }, ID), { INSTANCE_ID: ID });
  assert.equal(await evaluateProduces({ CLUSTER_ID: '$.id' }, { id: ID }), { CLUSTER_ID: ID });
  assert.equal(await evaluateProduces({ FIRST: '$[0].hostname' }, [{ hostname: 'a' }, { hostname: 'b' }]), { FIRST: 'a' });
  assert.equal(await evaluateProduces(undefined, { id: 1 }), {});
});

test('evaluateProduces fails clearly when the path matches nothing', async () => {
  for (const data of [{ other: 1 }, [], null, { id: '' }, { id: { nested: true } }]) {
    try {
      await evaluateProduces({ X: '$.id' }, data);
      assert.unreachable(`should fail for ${JSON.stringify(data)}`);
    } catch (err) {
      assert.instance(err, OperationError);
      assert.is((err as OperationError).code, 'produces_failed');
      assert.is((err as OperationError).exitCode, 1);
      assert.match((err as Error).message, /produces X: "\$\.id" matched no value/);
    }
  }
});

test.run();
