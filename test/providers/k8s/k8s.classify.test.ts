/**
 * What a `k8s-api` step does, decided from its args alone (the destroyer gate, dry runs, the
 * duplicate-name check read it), its argument checks, and the kubectl command it corresponds to.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyK8sRequest, k8sApi, kubectlEquivalent } from '../../../engine/providers/k8s/verbs/api.js';
import { k8sWait, rolloutState } from '../../../engine/providers/k8s/verbs/wait.js';
import { findK8sKind, kubectlName } from '../../../engine/providers/k8s/kinds.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const dep = (extra: object = {}) => JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, ...extra } });
const C = 'ctx';
const D = '/apis/apps/v1/namespaces/shop/deployments';

test('reads, creates with the name from metadata.name, updates', () => {
  assert.is(classifyK8sRequest(C, 'GET', `${D}/web`, undefined).effect, 'read');
  const create = classifyK8sRequest(C, 'POST', D, dep());
  assert.equal(create, { effect: 'create', kind: `${D} on ctx`, name: 'web', nameAt: 'args[4].metadata.name', reasons: [] });
  assert.is(classifyK8sRequest(C, 'PATCH', `${D}/web`, dep()).effect, 'update');
  assert.is(classifyK8sRequest(C, 'PUT', `${D}/web`, dep()).effect, 'update');
  assert.is(classifyK8sRequest(C, 'PUT', `${D}/web/scale`, JSON.stringify({ spec: { replicas: 3 } })).effect, 'update');
});

test('DELETE, scaling to zero and evictions are destructive, each with its reason', () => {
  assert.equal(classifyK8sRequest(C, 'DELETE', `${D}/web`, undefined).reasons, ['deletes deployment web in namespace shop (context ctx)']);
  assert.equal(classifyK8sRequest(C, 'delete', D, undefined).reasons, ['deletes every deployment in namespace shop (context ctx)']);
  assert.equal(classifyK8sRequest(C, 'PATCH', `${D}/web`, dep({ replicas: 0 })).reasons, ['scales deployment web to zero replicas in namespace shop (context ctx)']);
  assert.is(classifyK8sRequest(C, 'PUT', `${D}/web/scale`, JSON.stringify({ spec: { replicas: 0 } })).effect, 'destroy');
  assert.is(classifyK8sRequest(C, 'PATCH', `${D}/web`, JSON.stringify({ spec: { replicas: '<N>' } })).effect, 'destroy');
  assert.is(classifyK8sRequest(C, 'POST', '/api/v1/namespaces/shop/pods/web-1/eviction', JSON.stringify({ metadata: { name: 'web-1' } })).effect, 'destroy');
});

test('a placeholder in the method or the resource position is destructive: what it touches is only known at run time', () => {
  assert.is(classifyK8sRequest(C, '<METHOD>', `${D}/web`, undefined).effect, 'destroy');
  assert.is(classifyK8sRequest(C, 'PATCH', '/apis/apps/v1/namespaces/shop/<KIND>/web', dep()).effect, 'destroy');
  // A placeholder in the name position does not change what a GET does.
  assert.is(classifyK8sRequest(C, 'GET', `${D}/<NAME>`, undefined).effect, 'read');
});

test('checkArgs refuses paths that are not API paths, bodies on GET/DELETE, writes without a body', () => {
  const fields = (args: string[]) => k8sApi.checkArgs(args).map((p) => p.field);
  assert.equal(fields(['k8s-api', C, 'GET', '/api/v1/pods']), []);
  assert.equal(fields(['k8s-api', C, 'GET', 'https://evil/api/v1/pods']), ['args[3]']);
  assert.equal(fields(['k8s-api', C, 'GET', '/api/v1/../../etc']), ['args[3]']);
  assert.equal(fields(['k8s-api', C, 'GET', '/healthz']), ['args[3]']);
  assert.equal(fields(['k8s-api', C, 'FETCH', '/api/v1/pods']), ['args[2]']);
  assert.equal(fields(['k8s-api', C, 'DELETE', `${D}/web`, '{}']), ['args[4]']);
  assert.equal(fields(['k8s-api', C, 'POST', D]), ['args[4]']);
  assert.equal(fields(['k8s-api', C, 'POST', D, '{"a":1,"a":2}']), ['args[4]']);
  assert.equal(fields(['k8s-api', '', 'GET', '/api/v1/pods']), ['args[1]']);
  // A control character, raw or %-encoded, would reach the terminal in the gate's reasons.
  assert.equal(fields(['k8s-api', C, 'DELETE', '/api/v1/namespaces/x/pods/a%1b[31mb']), ['args[3]']);
  assert.equal(fields(['k8s-api', 'ctx\u001b[2J', 'GET', '/api/v1/pods']), ['args[1]']);
  assert.equal(k8sWait.checkArgs(['k8s-wait', C, 'deployment', 'shop', 'web', 'available', '30']), []);
  assert.equal(k8sWait.checkArgs(['k8s-wait', C, 'pod', 'shop', 'web', 'ready']).map((p) => p.field), ['args[2]', 'args[5]']);
});

test('the kubectl equivalents people would type', () => {
  assert.is(kubectlEquivalent(C, 'GET', '/api/v1/pods'), 'kubectl --context ctx get pod -A -o json');
  assert.is(kubectlEquivalent(C, 'GET', '/api/v1/namespaces/shop/pods/web-1/log?tailLines=5&sinceSeconds=60'), 'kubectl --context ctx logs web-1 -n shop --tail=5 --since=60s');
  assert.is(kubectlEquivalent(C, 'DELETE', `${D}/web`), 'kubectl --context ctx delete deployment web -n shop');
  assert.is(kubectlEquivalent(C, 'PATCH', `${D}/web`, dep()), 'kubectl --context ctx -n shop apply --server-side -f -');
  assert.is(kubectlEquivalent(C, 'POST', D, dep()), 'kubectl --context ctx -n shop create -f -');
  assert.is(kubectlEquivalent(C, 'PUT', `${D}/web/scale`, JSON.stringify({ spec: { replicas: 0 } })), 'kubectl --context ctx scale deployment web --replicas=0 -n shop');
  assert.is(kubectlEquivalent(C, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes'), 'kubectl --context ctx top node');
});

test('a rollout is available only when the controller saw the spec and every replica is updated and available', () => {
  const d = (status: object, generation = 2) => ({ metadata: { generation }, spec: { replicas: 2 }, status });
  assert.is(rolloutState(d({ observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 2 })).done, false);
  assert.is(rolloutState(d({ observedGeneration: 2, updatedReplicas: 1, replicas: 2, availableReplicas: 2 })).done, false);
  assert.is(rolloutState(d({ observedGeneration: 2, updatedReplicas: 2, replicas: 3, availableReplicas: 2 })).done, false);
  assert.is(rolloutState(d({ observedGeneration: 2, updatedReplicas: 2, replicas: 2, availableReplicas: 1 })).done, false);
  assert.is(rolloutState(d({ observedGeneration: 2, updatedReplicas: 2, replicas: 2, availableReplicas: 2 })).done, true);
  assert.ok(rolloutState(d({ observedGeneration: 2, conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded', message: 'too slow' }] })).failed);
});

test('plan validate of a k8s plan that scales to zero: exit 3 naming the reason; with --destroyer, valid', async () => {
  const plan = JSON.stringify({ version: 1, provider: 'k8s', commands: [{ args: ['k8s-api', C, 'PUT', `${D}/web/scale`, JSON.stringify({ spec: { replicas: 0 } })], reason: 'pause' }] });
  const r = await runCli(['plan', 'validate'], { input: plan });
  assert.is(r.code, 3, r.stderr + r.stdout);
  assert.match(r.stdout + r.stderr, /scales deployment web to zero replicas/);
  const ok = await runCli(['plan', 'validate', '--destroyer'], { input: plan });
  assert.is(ok.code, 0, ok.stderr + ok.stdout);
});

test('each kind is found by its plural, singular and kubectl short name, with the object kind and the row fields kubectl shows', () => {
  const kinds: [string, string, string, string][] = [['pods', 'pod', 'po', 'Pod'], ['deployments', 'deployment', 'deploy', 'Deployment'], ['services', 'service', 'svc', 'Service'], ['nodes', 'node', 'no', 'Node'], ['events', 'event', 'ev', 'Event'], ['namespaces', 'namespace', 'ns', 'Namespace']];
  for (const [plural, singular, short, kind] of kinds) {
    for (const name of [plural, singular, short, ` ${short.toUpperCase()} `]) assert.is(findK8sKind(name)?.resource, plural, name);
    assert.is(findK8sKind(plural)!.kind, kind);
    assert.is(kubectlName(plural), singular);
  }
  assert.is(findK8sKind('deploymentz'), undefined);
  const row = findK8sKind('deploy')!.row({ metadata: { name: 'web', namespace: 'shop', creationTimestamp: new Date(Date.now() - 3 * 86_400_000).toISOString() }, spec: { replicas: 2 }, status: { readyReplicas: 1 } });
  assert.equal(row, { namespace: 'shop', name: 'web', ready: '1/2', updated: 0, available: 0, image: '', age: '3d' });
});

test.run();
