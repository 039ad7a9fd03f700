/**
 * `assistant acp`: the assistant served as an ACP agent on stdio, driven by the SDK's own client as an
 * editor would. Questions answered from live reads, plans made, and /apply sent only after the
 * client's user allows the permission request (refused: nothing sent; allowed: applied once).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as acp from '@agentclientprotocol/sdk';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { BIN, childEnv, configFile, tempHome, withEmulator } from '../support/cli.js';

const cleanup: string[] = [];
test.after(() => cleanup.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Editor {
  conn: acp.ClientConnection;
  child: ChildProcess;
  stderr: () => string;
  /** Updates received, per session. */
  updates: acp.SessionUpdate[];
  /** What the user answers to the next permission request ('hang': never answers; `asked` is called). */
  answer: 'allow' | 'reject' | 'hang';
  asked?: () => void;
  permissions: acp.RequestPermissionRequest[];
  close(): Promise<void>;
}

async function editor(env: Record<string, string>, args: string[] = []): Promise<Editor> {
  const home = tempHome('assistant-acp-');
  cleanup.push(home);
  const cfg = configFile(`gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n`);
  cleanup.push(join(cfg, '..'));
  const child = spawn(process.execPath, [BIN, '--config', cfg, 'acp', '--ai-profile', 'builtin', ...args], { env: childEnv(home, env), cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const e: Editor = {
    child,
    stderr: () => stderr,
    updates: [],
    answer: 'reject',
    permissions: [],
    conn: undefined as unknown as acp.ClientConnection,
    close: async () => {
      e.conn.close();
      child.stdin!.end();
      await new Promise((r) => child.once('close', r));
    },
  };
  e.conn = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void e.updates.push(params.update))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      e.permissions.push(params);
      if (e.answer === 'hang') {
        e.asked?.();
        return new Promise(() => undefined);
      }
      const kind = e.answer === 'allow' ? 'allow_once' : 'reject_once';
      return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind)!.optionId } };
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  return e;
}

/** The agent's message text of the updates from `from` on. */
const textOf = (updates: acp.SessionUpdate[], from = 0) =>
  updates
    .slice(from)
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('');

test('an editor asks, makes a plan, and applies it only after allowing the permission request', async () => {
  await withEmulator(async ({ emu, env }) => {
    const posts = () => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length;
    const e = await editor(env);
    try {
      const init = await e.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      assert.is(init.protocolVersion, acp.PROTOCOL_VERSION);
      assert.is(init.agentInfo?.name, 'assistant');
      const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      const prompt = async (text: string) => {
        const from = e.updates.length;
        const r = await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
        return { stop: r.stopReason, text: textOf(e.updates, from), updates: e.updates.slice(from) };
      };

      let r = await prompt('what is my balance?');
      assert.is(r.stop, 'end_turn');
      assert.match(r.text, /Your balance is 1000\.00 USD\./);
      assert.ok(r.updates.some((u) => u.sessionUpdate === 'tool_call' && u.kind === 'read'), 'the reads show as tool calls');
      const commands = e.updates.find((u) => u.sessionUpdate === 'available_commands_update');
      assert.ok(commands && commands.sessionUpdate === 'available_commands_update' && commands.availableCommands.some((c) => c.name === 'maker'));

      r = await prompt('/maker create a 1V100.6V instance called acp-1 in FIN-01');
      assert.match(r.text, /POST \/v1\/instances\s+create 1V100\.6V instance acp-1/);
      assert.match(r.text, /Cost: [\d.]+\/hour/);

      e.answer = 'reject';
      r = await prompt('/apply');
      assert.is(e.permissions.length, 1);
      assert.match(e.permissions[0]!.toolCall.title!, /^Apply the plan: 1 step\(s\)$/);
      assert.is(e.permissions[0]!.toolCall.kind, 'execute');
      assert.match(r.text, /not applied: nothing was sent/);
      assert.is(posts(), 0);

      e.answer = 'allow';
      r = await prompt('/apply');
      assert.match(r.text, /succeeded: 1\/1 step\(s\) completed/);
      assert.ok(r.updates.some((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute' && /POST \/v1\/instances/.test(u.title)), 'the plan step shows as a tool call');
      assert.ok(r.updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed'));
      assert.is(posts(), 1);

      // Memory across prompts of a session, and errors reported as text.
      r = await prompt('/history');
      assert.match(r.text, /what is my balance\?/);
      r = await prompt('/aply');
      assert.match(r.text, /error: usage: unknown command \/aply\nhint: did you mean \/apply\?/);
    } finally {
      await e.close();
    }
    assert.not.match(e.stderr(), /error: internal/);
  });
});

test('a destructive plan is refused unless the server was started with --destroyer, and then needs the permission', async () => {
  await withEmulator(async ({ emu, env }) => {
    const changes = () => emu.requests().filter((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token').length;
    for (const destroyer of [false, true]) {
      const e = await editor(env, destroyer ? ['--destroyer'] : []);
      try {
        await e.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
        const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
        const prompt = async (text: string) => {
          const from = e.updates.length;
          await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
          return textOf(e.updates, from);
        };
        const made = await prompt('/maker delete instance demo-cpu');
        if (!destroyer) {
          assert.match(made, /error: refused:/, 'the maker itself refuses a destructive plan without --destroyer');
          continue;
        }
        e.answer = 'reject';
        const text = await prompt('/apply');
        assert.is(e.permissions.length, 1);
        assert.is(e.permissions[0]!.toolCall.kind, 'delete');
        assert.match(e.permissions[0]!.toolCall.title!, /DESTROYS demo-cpu/);
        assert.match(text, /not applied: nothing was sent/);
      } finally {
        await e.close();
      }
    }
    assert.is(changes(), 0);
  });
});

test('the permission request shows what the request asks for and costs, the plan’s own words after them, flagged when they disagree (issue 35 §5)', async () => {
  await withEmulator(async ({ emu, env }) => {
    const e = await editor(env);
    const dir = tempHome('assistant-acp-plan-');
    cleanup.push(dir);
    const file = join(dir, 'lying.json');
    const body = { instance_type: '8H100.80S.176V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'cheap-1', description: '', location_code: 'FIN-03', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] };
    writeFileSync(file, JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: 'create CPU.4V.16G instance cheap-1 (0.03/hour)' }] }));
    try {
      await e.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `/plan load ${file}` }] });
      e.answer = 'reject';
      await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/apply' }] });
      assert.is(e.permissions.length, 1);
      const call = e.permissions[0]!.toolCall;
      const content = call.content?.[0];
      const text = content?.type === 'content' && content.content.type === 'text' ? content.content.text : '';
      assert.match(text, /^ {2}0\. POST \/v1\/instances \(create of instance\)$/m);
      assert.match(text, /^ {5}asks for: instance 8H100\.80S\.176V in FIN-03; hostname cheap-1/m);
      assert.match(text, /^ {5}price: adds 17\.5\d+ USD\/hour/m);
      assert.ok(text.indexOf('asks for:') < text.indexOf('the plan says: create CPU.4V.16G instance cheap-1 (0.03/hour)'), text);
      assert.match(text, /! the plan's words do not match the request: it names CPU\.4V\.16G/);
      const raw = call.rawInput as { steps: { request: string; price: { price: string; per_hour: number }; mismatch: string[] }[] };
      assert.is(raw.steps[0]!.request, 'POST /v1/instances');
      assert.is(raw.steps[0]!.price.price, 'priced');
      assert.ok(raw.steps[0]!.mismatch.length > 0);
      assert.is(emu.requests().filter((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token').length, 0);
    } finally {
      await e.close();
    }
  });
});

test('cancelling a prompt (session/cancel) while the permission is asked ends it as cancelled, nothing sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const e = await editor(env);
    try {
      await e.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/maker create a 1V100.6V instance called acp-2 in FIN-01' }] });
      // This editor's user never answers; the editor cancels the turn while the question is open.
      e.answer = 'hang';
      const asked = new Promise<void>((r) => (e.asked = r));
      const pending = e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/apply' }] });
      await asked;
      await e.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      const r = await pending;
      assert.is(r.stopReason, 'cancelled');
      assert.is(emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 0);
    } finally {
      await e.close();
    }
  });
});

test.run();
