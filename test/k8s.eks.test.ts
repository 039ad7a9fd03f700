/**
 * `k8s create eks` applied for real: the CLI runs the real `aws` CLI (c1's cloud_a provider) against
 * `moto_server`. Without moto or aws on PATH each test prints one SKIP line and passes (CI has both).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { runCli, tempHome } from './support/cli.js';
import { motoSuite } from './support/moto.js';

const motoTest = motoSuite(test);

const create = ['k8s', 'create', 'eks', 'e1', '--role-arn', 'arn:aws:iam::123456789012:role/eks', '--subnets', 'subnet-a,subnet-b', '--nodes', '3', '--node-type', 'm5.large'];

motoTest('k8s create eks against moto: control plane, a node group of 3, and kubeconfig context e1 with aws eks get-token', async (m) => {
  const home = tempHome();
  const r = await runCli([...create, '--yes'], { home, env: m.env });
  assert.is(r.code, 0, r.stderr);
  assert.equal(m.aws(['eks', 'list-clusters']), { clusters: ['e1'] });
  const ng = (m.aws(['eks', 'describe-nodegroup', '--cluster-name', 'e1', '--nodegroup-name', 'e1-nodes']) as { nodegroup: { scalingConfig: Record<string, number>; instanceTypes: string[] } }).nodegroup;
  assert.equal(ng.scalingConfig, { minSize: 3, maxSize: 3, desiredSize: 3 });
  assert.equal(ng.instanceTypes, ['m5.large']);
  const kube = parse(readFileSync(join(home, '.kube', 'config'), 'utf8')) as { contexts: { name: string; context: { user: string } }[]; users: { name: string; user: { exec: { args: string[] } } }[] };
  const ctx = kube.contexts.find((c) => c.name === 'e1')!;
  assert.ok(ctx, 'context aliased to the cluster name');
  assert.ok(kube.users.find((u) => u.name === ctx.context.user)!.user.exec.args.includes('get-token'));
  // The same command again: the finished plan is not applied twice (exit 3), nothing more is created.
  const again = await runCli([...create, '--yes'], { home, env: m.env });
  assert.is(again.code, 3, again.stderr);
  assert.match(again.stderr, /already applied/);
});

motoTest('k8s create eks --dry-run runs only reads, and its plan validates without --destroyer', async (m) => {
  const home = tempHome();
  const shown = await runCli([...create, '--plan'], { home, env: m.env });
  assert.is(shown.code, 0, shown.stderr);
  writeFileSync(join(home, 'eks.json'), shown.stdout);
  const valid = await runCli(['plan', 'validate', join(home, 'eks.json')], { home, env: m.env });
  assert.is(valid.code, 0, valid.stderr);
  const dry = await runCli([...create, '--dry-run'], { home, env: m.env });
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /aws eks create-cluster/);
  assert.equal(m.aws(['eks', 'list-clusters']), { clusters: [] });
});

test.run();
