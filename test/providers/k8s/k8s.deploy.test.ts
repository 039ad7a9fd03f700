/**
 * `k8s deploy | delete` against a fake HTTPS Kubernetes API (own CA, token auth): the plan's requests
 * are exactly what Kubernetes receives, redeploys update, deletions are gated, `--plan` sends nothing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, CHILD_TIMEOUT_MS, childEnv, cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { startKubeApi, writeKubeconfig, type KubeApi } from '../../support/kube-api.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let api: KubeApi;
let kubeconfig: string;
const env = () => ({ KUBECONFIG: kubeconfig });

test.before(async () => {
  api = await startKubeApi();
  kubeconfig = writeKubeconfig(tempDir('kcfg-'), api);
});
test.after(async () => api.close());

const writesSince = (n: number) => api.requests().slice(n).filter((r) => r.method !== 'GET');

test('k8s deploy applies exactly a Deployment and a Service, then waits until the rollout is available', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'deploy', 'nginx:1.27', '--name', 'web', '--port', '80', '--replicas', '2', '-n', 'default'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  const writes = writesSince(before);
  assert.equal(writes.map((w) => `${w.method} ${w.path}`), ['PATCH /apis/apps/v1/namespaces/default/deployments/web', 'PATCH /api/v1/namespaces/default/services/web']);
  for (const w of writes) {
    assert.is(w.contentType, 'application/apply-patch+yaml');
    assert.is(w.query.fieldManager, 'assistant');
    assert.is(w.auth, 'token');
  }
  const [dep, svc] = [writes[0]!.body, writes[1]!.body];
  assert.is(dep.kind, 'Deployment');
  assert.is(dep.apiVersion, 'apps/v1');
  assert.is(dep.spec.replicas, 2);
  assert.equal(dep.spec.selector.matchLabels, { app: 'web' });
  assert.equal(dep.spec.template.metadata.labels, { app: 'web' });
  assert.equal(dep.spec.template.spec.containers, [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] }]);
  assert.is(svc.kind, 'Service');
  assert.equal(svc.spec.selector, { app: 'web' });
  assert.equal(svc.spec.ports, [{ name: 'http', port: 80, targetPort: 80, protocol: 'TCP' }]);
  // The wait polled until available: at least one GET saw the rollout in progress, progress said so.
  const polls = api.requests().slice(before).filter((q) => q.method === 'GET' && q.path === '/apis/apps/v1/namespaces/default/deployments/web');
  assert.ok(polls.length >= 2, `polled ${polls.length} times`);
  assert.match(r.stderr, /waiting for deployment default\/web to be available/);
  assert.match(r.stdout + r.stderr, /succeeded|3\/3/);
  assert.is(api.objects('pods').filter((p) => p.metadata.labels?.app === 'web').length, 2);
});

test('redeploying the same name updates the Deployment in place (PATCH, no POST, one object)', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'deploy', 'nginx:1.28', '--name', 'web', '--port', '80', '--replicas', '3', '-n', 'default'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  const writes = writesSince(before);
  assert.equal(writes.map((w) => w.method), ['PATCH', 'PATCH']);
  const deployments = api.objects('deployments').filter((d) => d.metadata.name === 'web');
  assert.is(deployments.length, 1);
  assert.is(deployments[0]!.spec.template.spec.containers[0].image, 'nginx:1.28');
  assert.is(deployments[0]!.metadata.generation, 2);
  // The identical command again is a new deploy the user asked for, not "already applied".
  const again = await runCli(['k8s', 'deploy', 'nginx:1.28', '--name', 'web', '--port', '80', '--replicas', '3', '-n', 'default'], { env: env(), home: r.home });
  assert.is(again.code, 0, again.stderr);
});

test('k8s deploy --plan prints a k8s plan with the context in it and sends nothing', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'deploy', 'redis:7', '--name', 'cache', '--port', '6379', '--plan'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.is(plan.provider, 'k8s');
  assert.equal(plan.commands.map((c: { args: string[] }) => c.args.slice(0, 4)), [
    ['k8s-api', 'kind-test', 'PATCH', '/apis/apps/v1/namespaces/default/deployments/cache'],
    ['k8s-api', 'kind-test', 'PATCH', '/api/v1/namespaces/default/services/cache'],
    ['k8s-wait', 'kind-test', 'deployment', 'default'],
  ]);
  assert.is(api.requests().length, before);
});

test('k8s deploy --dry-run shows each step with its kubectl equivalent and changes nothing', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'deploy', 'redis:7', '--name', 'cache', '--port', '6379', '--dry-run'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /kubectl --context kind-test -n default apply --server-side -f -/);
  assert.match(r.stdout, /kubectl --context kind-test -n default rollout status deployment\/cache/);
  assert.is(writesSince(before).length, 0);
});

test('k8s deploy --replicas 0 scales to zero: refused without --destroyer (exit 3), nothing sent', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'deploy', 'nginx:1.28', '--name', 'web', '--port', '80', '--replicas', '0'], { env: env() });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /scales deployment web to zero replicas/);
  assert.is(api.requests().length, before);
});

test('k8s delete needs --destroyer: exit 3 and nothing sent without it; with it, one DELETE', async () => {
  const before = api.requests().length;
  const refused = await runCli(['k8s', 'delete', 'service', 'web', '-n', 'default'], { env: env() });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /error: refused: /);
  assert.match(refused.stderr, /deletes service web in namespace default \(context kind-test\)/);
  assert.match(refused.stderr, /--destroyer/);
  assert.is(api.requests().length, before);
  const ok = await runCli(['k8s', 'delete', 'service', 'web', '-n', 'default', '--destroyer'], { env: env() });
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(writesSince(before).map((w) => `${w.method} ${w.path}`), ['DELETE /api/v1/namespaces/default/services/web']);
  assert.not.ok(api.objects('services').some((s) => s.metadata.name === 'web'));
});

test('a k8s plan that POSTs a name that already exists is refused before anything is sent (exit 3)', async () => {
  const home = tempHome();
  const before = api.requests().length;
  const plan = {
    version: 1,
    provider: 'k8s',
    commands: [{ args: ['k8s-api', 'kind-test', 'POST', '/apis/apps/v1/namespaces/default/deployments', JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } })], reason: 'create web' }],
  };
  const r = await runCli(['ask', '--apply'], { env: env(), home, input: JSON.stringify(plan) });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /already exists/);
  assert.match(r.stderr, /"web"/);
  assert.is(writesSince(before).length, 0);
});

test('a POST of a new name creates it once; its kubectl equivalent is `create -f -`', async () => {
  const before = api.requests().length;
  const plan = {
    version: 1,
    provider: 'k8s',
    commands: [{ args: ['k8s-api', 'kind-test', 'POST', '/api/v1/namespaces/default/services', JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'fresh' }, spec: { ports: [{ port: 1 }] } })], reason: 'create fresh' }],
  };
  const r = await runCli(['ask', '--apply'], { env: env(), input: JSON.stringify(plan) });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /kubectl --context kind-test -n default create -f -/);
  assert.equal(writesSince(before).map((w) => `${w.method} ${w.path}`), ['POST /api/v1/namespaces/default/services']);
});


test('kill -9 during the rollout wait, then --resume: only the wait runs again, nothing is applied twice', async () => {
  const slow = await startKubeApi({ rolloutPolls: 1_000_000 });
  const config = writeKubeconfig(tempDir('kcfg-'), slow);
  const home = tempHome();
  const args = ['k8s', 'deploy', 'nginx:1.27', '--name', 'slow', '--port', '80'];
  try {
    const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(home, { KUBECONFIG: config }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no wait line: ${stderr}`)), CHILD_TIMEOUT_MS);
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if (/waiting for deployment default\/slow/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.is(slow.writes().length, 2);
    const again = await runCli(args, { env: { KUBECONFIG: config }, home });
    assert.is(again.code, 3, 'an unfinished run is not started over silently');
    assert.match(again.stderr, /--resume/);
    slow.completeRollouts();
    const resumed = await runCli([...args, '--resume'], { env: { KUBECONFIG: config }, home });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(slow.writes().length, 2, 'no PATCH was sent again');
  } finally {
    await slow.close();
  }
});

test('a rollout that does not become available within --rollout-timeout fails with wait_timeout (exit 1) and says how to look', async () => {
  const stuck = await startKubeApi({ rolloutPolls: 1_000_000 });
  try {
    const config = writeKubeconfig(tempDir('kcfg-'), stuck);
    const r = await runCli(['k8s', 'deploy', 'nginx:1.27', '--name', 'stuck', '--port', '80', '--rollout-timeout', '1'], { env: { KUBECONFIG: config } });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /error: wait_timeout: deployment default\/stuck is not available after 1 s/);
    assert.match(r.stderr, /assistant k8s get pods -n default/);
  } finally {
    await stuck.close();
  }
});

test.run();
