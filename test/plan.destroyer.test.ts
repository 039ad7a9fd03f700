import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { destructiveReasons } from '../engine/plan/destroyer.js';

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

test.run();
