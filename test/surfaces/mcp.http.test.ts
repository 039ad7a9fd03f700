/**
 * `assistant mcp` over Streamable HTTP, driven by the MCP SDK's own client, backed by the emulator.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startEmulator, EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { kindNames } from '../../engine/providers/gpucloud/catalogue.js';
import { emulatorEnv, tempHome, withEmulator } from '../support/cli.js';
import { until } from '../support/wait.js';
import { callTool, connectHttp, errorOf, rawInitialize, rawPost, startMcpServer, textOf, TOOL_NAMES, type McpProcess } from '../support/mcp.js';
import { createInstanceStep, gpucloudPlan } from '../support/plans.js';

const ctx = { emu: undefined as unknown as Emulator, server: undefined as unknown as McpProcess, client: undefined as unknown as Client };
const test = suite('mcp over http');

function homeWithConfig(extra = ''): string {
  const home = tempHome('assistant-mcp-');
  writeFileSync(
    join(home, '.assistant.yaml'),
    `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n  default_location: FIN-01\n${extra}`,
    { mode: 0o600 },
  );
  return home;
}

const volumePlan = (name: string) => ({
  version: 1,
  provider: 'gpucloud',
  commands: [
    {
      args: ['gpucloud-api', 'POST', '/v1/volumes', JSON.stringify({ type: 'NVMe', location_code: '<DEFAULT_LOCATION>', size: 50, name })],
      reason: 'create a scratch volume',
      produces: { VOLUME_ID: '$.id' },
    },
  ],
});
const deletePlan = {
  version: 1,
  provider: 'gpucloud',
  commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action: 'delete', id: EMULATOR_DEMO_IDS.offlineInstance })], reason: 'delete demo-cpu' }],
};

test.before(async () => {
  ctx.emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  ctx.server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: emulatorEnv(ctx.emu), home: homeWithConfig() });
  ctx.client = await connectHttp(ctx.server.url);
});

test.after(async () => {
  await ctx.client?.close();
  assert.is(await ctx.server?.stop(), 0, 'the server exits 0 on Ctrl-C');
  await ctx.emu?.close();
});

test('initialize negotiates protocol version 2025-03-26 and returns a session', async () => {
  const res = await rawInitialize(ctx.server.url);
  assert.is(res.status, 200);
  assert.ok(res.sessionId, 'a session id header');
  assert.match(res.body, /"protocolVersion":"2025-03-26"/);
  assert.match(res.body, /"serverInfo":\{"name":"assistant"/);
});

test('the newer protocol versions the SDK knows are negotiated too', async () => {
  for (const version of ['2025-06-18', '2025-11-25']) {
    const res = await rawInitialize(ctx.server.url, {}, version);
    assert.is(res.status, 200);
    assert.match(res.body, `"protocolVersion":"${version}"`);
  }
});

test('tools/list offers the thirteen tools with input and output schemas and honest annotations', async () => {
  const { tools } = await ctx.client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(Object.keys(byName).sort(), TOOL_NAMES);
  for (const t of tools) {
    assert.ok(t.description && t.description.length > 40, `${t.name} has a description an agent can act on`);
    assert.is(t.inputSchema.type, 'object');
    assert.ok(t.outputSchema, `${t.name} declares its structured output`);
    assert.type(t.annotations?.readOnlyHint, 'boolean');
  }
  assert.is(byName.assistant_gpucloud_list!.annotations!.readOnlyHint, true);
  assert.is(byName.assistant_plan_apply!.annotations!.destructiveHint, true);
  assert.is(byName.assistant_plan_apply!.annotations!.readOnlyHint, false);
  assert.ok((byName.assistant_gpucloud_list!.inputSchema.properties as Record<string, unknown>).resource);
});

test('assistant_gpucloud_list returns the instances as a table and as structured records', async () => {
  const r = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'instances' });
  assert.not.ok(r.isError);
  assert.is(r.structuredContent.resource, 'instances');
  const hostnames = r.structuredContent.items.map((i: { hostname: string }) => i.hostname);
  assert.ok(hostnames.includes('demo-a100') && hostnames.includes('demo-cpu'));
  assert.is(r.structuredContent.count, r.structuredContent.items.length);
  assert.match(textOf(r), /demo-a100/);
  assert.match(textOf(r), /^ID\s+HOSTNAME/m, 'the table shows the IDs');
  const a = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'availability' });
  assert.match(textOf(a), /^FIN-01\s+1V100\.6V$/m, 'availability: one row per location and type');
});

test('assistant_gpucloud_list serves every kind of the catalogue', async () => {
  const failures: string[] = [];
  for (const kind of kindNames()) {
    const r = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: kind });
    if (r.isError) failures.push(`${kind}: ${textOf(r)}`);
  }
  assert.equal(failures, []);
});

test('an unknown resource is a tool error naming the kinds', async () => {
  const r = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'spaceships' });
  assert.is(r.isError, true);
  assert.is(errorOf(r).code, 'usage');
  assert.match(errorOf(r).hint ?? '', /instances/);
  assert.match(textOf(r), /unknown resource kind "spaceships"/);
});

test('assistant_gpucloud_get finds an instance by hostname', async () => {
  const r = await callTool(ctx.client, 'assistant_gpucloud_get', { kind: 'instance', id_or_hostname: 'demo-a100' });
  assert.not.ok(r.isError);
  assert.is(r.structuredContent.kind, 'instances');
  assert.is(r.structuredContent.record.id, EMULATOR_DEMO_IDS.runningInstance);
});

test('a gpucloud error becomes a tool error with its code and hint', async () => {
  const r = await callTool(ctx.client, 'assistant_gpucloud_get', { kind: 'instance', id_or_hostname: '00000000-0000-4000-8000-000000000000' });
  assert.is(r.isError, true);
  assert.is(errorOf(r).code, 'not_found');
  assert.match(errorOf(r).hint ?? '', /list/);

  ctx.emu.addFault({ method: 'GET', path: '/v1/balance', status: 403, code: 'forbidden_action', message: 'not allowed', times: 1 });
  const f = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'balance' });
  assert.is(f.isError, true);
  assert.is(errorOf(f).code, 'forbidden_action');
  assert.ok(errorOf(f).hint);
});

test('assistant_route_question reports the provider and the matched terms without executing', async () => {
  const before = ctx.emu.requests().length;
  const r = await callTool(ctx.client, 'assistant_route_question', { question: 'how many instant clusters do I have on gpucloud?' });
  assert.not.ok(r.isError);
  assert.equal(r.structuredContent.providers, ['gpucloud']);
  assert.ok(r.structuredContent.reasons[0].terms.length > 0);
  assert.ok(r.structuredContent.kinds.includes('clusters'));
  assert.is(ctx.emu.requests().length, before, 'no request reached gpucloud');
});

test('assistant_plan_validate previews a valid plan with its cost and sends no change', async () => {
  const plan = gpucloudPlan(createInstanceStep('mcp-preview', { image: 'ubuntu-24.04', description: 'x', location: '<DEFAULT_LOCATION>' }));
  const r = await callTool(ctx.client, 'assistant_plan_validate', { plan });
  assert.not.ok(r.isError, textOf(r));
  assert.is(r.structuredContent.valid, true);
  assert.ok(r.structuredContent.preview.total_per_hour > 0, 'a cost per hour');
  assert.ok(ctx.emu.requests().every((q) => q.method === 'GET' || q.path === '/v1/oauth2/token'), 'only GETs were sent');
});

test('assistant_plan_validate lists every problem of an invalid plan', async () => {
  const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances/<NOT_BOUND>'], reason: 'x' }, { args: ['gpucloud-api', 'FETCH', '/v1/x'], reason: 'y' }] };
  const r = await callTool(ctx.client, 'assistant_plan_validate', { plan: JSON.stringify(plan) });
  assert.not.ok(r.isError);
  assert.is(r.structuredContent.valid, false);
  assert.ok(r.structuredContent.problems.length >= 2);
  assert.match(textOf(r), /NOT_BOUND/);
});

test('assistant_plan_apply runs a plan and returns the run report', async () => {
  const r = await callTool(ctx.client, 'assistant_plan_apply', { plan: volumePlan('mcp-scratch') });
  assert.not.ok(r.isError, textOf(r));
  assert.is(r.structuredContent.status, 'succeeded');
  assert.ok(r.structuredContent.bindings.VOLUME_ID);
  const list = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'volumes' });
  assert.ok(list.structuredContent.items.some((v: { name: string }) => v.name === 'mcp-scratch'));
});

test('assistant_plan_apply reports increasing progress per step to a client that asks for it', async () => {
  const plan = volumePlan('mcp-progress');
  plan.commands.push({ args: ['gpucloud-api', 'GET', '/v1/volumes/<VOLUME_ID>'], reason: 'read it back' } as never);
  const seen: { progress: number; total?: number; message?: string }[] = [];
  const r = (await ctx.client.callTool({ name: 'assistant_plan_apply', arguments: { plan } }, undefined, {
    onprogress: (p) => seen.push(p),
    resetTimeoutOnProgress: true,
  })) as { isError?: boolean; structuredContent?: { status: string } };
  assert.not.ok(r.isError);
  assert.is(r.structuredContent?.status, 'succeeded');
  assert.ok(seen.length >= 3, `got ${seen.length} notifications`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, 'progress only increases');
  assert.is(seen.at(-1)!.progress, 2);
  assert.is(seen.at(-1)!.total, 2);
  assert.match(seen[0]!.message ?? '', /step 1\/2/);
});

test('an agent retrying a failed apply cannot repeat its create: mode new is refused, resume continues after it', async () => {
  const plan = volumePlan('mcp-resume');
  plan.commands.push({ args: ['gpucloud-api', 'GET', '/v1/volumes/<VOLUME_ID>'], reason: 'read it back' } as never);
  const posts = () => ctx.emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/volumes').length;
  const before = posts();
  ctx.emu.addFault({ method: 'GET', path: '/v1/volumes/*', status: 404, code: 'not_found', message: 'gone', times: 1 });
  const failed = await callTool(ctx.client, 'assistant_plan_apply', { plan });
  assert.is(failed.isError, true);
  assert.is(failed.structuredContent.status, 'failed');
  assert.is(failed.structuredContent.steps[0].status, 'succeeded');
  assert.match(textOf(failed), /already changed: steps 0\.\.0 completed before the failure/, 'the same report text as ask --apply');
  assert.match(textOf(failed), /^error: not_found: /m);

  const again = await callTool(ctx.client, 'assistant_plan_apply', { plan });
  assert.is(again.isError, true);
  assert.is(errorOf(again).code, 'refused');
  assert.match(errorOf(again).hint ?? '', /resume/);

  const resumed = await callTool(ctx.client, 'assistant_plan_apply', { plan, mode: 'resume' });
  assert.not.ok(resumed.isError, textOf(resumed));
  assert.is(resumed.structuredContent.status, 'succeeded');
  assert.is(posts() - before, 1, 'the volume was created once');
});

test('a volume name that already exists: assistant_plan_validate reports it, assistant_plan_apply refuses it unless allow_duplicate_names', async () => {
  const first = await callTool(ctx.client, 'assistant_plan_apply', { plan: volumePlan('mcp-dup') });
  assert.not.ok(first.isError, textOf(first));
  const existing = first.structuredContent.bindings.VOLUME_ID;
  const edited = volumePlan('mcp-dup');
  edited.commands[0]!.reason = 'the same volume again, from an edited plan';
  const v = await callTool(ctx.client, 'assistant_plan_validate', { plan: edited });
  assert.equal(v.structuredContent.duplicate_names, [{ index: 0, kind: 'volume', name: 'mcp-dup', existing_ids: [existing] }]);
  assert.match(textOf(v), /step 0 creates volume "mcp-dup", which already exists/);

  const posts = () => ctx.emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/volumes').length;
  const before = posts();
  const refused = await callTool(ctx.client, 'assistant_plan_apply', { plan: edited });
  assert.is(errorOf(refused).code, 'refused');
  assert.match(errorOf(refused).message, new RegExp(`step 0 creates volume "mcp-dup", which already exists \\(${existing}\\)`));
  assert.is(posts(), before, 'nothing was sent');
  const allowed = await callTool(ctx.client, 'assistant_plan_apply', { plan: edited, allow_duplicate_names: true });
  assert.not.ok(allowed.isError, textOf(allowed));
  assert.is(posts(), before + 1);
});

test('two concurrent applies of one plan by agents: one runs, the other is refused naming the run', async () => {
  const plan = volumePlan('mcp-concurrent');
  const creates = () => ctx.emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/volumes' && q.body?.includes('mcp-concurrent'));
  // The first apply's create is held at the emulator until the second apply has been answered, so the
  // two overlap however slow the machine is (a fixed delay let the first finish first under load).
  let release!: () => void;
  ctx.emu.addFault({ method: 'POST', path: '/v1/volumes', until: new Promise<void>((resolve) => (release = resolve)) });
  const first = callTool(ctx.client, 'assistant_plan_apply', { plan });
  await until(() => creates().length === 1, 'the first apply sent its create');
  const second = await callTool(ctx.client, 'assistant_plan_apply', { plan });
  release();
  const results = [await first, second];
  const ran = results.filter((r) => !r.isError);
  const refused = results.filter((r) => r.isError);
  assert.is(ran.length, 1, results.map(textOf).join('\n'));
  assert.is(errorOf(refused[0]!).code, 'refused');
  assert.match(errorOf(refused[0]!).message, /another run of this plan is in progress \(pid \d+/);
  assert.is(creates().length, 1);
});

test('refusal hints speak to agents: they name the tool argument to set (mode, allow_duplicate_names), never a CLI flag', async () => {
  const hintOf = (r: Awaited<ReturnType<typeof callTool>>) => {
    assert.ok(r.isError, textOf(r));
    const thrown = r.structuredContent ? '' : (errorOf(r).hint ?? '');
    return `${thrown} ${r.structuredContent?.error?.hint ?? ''} ${textOf(r)}`;
  };
  const plan = volumePlan('mcp-hints');
  const first = await callTool(ctx.client, 'assistant_plan_apply', { plan });
  assert.not.ok(first.isError, textOf(first));
  const again = hintOf(await callTool(ctx.client, 'assistant_plan_apply', { plan }));
  assert.match(again, /mode "fresh"/);
  assert.not.match(again, /--fresh|--resume/);
  const edited = volumePlan('mcp-hints');
  edited.commands[0]!.reason = 'the same name from another plan';
  const duplicate = hintOf(await callTool(ctx.client, 'assistant_plan_apply', { plan: edited }));
  assert.match(duplicate, /allow_duplicate_names: true/);
  assert.not.match(duplicate, /--allow-duplicate-names/);
  const destructive = hintOf(await callTool(ctx.client, 'assistant_plan_apply', { plan: deletePlan }));
  assert.match(destructive, /restart it with --destroyer \(a server setting/);
  assert.not.match(destructive, /run again with --destroyer/);
});

test('assistant_plan_apply refuses a destructive plan on a server without --destroyer and sends nothing', async () => {
  const before = ctx.emu.requests().filter((q) => q.method === 'PUT').length;
  const r = await callTool(ctx.client, 'assistant_plan_apply', { plan: deletePlan });
  assert.is(r.isError, true);
  assert.is(errorOf(r).code, 'refused');
  assert.match(textOf(r), /destructive/);
  assert.is(ctx.emu.requests().filter((q) => q.method === 'PUT').length, before, 'no PUT reached gpucloud');
  const still = await callTool(ctx.client, 'assistant_gpucloud_get', { kind: 'instance', id_or_hostname: 'demo-cpu' });
  assert.not.ok(still.isError);
});

test('requests with a foreign Host or Origin are refused with 403 (DNS rebinding)', async () => {
  const port = new URL(ctx.server.url).port;
  assert.is((await rawInitialize(ctx.server.url, { host: 'evil.example.com' })).status, 403);
  assert.is((await rawInitialize(ctx.server.url, { origin: 'http://evil.example.com' })).status, 403);
  assert.is((await rawInitialize(ctx.server.url, { origin: `http://127.0.0.1:${Number(port) + 1}` })).status, 403, 'another port is another origin');
  assert.is((await rawInitialize(ctx.server.url, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status, 200);
});

test('a request body over the limit is refused with 413', async () => {
  const res = await rawPost(ctx.server.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
  assert.is(res.status, 413);
});

test('credentials never appear in results or in the server log, even when a plan carries them', async () => {
  // The preview echoes request bodies: one holding the client secret must come back masked.
  const plan = {
    version: 1,
    provider: 'gpucloud',
    commands: [{ args: ['gpucloud-api', 'POST', '/v1/secrets', JSON.stringify({ name: 'leak', value: ctx.emu.clientSecret })], reason: 'store a secret' }],
  };
  const r = await callTool(ctx.client, 'assistant_plan_validate', { plan });
  assert.not.ok(r.isError, textOf(r));
  assert.is(r.structuredContent.preview.steps[0].body.value, '***');
  assert.not.ok(JSON.stringify(r).includes(ctx.emu.clientSecret));
  assert.not.ok(ctx.server.stderr().includes(ctx.emu.clientSecret));
});

test('an ambiguous name in assistant_gpucloud_get is an error whose text lists the IDs to use', async () => {
  // Two applies (one plan may not create a name twice), the second allowed to repeat the name on purpose.
  const made = await callTool(ctx.client, 'assistant_plan_apply', { plan: volumePlan('twin-vol') });
  assert.not.ok(made.isError, textOf(made));
  const again = await callTool(ctx.client, 'assistant_plan_apply', { plan: { ...volumePlan('twin-vol'), summary: 'the twin' }, allow_duplicate_names: true });
  assert.not.ok(again.isError, textOf(again));
  const listed = await callTool(ctx.client, 'assistant_gpucloud_list', { resource: 'volumes' });
  const ids = (listed.structuredContent.items as { id: string; name: string }[]).filter((v) => v.name === 'twin-vol').map((v) => v.id);
  assert.is(ids.length, 2);
  const r = await callTool(ctx.client, 'assistant_gpucloud_get', { kind: 'volume', id_or_hostname: 'twin-vol' });
  assert.is(r.isError, true);
  assert.is(errorOf(r).code, 'ambiguous');
  for (const id of ids) assert.ok(textOf(r).includes(id), `${id} in:\n${textOf(r)}`);
});

test.run();

const gated = suite('mcp server options');

/** A server of the test's own (flags `args`, `env` beside the emulator's, `home`) on an emulator of its own; both stopped after, pass or fail. */
function withOwnServer(args: string[], fn: (server: McpProcess, emu: Emulator) => Promise<void>, o: { env?: Record<string, string>; home?: string; emulator?: EmulatorOptions } = {}): Promise<void> {
  return withEmulator(async ({ emu, env }) => {
    const server = await startMcpServer(args, { env: { ...env, ...o.env }, home: o.home ?? homeWithConfig() });
    try {
      await fn(server, emu);
    } finally {
      await server.stop();
    }
  }, o.emulator);
}

gated('a server started with --destroyer applies a destructive plan', () =>
  withOwnServer(['--listen', '127.0.0.1:0', '--destroyer'], async (server) => {
    const client = await connectHttp(server.url);
    try {
      const r = await callTool(client, 'assistant_plan_apply', { plan: deletePlan });
      assert.not.ok(r.isError, textOf(r));
      assert.is(r.structuredContent.status, 'succeeded');
    } finally {
      await client.close();
    }
  }));

gated('with --auth-token only requests carrying the bearer token are served', () => {
  const token = 'tok-py_zFLk83ruO1Sv_qhjwo1RnGDP3NPLEiIrd2wvA'; // random: weak tokens are refused
  return withOwnServer(['--listen', '127.0.0.1:0'], async (server) => {
    assert.is((await rawInitialize(server.url)).status, 401);
    assert.is((await rawInitialize(server.url, { authorization: `Bearer ${token}x` })).status, 401);
    assert.is((await rawInitialize(server.url, { authorization: `Bearer ${token}` })).status, 200);
    const client = await connectHttp(server.url, { authorization: `Bearer ${token}` });
    const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'locations' });
    assert.not.ok(r.isError);
    await client.close();
    assert.not.ok(server.stderr().includes(token), 'the token is never printed');
  }, { env: { ASSISTANT_MCP_AUTH_TOKEN: token } });
});

gated('on every interface (0.0.0.0) any Host is served with the token and none without it', () => {
  const token = 'tok-e71b2a00572750df4c306a3a306279ac9e1efd9a4fc1b67d'; // random: weak tokens are refused
  return withOwnServer(['--listen', '0.0.0.0:0'], async (server) => {
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    assert.is((await rawInitialize(url, { host: 'gpu-admin.internal:39393' })).status, 401);
    assert.is((await rawInitialize(url, { host: 'gpu-admin.internal:39393', authorization: `Bearer ${token}` })).status, 200);
  }, { env: { ASSISTANT_MCP_AUTH_TOKEN: token } });
});

gated('listening off loopback without a token is refused before binding (exit 2)', async () => {
  const { runCli } = await import('../support/cli.js');
  const r = await runCli(['mcp', '--listen', '0.0.0.0:0']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /bearer token/);
  assert.match(r.stderr, /ASSISTANT_MCP_AUTH_TOKEN/);
});

gated('50 concurrent tool calls from five agents share one client and never meet a 429', async () => {
  const limits = { perProject: 100, perPath: 20, windowMs: 1000 };
  const home = homeWithConfig(`  rate_limit:\n    per_project: ${limits.perProject}\n    per_path: ${limits.perPath}\n    window_ms: ${limits.windowMs}\n`);
  await withOwnServer(['--listen', '127.0.0.1:0'], async (server, emu) => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => connectHttp(server.url)));
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => callTool(clients[i % 5]!, 'assistant_gpucloud_list', { resource: 'instances' })),
      );
      const elapsed = Date.now() - started;
      assert.equal(results.filter((r) => r.isError).map(textOf), []);
      assert.is(emu.stats().status429, 0, 'the emulator never answered 429');
      // 50 GETs of one path at 20 per second take at least two full windows: the limiter really held them.
      assert.ok(elapsed >= 2 * limits.windowMs - 100, `took ${elapsed} ms`);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, { home, emulator: { rateLimit: limits } });
});

gated.run();
