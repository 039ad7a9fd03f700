/**
 * The capabilities a surface reaches a provider through instead of importing its folder (issue 37 item 4,
 * test/layering.wings.test.ts): gpucloud's `records` (gpucloud list|get, the MCP list and get tools,
 * k8s delete), ssh's `preflight` (k8s create kubeadm), cloud_a's `target` (ask --discovery) and k8s's
 * `clusterAsk` (k8s ask). Each is found through the registry by name, from the manifest, and does what
 * the import it replaced did.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AssistantError } from '../../engine/core/errors.js';
import { PROVIDERS, providerWith } from '../../engine/providers/index.js';
import type { Config } from '../../schemas/config.js';
import { tempDir } from '../support/temp.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof AssistantError ? err.code : String(err);
  }
};

test('the manifest says who has each of them, without loading any provider', () => {
  assert.equal(PROVIDERS.namesWith('records'), ['gpucloud']);
  assert.equal(PROVIDERS.namesWith('preflight'), ['ssh']);
  assert.equal(PROVIDERS.namesWith('target'), ['cloud_a']);
  assert.equal(PROVIDERS.namesWith('clusterAsk'), ['k8s']);
});

test('records: a kind by any of its names, one read-only list plan per kind, and an unknown kind is a usage error naming the kinds', async () => {
  const records = (await providerWith('records', 'gpucloud'))!.capabilities.records;
  assert.ok(records.kinds().includes('instances') && records.kinds().includes('balance'), records.kinds().join(', '));
  assert.is(records.kind('instance').kind, 'instances');
  assert.is(records.kind('instances').singular, 'instance');
  const plan = records.list('instance');
  assert.equal(plan.commands.map((c) => c.args.slice(0, 2)), [['gpucloud-api', 'GET']]);
  assert.is(plan.provider, 'gpucloud');
  try {
    records.kind('gpus-and-more');
    assert.unreachable('an unknown kind');
  } catch (err) {
    assert.instance(err, AssistantError);
    assert.match((err as AssistantError).hint ?? '', /instances/);
  }
  // A name nobody has is not found, read through the caller's plan run (here: no record at all).
  const reads: unknown[] = [];
  const missing = await records.resolve(async (p) => (reads.push(p), []), 'instances', 'no-such-host').catch((err: AssistantError) => err.code);
  assert.is(missing, 'not_found');
  assert.is(reads.length, 1, 'one list read');
});

test('preflight: an unset or unreadable SSH key is refused before anything is paid for; a readable one answers where the kubeconfig goes', async () => {
  const preflight = (await providerWith('preflight', 'ssh'))!.capabilities.preflight;
  const home = tempDir();
  const settings = { home, port: 22, knownHostsFile: join(home, 'known_hosts'), kubeconfigPath: join(home, 'kube', 'config'), notice: () => undefined };
  assert.is(code(() => preflight.check(settings)), 'ssh_key_missing', 'no key configured');
  assert.is(code(() => preflight.check({ ...settings, keyPath: join(home, 'absent') })), 'ssh_key_missing', 'a key file that is not there');
  const key = join(home, 'id_ed25519');
  writeFileSync(key, 'not checked here: ssh2 reads it when a step connects\n', { mode: 0o600 });
  assert.equal(preflight.check({ ...settings, keyPath: key }), { kubeconfigPath: settings.kubeconfigPath });
});

test("target: the region of --profile's environment, else the aws CLI's variables, else none", async () => {
  const target = (await providerWith('target', 'cloud_a'))!.capabilities.target;
  const config = { infra: { cloud_a: { environments: { prod: { profile: 'p', region: 'eu-west-1' } } } } } as unknown as Config;
  assert.is(target.region(config, {}, 'prod'), 'eu-west-1');
  assert.is(target.region(config, { AWS_REGION: 'us-east-2' }), 'us-east-2');
  assert.is(target.region(config, { AWS_DEFAULT_REGION: 'ap-south-1' }), 'ap-south-1');
  assert.is(target.region({} as Config, {}), undefined);
  assert.is(target.region(config, { AWS_REGION: 'us-east-2' }, 'some-aws-profile'), 'us-east-2', 'a plain aws profile names no region: the variables still do');
});

test("clusterAsk: a cluster's context is read-only k8s-api reads of that context, one kind per step", async () => {
  const cluster = (await providerWith('clusterAsk', 'k8s'))!.capabilities.clusterAsk;
  const { plan, kinds } = cluster.contextReads('ctx-a', 'team');
  assert.is(plan.commands.length, kinds.length);
  assert.ok(kinds.includes('pods') && kinds.includes('events'), kinds.join(', '));
  for (const c of plan.commands) assert.equal(c.args.slice(0, 3), ['k8s-api', 'ctx-a', 'GET']);
  assert.ok(plan.commands.some((c) => c.args[3]!.includes('/namespaces/team/')), 'the namespace is read');
  assert.ok(cluster.system.length > 0);
  assert.type(cluster.answer('how many pods?', [{ kind: 'pods', args: [], data: { items: [] } }], 'Cluster ctx-a'), 'string');
});

test.run();
