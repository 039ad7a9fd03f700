/**
 * Default deny for the k8s provider (issue 21), through the real CLI and the MCP server's plan_apply
 * against a fake API server: writes that remove data or capacity (a Secret or ConfigMap emptied,
 * NoExecute taints, a cordon, a Job suspended, replicas written as 0 in any spelling, a null), running
 * something in a container (exec, attach, proxy) and RBAC changes need --destroyer (exit 3, nothing
 * sent); the controls run. A malformed local kubeconfig is a user error naming file and line (exit 2);
 * the user's own credential plugin gets the user's environment without this tool's secrets.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyK8sRequest } from '../../../engine/providers/k8s/verbs/api.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';
import { startKubeApi, writeKubeconfig, type KubeApi } from '../../support/kube-api.js';
import { callTool, connectHttp, errorOf, startMcpServer, textOf } from '../../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const temp = tempDir;

/** Writes that remove data or capacity, or run something past the API: each destructive, with its reason. */
const DESTRUCTIVE: [string, string, string | undefined, RegExp][] = [
  ['PUT', '/api/v1/namespaces/default/secrets/db', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"data":{}}', /replaces secrets? db/],
  ['PATCH', '/api/v1/namespaces/default/configmaps/app', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"}}', /applies configmaps? app .*without data: it is emptied/],
  ['PATCH', '/api/v1/namespaces/default/secrets/db', '{"data":{"password":null}}', /a null in the body deletes that field/],
  ['PATCH', '/api/v1/nodes/node-a', '{"spec":{"taints":[{"key":"k","effect":"NoExecute"}]}}', /taints nodes? node-a NoExecute/],
  ['PATCH', '/api/v1/nodes/node-a', '{"spec":{"unschedulable":true}}', /cordons nodes? node-a/],
  ['PATCH', '/apis/batch/v1/namespaces/default/jobs/train', '{"spec":{"suspend":true}}', /suspends jobs? train/],
  ['PATCH', '/apis/batch/v1/namespaces/default/cronjobs/nightly', '{"spec":{"suspend":true}}', /suspends cronjobs? nightly/],
  ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"spec":{"replicas":0}}', /to zero replicas/],
  ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"spec":{"replicas":-0}}', /to zero replicas/],
  ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"spec":{"replicas":0.0}}', /to zero replicas/],
  ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"spec":{"replicas":"+0"}}', /to zero replicas/],
  ['PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', '{"spec":{"replicas":0}}', /to zero replicas/],
  ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"metadata":{"finalizers":[]}}', /clears the finalizers/],
  ['POST', '/api/v1/namespaces/default/pods/web-0/exec?command=sh&command=-c&command=rm%20-rf%20%2Fdata', '{}', /exec runs something in a container/],
  ['POST', '/api/v1/namespaces/default/pods/web-0/attach', '{}', /attach runs something/],
  ['GET', '/api/v1/nodes/node-a/proxy', undefined, /proxy runs something in a container or reaches past the API server/],
  ['POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', '{"metadata":{"name":"pwn"},"roleRef":{"kind":"ClusterRole","name":"cluster-admin"}}', /changes who may do what/],
  ['PUT', '/api/v1/namespaces/default/namespaces/x/finalize', '{}', /not known to be safe/],
  ['DELETE', '/apis/apps/v1/namespaces/default/deployments/web', undefined, /deletes deployment web/],
];

test('k8s writes that remove data or capacity, run something in a container or change RBAC are destructive; ordinary writes are not', () => {
  for (const [method, path, body, reason] of DESTRUCTIVE) {
    const cls = classifyK8sRequest('ctx', method, path, body);
    assert.is(cls.effect, 'destroy', `${method} ${path} ${body ?? ''}`);
    assert.match(cls.reasons.join(' '), reason, `${method} ${path}`);
  }
  for (const [method, path, body, effect] of [
    ['GET', '/api/v1/namespaces/default/pods', undefined, 'read'],
    ['POST', '/apis/apps/v1/namespaces/default/deployments', '{"metadata":{"name":"web"},"spec":{"replicas":1}}', 'create'],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '{"spec":{"replicas":3}}', 'update'],
    ['PATCH', '/api/v1/namespaces/default/secrets/db', '{"stringData":{"password":"new"}}', 'update'],
    ['PATCH', '/api/v1/nodes/node-a', '{"spec":{"taints":[{"key":"gpu","effect":"NoSchedule"}]}}', 'update'],
    ['PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', '{"spec":{"replicas":2}}', 'update'],
  ] as const) {
    assert.is(classifyK8sRequest('ctx', method, path, body).effect, effect, `${method} ${path}`);
  }
});

async function withApi(fn: (api: KubeApi, kubeconfig: string) => Promise<void>) {
  const api = await startKubeApi();
  try {
    await fn(api, writeKubeconfig(temp('deny-kcfg-'), api));
  } finally {
    await api.close();
  }
}

test('through the CLI and MCP: each destructive k8s form exits 3 with nothing sent; a create and a scale above 0 run', async () => {
  await withApi(async (api, kubeconfig) => {
    const steps = DESTRUCTIVE.filter(([m]) => m !== 'DELETE').map(([method, path, body]) => ({ args: ['k8s-api', 'kind-test', method, path, ...(body === undefined ? [] : [body])], reason: 'x' }));
    const plan = { version: 1, provider: 'k8s', commands: [{ args: ['k8s-api', 'kind-test', 'GET', '/api/v1/namespaces/default/pods'], reason: 'first' }, ...steps] };
    const r = await runCli(['ask', '--apply'], { home: temp('deny-k8s-home-'), input: JSON.stringify(plan), env: { KUBECONFIG: kubeconfig } });
    assert.is(r.code, 3, r.stderr);
    steps.forEach((_, i) => assert.match(r.stderr, new RegExp(`command ${i + 1} \\(args\\): destructive: `)));
    assert.is(api.requests().length, 0, 'nothing was sent, not even the read');

    const control = {
      version: 1,
      provider: 'k8s',
      commands: [
        { args: ['k8s-api', 'kind-test', 'POST', '/apis/apps/v1/namespaces/default/deployments', JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ctl', namespace: 'default' }, spec: { replicas: 1 } })], reason: 'create' },
        { args: ['k8s-api', 'kind-test', 'PATCH', '/apis/apps/v1/namespaces/default/deployments/ctl', '{"spec":{"replicas":2}}'], reason: 'scale up' },
      ],
    };
    const ok = await runCli(['ask', '--apply'], { home: temp('deny-k8s-home-'), input: JSON.stringify(control), env: { KUBECONFIG: kubeconfig } });
    assert.is(ok.code, 0, ok.stderr);
    assert.equal(api.writes().map((w) => w.method), ['POST', 'PATCH']);

    const server = await startMcpServer(['--listen', '127.0.0.1:0'], { home: temp('deny-k8s-mcp-'), env: { KUBECONFIG: kubeconfig } });
    const client = await connectHttp(server.url);
    try {
      const before = api.requests().length;
      for (const step of [steps[0]!, steps.find((s) => s.args[3]!.includes('/exec'))!]) {
        const res = await callTool(client, 'assistant_plan_apply', { plan: { version: 1, provider: 'k8s', commands: [step] } });
        assert.is(res.isError, true, step.args.join(' '));
        assert.is(errorOf(res).code, 'refused');
      }
      assert.is(api.requests().length, before, 'nothing sent');
      const read = await callTool(client, 'assistant_plan_apply', { plan: { version: 1, provider: 'k8s', commands: [{ args: ['k8s-api', 'kind-test', 'GET', '/api/v1/nodes'], reason: 'read' }] } });
      assert.not.ok(read.isError, textOf(read));
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

test('a malformed local kubeconfig is a user error (exit 2) naming the file and the line at fault, never "internal"', async () => {
  const d = temp('deny-badkcfg-');
  const cases: [string, RegExp][] = [
    ['apiVersion: v1\nclusters:\n- cluster:\n    server: https://x\n  name: c\n contexts: bad\n', /k1\.yaml:6 is not a valid kubeconfig/],
    ['a: 1\na: 2\n', /k2\.yaml:2 is not a valid kubeconfig: Map keys must be unique/],
    ['current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: "https://[zz]:1"}\nusers:\n- name: u\n  user: {token: abcdefgh}\n', /k3\.yaml:6: cluster "c": the server "https:\/\/\[zz\]:1" is not a URL/],
    ['current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {client-certificate-data: "bm90IGEgY2VydA==", client-key-data: "bm90IGEga2V5"}\n', /k4\.yaml:9: user "u": client-certificate\(-data\) is not usable PEM/],
  ];
  for (const [i, [text, message]] of cases.entries()) {
    const file = join(d, `k${i + 1}.yaml`);
    writeFileSync(file, text);
    const r = await runCli(['k8s', 'get', 'pods'], { home: temp('deny-k8s-home-'), env: { KUBECONFIG: file } });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.not.match(r.stderr, /internal/);
  }
});

test("the user's own credential plugin gets the user's environment, but not this tool's secrets", async () => {
  await withApi(async (api) => {
    const d = temp('deny-plugin-');
    const dump = join(d, 'env');
    const kubeconfig = writeKubeconfig(d, api, {
      exec: { command: '/bin/sh', args: ['-c', `env > ${dump}; printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${api.token}"}}'`] },
    });
    const secrets = { GPUCLOUD_CLIENT_SECRET: 'gc-secret-123456', OPENAI_API_KEY: 'sk-deny-test-0123456789abcdef', GITHUB_TOKEN: 'ghp_denytest0123456789abcdefABCDEF' };
    const r = await runCli(['k8s', 'get', 'nodes'], { home: temp('deny-k8s-home-'), env: { KUBECONFIG: kubeconfig, ...secrets, AWS_PROFILE: 'team' } });
    assert.is(r.code, 0, r.stderr);
    const env = readFileSync(dump, 'utf8');
    for (const name of Object.keys(secrets)) assert.not.match(env, new RegExp(`^${name}=`, 'm'), name);
    assert.match(env, /^AWS_PROFILE=team$/m, 'the plugin keeps what it needs (aws eks get-token reads AWS_PROFILE)');
  });
});

test.run();
