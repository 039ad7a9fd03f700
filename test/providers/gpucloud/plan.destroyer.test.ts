import { allProviders } from '../../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { destructiveReasons } from '../../../engine/providers/gpucloud/destroyer.js';
import { validatePlan } from '../../../engine/core/plan/validate.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const destructive = (method: string, path: string, body?: string) => destructiveReasons(method, path, body).length > 0;

test('a placeholder deciding the method is destructive', () => {
  assert.ok(destructive('<M>', '/v1/instances'));
});

test('a placeholder deciding the resource collection is destructive, one standing for an ID is not', () => {
  assert.ok(destructive('PUT', '/v1/<RES>', '{"action":"start","id":"x"}'));
  assert.ok(destructive('POST', '/<V>/instances', '{}'));
  assert.not.ok(destructive('GET', '/v1/instances/<INSTANCE_ID>'));
});

test('a placeholder as a body key on an action path is destructive', () => {
  assert.ok(destructive('PUT', '/v1/instances', '{"<K>":"delete","id":"x"}'));
});

test('a placeholder as the action value is destructive, in flat and actions[] forms', () => {
  assert.ok(destructive('PUT', '/v1/instances', '{"action":"<ACTION>","id":"x"}'));
  assert.ok(destructive('PUT', '/v1/clusters', '{"actions":[{"action":"<A>","id":"x"}]}'));
});

test('placeholders in ordinary values of an action body stay harmless', () => {
  assert.not.ok(destructive('PUT', '/v1/instances', '{"action":"start","id":"<INSTANCE_ID>"}'));
});

test('percent-escaped paths are classified as the server would route them', () => {
  assert.ok(destructive('PUT', '/v1/%69nstances', '{"action":"delete","id":"x"}'));
  assert.ok(destructive('PUT', '/v1%2Finstances', '{"action":"delete","id":"x"}'));
});

test('non-string actions and action arrays count as destructive', () => {
  assert.ok(destructive('PUT', '/v1/instances', '{"action":["delete"],"id":"x"}'));
  assert.ok(destructive('PUT', '/v1/clusters', '{"actions":"discontinue"}'));
});

test('paths the URL parser rewrites are classified as the wire sees them (tab, backslash, %2e%2e, NUL)', () => {
  const del = '{"action":"delete","id":"x"}';
  for (const path of ['/v1/inst\tances', '/v1/x/%2e%2e/instances', '/v1/x\\..\\instances', '/v1/instances\u0000', '/v1/x/../instances']) {
    assert.ok(destructive('PUT', path, del), JSON.stringify(path));
  }
});

test('such paths are also rejected outright by the argument check, so the plan never runs', () => {
  for (const path of ['/v1/inst\tances', '/v1/x/%2e%2e/instances', '/v1/x\\..\\instances', '/v1/instances\u0000', '/v1/instances%00']) {
    const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', path, '{"action":"start","id":"x"}'], reason: 'r' }] };
    const v = validatePlan(plan, { providers: PROVIDERS, destroyer: true });
    assert.ok(v.problems.some((p) => p.kind === 'schema' && p.field === 'args[2]'), JSON.stringify(path));
  }
});

test.run();
