/**
 * External agents over ACP: the client module (engine/producers/acp/client.ts) against a stand-in agent written
 * with the SDK's agent side (support/acp-agent.ts), and `talk --agent` relaying prompts, updates and
 * permission requests, surviving the agent's crash, and starting it with an allowlisted environment.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { startAcpAgent, type AcpAgent } from '../../engine/producers/acp/client.js';
import { agentEnvironment } from '../../engine/producers/acp/env.js';
import { configFile, runCli, tempHome } from '../support/cli.js';
import { HAVE_TMUX, startInTmux, type TmuxPane } from '../support/tmux.js';
import { standinGrants } from '../support/agent-sandbox.js';

const AGENT_JS = fileURLToPath(new URL('../support/acp-agent.js', import.meta.url));
const cleanup: string[] = [];
const agents: AcpAgent[] = [];
const panes: TmuxPane[] = [];
test.after.each(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(panes.splice(0).map((p) => p.close()));
});
test.after(() => cleanup.forEach((d) => rmSync(d, { recursive: true, force: true })));

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The stand-in as a binary (agent.path names one), logging to its own file; `config` grants its sandbox
 * this repository and the log's folder (talk runs agents contained). The talk runs below also say
 * --unsandboxed, which matters only where no sandbox can be made (test/e2e/agents.contained.test.ts proves
 * the containment and the refusal).
 */
function standin(): { path: string; log: string; config: string; entries: () => Record<string, any>[] } {
  const dir = mkdtempSync(join(tmpdir(), 'assistant-acp-'));
  cleanup.push(dir);
  const log = join(dir, 'agent.log');
  const path = join(dir, 'standin-agent');
  writeFileSync(path, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(AGENT_JS)} --log ${quote(log)} "$@"\n`, { mode: 0o755 });
  const entries = () => {
    try {
      return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  const config = configFile(`agent:\n${standinGrants(dir)}`);
  cleanup.push(join(config, '..'));
  return { path, log, config, entries };
}

async function start(path: string, opts: { model?: string; signal?: AbortSignal } = {}): Promise<AcpAgent> {
  const agent = await startAcpAgent({ command: path, env: agentEnvironment(process.env), cwd: tmpdir(), ...opts });
  agents.push(agent);
  return agent;
}

const refuse = async () => ({ outcome: 'cancelled' as const });

test('a prompt streams its updates in order and returns the message text', async () => {
  const s = standin();
  const agent = await start(s.path);
  assert.is(agent.name, 'standin-agent');
  const updates: SessionUpdate[] = [];
  const result = await agent.prompt('hello', { onUpdate: (u) => updates.push(u), onPermission: refuse });
  assert.equal(result, { stopReason: 'end_turn', text: 'echo: hello' });
  assert.equal(updates.map((u) => u.sessionUpdate), ['tool_call', 'tool_call_update', 'agent_message_chunk', 'agent_message_chunk']);
  assert.equal(s.entries().filter((e) => e.event === 'session').map((e) => e.cwd), [tmpdir()]);
});

test('a permission request goes to the user; only an offered option is an answer; a cancelled prompt cancels its question', async () => {
  const s = standin();
  const agent = await start(s.path);
  let asked: any;
  let r = await agent.prompt('permission', { onPermission: async (req) => ((asked = req), { outcome: 'selected', optionId: 'yes-once' }) });
  assert.is(asked.toolCall.title, 'delete the file notes.txt');
  assert.is(r.text, 'permission: yes-once');
  r = await agent.prompt('permission', { onPermission: async () => ({ outcome: 'selected', optionId: 'made-up' }) });
  assert.is(r.text, 'permission: cancelled', 'an option the agent did not offer is not an answer');
  const controller = new AbortController();
  r = await agent.prompt('permission', {
    signal: controller.signal,
    onPermission: (_req, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve({ outcome: 'selected', optionId: 'yes-once' }));
        controller.abort(); // the user pressed Ctrl-C while being asked
      }),
  });
  assert.is(r.stopReason, 'cancelled');
  const last = s.entries().filter((e) => e.event === 'permission').pop()!;
  assert.equal(last.outcome, { outcome: 'cancelled' }, 'the question was answered "cancelled", not with the late answer');
  assert.ok(s.entries().some((e) => e.event === 'cancel'), 'session/cancel was sent');
});

test('cancelling a streaming prompt sends session/cancel; the prompt ends "cancelled" with the text so far', async () => {
  const s = standin();
  const agent = await start(s.path);
  const controller = new AbortController();
  let chunks = 0;
  const r = await agent.prompt('slow', {
    signal: controller.signal,
    onPermission: refuse,
    onUpdate: (u) => {
      if (u.sessionUpdate === 'agent_message_chunk' && ++chunks === 3) controller.abort();
    },
  });
  assert.is(r.stopReason, 'cancelled');
  assert.match(r.text, /^tick0 tick1 tick2 /);
  assert.ok(s.entries().some((e) => e.event === 'cancel'));
  // The agent is still usable afterwards.
  assert.is((await agent.prompt('again', { onPermission: refuse })).text, 'echo: again');
});

test('an agent that dies mid-answer fails the prompt with agent_exited and its exit code; a missing binary is named', async () => {
  const s = standin();
  const agent = await start(s.path);
  const err = await agent.prompt('crash', { onPermission: refuse }).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  assert.is(err?.code, 'agent_exited');
  assert.match(err!.message, /exited with code 3/);
  assert.not.ok(agent.running);
  const missing = await startAcpAgent({ command: '/nonexistent/agent', env: {} }).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(missing!.message, /the agent \/nonexistent\/agent was not found/);
});

test("the model is chosen through the agent's model option when it offers that value", async () => {
  const s = standin();
  const chosen = await start(s.path, { model: 'standin-large' });
  assert.ok(chosen.modelChosen);
  assert.ok(s.entries().some((e) => e.event === 'config' && e.value === 'standin-large'));
  const other = await start(standin().path, { model: 'not-offered' });
  assert.not.ok(other.modelChosen);
  assert.ok(await chosen.setModel('standin-small'));
  assert.not.ok(await chosen.setModel('nope'));
});

test('closing the agent (or aborting its start signal) ends its process', async () => {
  const s = standin();
  const controller = new AbortController();
  const agent = await start(s.path, { signal: controller.signal });
  controller.abort();
  const exit = await agent.exited;
  assert.not.ok(agent.running);
  assert.ok(exit.signal !== null || exit.code !== null);
});

// ---- talk --agent -------------------------------------------------------------------------------

const home = () => {
  const h = tempHome('assistant-talk-acp-');
  cleanup.push(h);
  return h;
};

test('talk relays prompts and shows the tool calls; the agent gets an allowlisted environment with its settings', async () => {
  const s = standin();
  const cfg = configFile(`agent:\n  path: ${s.path}\n  model: standin-large\n  base_url: http://127.0.0.1:9/v1\n  router_api_key: router-key-abcdef123\n${standinGrants(join(s.log, '..'))}`);
  cleanup.push(join(cfg, '..'));
  const env = { GPUCLOUD_CLIENT_SECRET: 'gpucloud-secret-1', GITHUB_TOKEN: 'ghp_notsent', ANTHROPIC_API_KEY: 'sk-ant-notsent', TEST_AI_KEY: 'x', AWS_SECRET_ACCESS_KEY: 'aws' };
  const r = await runCli(['--config', cfg, 'talk', '--unsandboxed'], { home: home(), env, input: 'hello there\nenv\n' });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^echo: hello there$/m);
  assert.match(r.stderr, /^ {2}⚙ look around \(read\)$/m);
  assert.match(r.stderr, /^ {2}✓ look around$/m);
  const report = JSON.parse(/^env: (.*)$/m.exec(r.stdout)![1]!);
  for (const name of ['GPUCLOUD_CLIENT_SECRET', 'GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'TEST_AI_KEY', 'AWS_SECRET_ACCESS_KEY']) assert.not.ok(report.names.includes(name), `${name} must not reach the agent`);
  assert.ok(report.names.includes('PATH') && report.names.includes('HOME'));
  assert.is(report.model, 'standin-large');
  assert.is(report.base_url, 'http://127.0.0.1:9/v1');
  assert.is(report.key, 'set', 'the router key is passed');
  assert.not.ok(r.stdout.includes('router-key-abcdef123') || r.stderr.includes('router-key-abcdef123'));
  assert.ok(s.entries().some((e) => e.event === 'config' && e.value === 'standin-large'), 'and chosen over ACP too');
  assert.equal(s.entries().filter((e) => e.event === 'prompt').map((e) => e.text), ['hello there', 'env']);
});

test('talk survives the agent crashing: the next message starts it again with the conversation so far', async () => {
  const s = standin();
  const r = await runCli(['--config', s.config, 'talk', '--unsandboxed', '--agent', s.path], { home: home(), input: 'first\ncrash\nafter\n' });
  assert.is(r.code, 1, 'the crashed turn failed');
  assert.match(r.stderr, /^error: agent_exited: the agent \(standin-agent\) exited with code 3 in the middle of the answer$/m);
  assert.match(r.stderr, /it is started again, with the conversation so far, at your next message/);
  assert.match(r.stderr, /the agent had stopped: started standin-agent again and handed it the conversation so far \(1 turn\(s\)\)/);
  assert.match(r.stdout, /^echo: first$/m);
  assert.match(r.stdout, /^\(handed 1 earlier turn\(s\)\) echo: after$/m);
  const starts = s.entries().filter((e) => e.event === 'start');
  assert.is(starts.length, 2);
  assert.is.not(starts[0].pid, starts[1].pid);
  const replay = s.entries().filter((e) => e.event === 'prompt').pop()!.text as string;
  assert.match(replay, /User: first\nAssistant: echo: first\n\[End of context\]\n\nafter$/);
});

test("an agent's terminal escape sequences never reach the terminal", async () => {
  const s = standin();
  const r = await runCli(['--config', s.config, 'talk', '--unsandboxed', '--agent', s.path], { home: home(), input: 'escape\n' });
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(/[\u001b\u0007]/.test(r.stdout + r.stderr), JSON.stringify(r.stdout + r.stderr));
  // Whole sequences go, their parameters and payload with them (issue 36: not just the ESC, which left
  // `[2J[31mred[0m` and `]0;pwned` on the screen).
  assert.match(r.stdout, /^plain red text$/m);
  assert.match(r.stderr, /⚙ title here \(other\)/);
});

test('without a terminal a permission request is refused, never approved on the user’s behalf (not even with --yes)', async () => {
  const s = standin();
  const r = await runCli(['--config', s.config, '--yes', 'talk', '--unsandboxed', '--agent', s.path], { home: home(), input: 'permission\n' });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /the agent asks permission: delete the file notes\.txt \(delete\)\n {2}input: \{"path":"notes\.txt"\}\n {2}refused: there is no terminal to ask on/);
  assert.match(r.stdout, /^permission: no-once$/m);
});

if (HAVE_TMUX) {
  test('on a terminal the permission request is put to the user, and Ctrl-C cancels the agent’s answer', async () => {
    const s = standin();
    const pane = await startInTmux(['--config', s.config, 'talk', '--unsandboxed', '--agent', s.path], { home: home() });
    panes.push(pane);
    await pane.waitFor(/^talk> $/m, 'the prompt');
    await pane.line('permission');
    await pane.waitFor(/the agent asks permission: delete the file notes\.txt \(delete\)\n {2}input: \{"path":"notes\.txt"\}\n {2}1\) Allow once\n {2}2\) Reject\nChoose 1-2 \(Enter refuses\): $/, 'the question');
    await pane.line('2');
    await pane.waitFor(/permission: no-once\ntalk> $/, 'the refusal relayed');
    await pane.line('permission');
    await pane.waitFor(/(Choose 1-2 \(Enter refuses\): [\s\S]*){2}$/, 'the question again');
    await pane.line('1');
    await pane.waitFor(/permission: yes-once\ntalk> $/, 'the permission relayed');
    await pane.line('slow');
    await pane.waitFor(/tick3 /, 'the answer streaming');
    await pane.keys('C-c');
    await pane.waitFor(/interrupted: the agent was told to stop \(session\/cancel\)\ntalk> $/, 'the cancel');
    assert.ok(s.entries().some((e) => e.event === 'cancel'));
    await pane.keys('C-d');
    assert.is(await pane.exitCode(), 0);
  });
} else {
  test('SKIP the permission question on a terminal: tmux is not installed (apt-get install tmux)', () => undefined);
}

test.run();
