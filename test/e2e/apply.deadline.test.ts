/**
 * One deadline per command (issue 22 §2): `--timeout` ends an AI call that never answers, a deploy whose
 * clone stalls, a wait step and an MCP tool call, each with exit 1 (or a tool error) saying "timeout
 * after N s" — never "interrupted" (130), which belongs to Ctrl-C. A create in flight when the deadline
 * hits is reported as sent with an unknown outcome, and --resume finds it instead of creating it again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { runCli, tempHome, withEmulator, emulatorEnv } from '../support/cli.js';
import { callTool, connectHttp, errorOf, startMcpServer, textOf } from '../support/mcp.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { makeRepo, NODE_DOCKER, startGitHttp } from '../support/git-repos.js';
import { basename, dirname } from 'node:path';

const plan = (...commands: unknown[]) => JSON.stringify({ version: 1, provider: 'gpucloud', commands });
const clusterThenWait = plan(
  {
    args: ['gpucloud-api', 'POST', '/v1/clusters', JSON.stringify({ cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'slow-c', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
    reason: 'create',
    produces: { CLUSTER_ID: '$.id' },
  },
  { args: ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running', '600', '0.2'], reason: 'wait until it runs' },
);

// Deadlines are a few seconds: long enough for a CLI child on a busy 2-core machine to reach the wait
// it is to be cut in (the tests assert what was reached), short beside the minutes the waits would last.
test('--timeout ends ask while the AI server never answers: exit 1, "timeout after N s"', async () => {
  const ai = await startOpenAiServer();
  ai.setDefault({ text: 'too late', delayMs: 600_000 });
  try {
    await withEmulator(async ({ env }) => {
      const home = tempHome();
      const config = join(home, 'c.yaml');
      writeFileSync(config, `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: m\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${ai.baseURL}\n`, { mode: 0o600 });
      // The deadline must fall while the AI is being asked: a loaded machine may spend the first one
      // reading gpucloud before the CLI reaches the model; that run is repeated with a longer deadline
      // (bounded), and each run must end the same way.
      for (const seconds of [8, 20, 45]) {
        const r = await runCli(['--timeout', String(seconds), '--config', config, 'ask', '--gpucloud', 'which instances are idle?'], { env: { ...env, TEST_AI_KEY: 'k' }, home });
        assert.is(r.code, 1, r.stderr);
        assert.match(r.stderr, new RegExp(`timeout after ${seconds} s \\(--timeout\\)`));
        if (ai.chatRequests().length) break;
      }
      assert.ok(ai.chatRequests().length >= 1, 'the AI call was made, then cut');
    });
  } finally {
    await ai.close();
  }
});

test('--timeout ends deploy while the git server stalls, exit 1, nothing created', async () => {
  const repo = makeRepo('stalled', NODE_DOCKER);
  const git = await startGitHttp(dirname(repo.dir));
  git.hold(true);
  try {
    await withEmulator(async ({ emu, env }) => {
      const r = await runCli(['--timeout', '4', 'deploy', git.urlOf(basename(repo.dir)), '--location', 'FIN-01', '--apply'], { env });
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stderr, /timeout after 4 s \(--timeout\)/);
      assert.equal(emu.requests().filter((q) => q.method !== 'GET' && !q.path.includes('oauth2')), []);
    });
  } finally {
    git.hold(false);
    await git.close();
  }
});

test('a wait step under --timeout ends with exit 1 (timeout), not 130 (interrupted); the report shows what was sent', async () => {
  await withEmulator(
    async ({ env }) => {
      const r = await runCli(['--timeout', '10', 'ask', '--apply', '-o', 'json'], { env, input: clusterThenWait });
      assert.is(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.is(report.status, 'failed');
      assert.is(report.error.code, 'timeout');
      assert.match(report.error.message, /timeout after 10 s/);
      assert.equal(report.steps.map((s: { status: string }) => s.status), ['succeeded', 'failed']);
      assert.is(report.changes_sent, true);
    },
    { lifecycleMs: 600_000 },
  );
});

test('a create in flight when the deadline hits is "sent, outcome unknown"; --resume finds it and creates nothing twice', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    // The create is handled at once but answered after 20 s: it happens, the answer never arrives in time.
    emu.addFault({ method: 'POST', path: '/v1/instances', delayMs: 60_000, afterHandler: true });
    const input = plan({
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'in-flight', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] })],
      reason: 'create',
      produces: { INSTANCE_ID: '$.id' },
    });
    const r = await runCli(['--timeout', '10', 'ask', '--apply'], { env, home, input });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stdout, /step 0's create of instance "in-flight" was sent; its outcome is unknown \(--resume will find it instead of sending it again\)/);
    assert.not.match(r.stdout, /nothing was changed/);
    const resumed = await runCli(['ask', '--apply', '--resume', '-o', 'json'], { env, home, input });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(JSON.parse(resumed.stdout).steps[0].deduplicated, true);
    assert.is(emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 1, 'one create, ever');
  });
});

test('an MCP server started with --timeout bounds each tool call: a plan waiting on a cluster ends with a timeout error, and the server goes on', async () => {
  await withEmulator(
    async ({ emu }) => {
      const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(emu), globalArgs: ['--timeout', '3'] });
      const client = await connectHttp(server.url);
      try {
        const r = await callTool(client, 'assistant_plan_apply', { plan: JSON.parse(clusterThenWait) });
        assert.ok(r.isError, textOf(r));
        assert.is(r.structuredContent?.error?.code ?? errorOf(r).code, 'timeout');
        assert.match(textOf(r), /timeout after 3 s/);
        const list = await callTool(client, 'assistant_gpucloud_list', { resource: 'instances' });
        assert.not.ok(list.isError, textOf(list));
      } finally {
        await client.close();
        await server.stop();
      }
    },
    { lifecycleMs: 600_000 },
  );
});

test.run();
