/**
 * `k8s get | logs | stats | ask` against the fake HTTPS Kubernetes API: the query parameters Kubernetes
 * receives, sorting and quantities, the metrics-server-absent error, and the built-in answer of `k8s ask`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, CHILD_TIMEOUT_MS, childEnv, cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { startKubeApi, writeKubeconfig, type KubeApi } from '../../support/kube-api.js';
import { startOpenAiServer } from '../../support/openai-server.js';
import { formatBytes, parseDuration, parseQuantity } from '../../../engine/providers/k8s/quantity.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let api: KubeApi;
let kubeconfig: string;
const env = () => ({ KUBECONFIG: kubeconfig });
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

test.before(async () => {
  api = await startKubeApi({
    logs: { 'crashy-1': [{ at: minutesAgo(60), text: 'old line' }, { at: minutesAgo(5), text: 'recent 1' }, { at: minutesAgo(4), text: 'recent 2' }, { at: minutesAgo(1), text: 'recent 3' }] },
    followLines: ['followed 1', 'followed 2'],
  });
  kubeconfig = writeKubeconfig(tempDir('kcfg-'), api);
});
test.after(async () => api.close());

const last = () => api.requests()[api.requests().length - 1]!;

test('quantities and durations parse like Kubernetes writes them', () => {
  assert.is(parseQuantity('250m'), 0.25);
  assert.is(parseQuantity('1500000000n'), 1.5);
  assert.is(parseQuantity('2'), 2);
  assert.is(parseQuantity('1Gi'), 2 ** 30);
  assert.is(parseQuantity('123456Ki'), 123456 * 1024);
  assert.is(parseQuantity('1e3'), 1000);
  assert.is(parseQuantity('12M'), 12e6);
  assert.is(parseQuantity('abc'), undefined);
  assert.is(formatBytes(512 * 2 ** 20), '512Mi');
  assert.is(parseDuration('10m'), 600);
  assert.is(parseDuration('1h30m'), 5400);
  assert.is(parseDuration('10'), undefined);
});

test('k8s logs sends tailLines, sinceSeconds and container as query parameters and prints the lines', async () => {
  const r = await runCli(['k8s', 'logs', 'crashy-1', '--tail', '2', '--since', '10m', '-c', 'app', '-n', 'default'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  const req = last();
  assert.is(req.path, '/api/v1/namespaces/default/pods/crashy-1/log');
  assert.equal(req.query, { container: 'app', tailLines: '2', sinceSeconds: '600' });
  assert.is(r.stdout, 'recent 2\nrecent 3\n');
});

test('k8s logs -f streams until the server closes the stream', async () => {
  const r = await runCli(['k8s', 'logs', 'crashy-1', '-f', '--since', '2m', '-n', 'default'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.is(last().query.follow, 'true');
  assert.is(r.stdout, 'recent 3\nfollowed 1\nfollowed 2\n');
});

test('k8s logs of a pod that does not exist fails with not_found (exit 1)', async () => {
  const r = await runCli(['k8s', 'logs', 'nope', '-n', 'default'], { env: env() });
  assert.is(r.code, 1);
  assert.match(r.stderr, /error: not_found: /);
});

test('k8s get pods: a table of the namespace, -A every namespace, -o json the API list unmodified', async () => {
  const ns = await runCli(['k8s', 'get', 'pods', '-n', 'default'], { env: env() });
  assert.is(ns.code, 0, ns.stderr);
  assert.match(ns.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS/);
  assert.match(ns.stdout, /crashy-1\s+0\/1\s+Running\s+7/);
  assert.not.match(ns.stdout, /coredns/);
  assert.is(last().path, '/api/v1/namespaces/default/pods');
  const all = await runCli(['k8s', 'get', 'pods', '-A', '-o', 'json'], { env: env() });
  assert.is(all.code, 0, all.stderr);
  assert.is(last().path, '/api/v1/pods');
  const list = JSON.parse(all.stdout);
  assert.is(list.kind, 'PodList');
  assert.ok(list.items.some((p: any) => p.metadata.name === 'coredns-1'));
});

test('kubernetes.default_namespace "" reads every namespace; set, it is the default namespace; unset, the context\'s', async () => {
  const home = tempHome();
  writeFileSync(join(home, 'all.yaml'), 'kubernetes:\n  default_namespace: ""\n');
  writeFileSync(join(home, 'sys.yaml'), 'kubernetes:\n  default_namespace: kube-system\n');
  const all = await runCli(['--config', join(home, 'all.yaml'), 'k8s', 'get', 'deployments'], { env: env(), home });
  assert.is(all.code, 0, all.stderr);
  assert.is(last().path, '/apis/apps/v1/deployments');
  const sys = await runCli(['--config', join(home, 'sys.yaml'), 'k8s', 'get', 'services'], { env: env(), home });
  assert.is(sys.code, 0, sys.stderr);
  assert.is(last().path, '/api/v1/namespaces/kube-system/services');
  // Without -n or config, the context's own namespace, as kubectl does.
  const withNs = writeKubeconfig(tempDir('kcfg-'), api, { namespace: 'kube-system' });
  const ctxNs = await runCli(['k8s', 'get', 'pods'], { env: { KUBECONFIG: withNs }, home });
  assert.is(ctxNs.code, 0, ctxNs.stderr);
  assert.is(last().path, '/api/v1/namespaces/kube-system/pods');
});

test('k8s stats nodes --sort-by cpu: busiest first, usage against allocatable; -o json keeps numbers', async () => {
  const r = await runCli(['k8s', 'stats', 'nodes', '--sort-by', 'cpu'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0]!, /NAME\s+CPU\(cores\)\s+CPU%\s+MEMORY\(bytes\)\s+MEMORY%/);
  assert.match(lines[1]!, /^node-b\s+1500m\s+19%\s+512Mi\s+2%/);
  assert.match(lines[2]!, /^node-a\s+250m\s+6%\s+1\.0Gi\s+6%/);
  const byMemory = await runCli(['k8s', 'stats', 'nodes', '--sort-by', 'memory', '-o', 'json'], { env: env() });
  const rows = JSON.parse(byMemory.stdout);
  assert.equal(rows.map((x: any) => x.name), ['node-a', 'node-b']);
  assert.is(rows[0].memory_bytes, 2 ** 30);
  assert.is(rows[1].cpu_cores, 1.5);
});

test('k8s stats pods --all-namespaces --sort-by memory and stats cluster', async () => {
  const pods = await runCli(['k8s', 'stats', 'pods', '--all-namespaces', '--sort-by', 'memory', '-o', 'json'], { env: env() });
  assert.is(pods.code, 0, pods.stderr);
  assert.is(last().path, '/apis/metrics.k8s.io/v1beta1/pods');
  const mem = JSON.parse(pods.stdout).map((x: any) => x.memory_bytes);
  assert.equal(mem, [...mem].sort((a: number, b: number) => b - a));
  const cluster = await runCli(['k8s', 'stats', 'cluster', '-o', 'json'], { env: env() });
  const c = JSON.parse(cluster.stdout);
  assert.is(c.nodes, 2);
  assert.is(c.cpu_cores, 1.75);
  assert.is(c.cpu_allocatable_cores, 12);
});

test('k8s stats without metrics-server: a clear error saying how to install it (exit 1)', async () => {
  api.setMetrics(false);
  try {
    const r = await runCli(['k8s', 'stats', 'pods'], { env: env() });
    assert.is(r.code, 1);
    assert.match(r.stderr, /error: metrics_unavailable: .*metrics-server is not installed/);
    assert.match(r.stderr, /hint: install metrics-server: kubectl apply -f https:\/\/github.com\/kubernetes-sigs\/metrics-server/);
    assert.is(r.stdout, '');
  } finally {
    api.setMetrics(true);
  }
});

test('k8s ask with the built-in provider answers from the cluster context without a model', async () => {
  const r = await runCli(['k8s', 'ask', 'which pods are restarting?', '--ai-profile', 'builtin', '-n', 'default', '--agent-trace'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /crashy-1 \(7 restarts\)/);
  assert.match(r.stderr, /trace: routing -> gatheringContext/);
  const reads = api.requests().slice(-5).map((q) => q.path);
  assert.equal(reads, ['/api/v1/nodes', '/api/v1/namespaces/default/pods', '/apis/apps/v1/namespaces/default/deployments', '/api/v1/namespaces/default/services', '/api/v1/namespaces/default/events']);
});

test('k8s ask streams a model\'s answer from the cluster data and keeps the conversation per cluster', async () => {
  const srv = await startOpenAiServer();
  try {
    const home = tempHome();
    const dir = tempDir('kcfg-');
    const two = writeKubeconfig(dir, api, { context: 'prod', extraContexts: ['staging'] });
    const config = join(home, 'a.yaml');
    writeFileSync(config, `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`);
    const opts = { env: { KUBECONFIG: two, TEST_AI_KEY: 'sk-test-k8s-ask-0001' }, home };
    srv.reply({ text: 'crashy-1 restarts.', tokens: ['crashy-1 ', 'restarts.'] }, { text: 'second' }, { text: 'third' });
    const first = await runCli(['--config', config, 'k8s', 'ask', 'which pods restart?', '--cluster', 'prod', '-n', 'default'], opts);
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout, 'crashy-1 restarts.\n');
    const prompt = JSON.stringify(srv.chatRequests()[0]!.body.messages);
    assert.match(prompt, /Kubernetes cluster prod, namespace default/);
    assert.match(prompt, /crashy-1/);
    assert.match(JSON.stringify(srv.chatRequests()[0]!.body), /Kubernetes cluster/);
    // The same cluster sees the earlier turn; another cluster starts its own conversation.
    await runCli(['--config', config, 'k8s', 'ask', 'and now?', '--cluster', 'prod', '-n', 'default'], opts);
    await runCli(['--config', config, 'k8s', 'ask', 'and there?', '--cluster', 'staging', '-n', 'default'], opts);
    const [, same, other] = srv.chatRequests().map((r) => JSON.stringify(r.body.messages));
    assert.match(same!, /which pods restart\?/);
    assert.not.match(other!, /which pods restart\?/);
  } finally {
    await srv.close();
  }
});

test('k8s logs -f of a running pod streams until Ctrl-C, then exits 130 with every line printed', async () => {
  const live = await startKubeApi({ followLines: ['live 1'], followHold: true });
  const config = writeKubeconfig(tempDir('kcfg-'), live);
  try {
    const child = spawn(process.execPath, [BIN, 'k8s', 'logs', 'crashy-1', '-f', '-n', 'default'], { env: childEnv(tempHome(), { KUBECONFIG: config }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no streamed line: ${stdout}`)), CHILD_TIMEOUT_MS);
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('live 1\n')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    assert.is(await code, 130);
    assert.is(stdout, 'hello from crashy-1\nlive 1\n');
  } finally {
    await live.close();
  }
});

test('control characters in a pod name are shown escaped in the error, never raw (exit 2, nothing sent)', async () => {
  const before = api.requests().length;
  const r = await runCli(['k8s', 'logs', 'a\u001b[31mb', '-n', 'default'], { env: env() });
  assert.is(r.code, 2);
  assert.match(r.stderr, /pod "a\\u001b\[31mb" is not a valid Kubernetes name/);
  assert.not.ok(r.stderr.includes('\u001b'));
  assert.is(api.requests().length, before);
});

test.run();
