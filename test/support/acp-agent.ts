/**
 * A stand-in external agent for tests, written with the ACP SDK's agent side, run over stdio like a
 * real one (`node dist/test/support/acp-agent.js --log FILE`; tests wrap it in a tiny shell script, as
 * `agent.path` names a binary). What it does depends on the prompt:
 *
 * - anything: a tool call (pending → completed), then `echo: <prompt>` in two chunks; a prompt that
 *   starts with the handed-over conversation says how many earlier turns it was given;
 * - `permission`: asks permission for a tool call and says what the answer was;
 * - `crash`: says a word, then the process exits with code 3 mid-answer;
 * - `slow`: streams a chunk every 50 ms until cancelled (stop reason `cancelled`);
 * - `env`: answers with what its environment holds (names only, and the agent settings' values);
 * - `escape`: a tool title and a message carrying terminal escape sequences;
 * - `$ <command>`: a hostile agent: runs the command with sh and answers with what it printed (stdout
 *   and stderr), so a test can try to read what the agent must not see.
 *
 * Every prompt, cancel and start is appended to the --log file as a JSON line, with the process ID. In
 * a sandbox every agent is PID 2 of a PID namespace of its own, so the ID names the namespace too.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, readlinkSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const logFile = process.argv[process.argv.indexOf('--log') + 1];
const pidNamespace = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'host';
  }
})();
const pid = `${process.pid} in ${pidNamespace}`;
const log = (entry: Record<string, unknown>) => logFile && appendFileSync(logFile, JSON.stringify({ pid, ...entry }) + '\n');
log({ event: 'start' });

const cancelled = new Set<string>();
let sessions = 0;

const app = acp
  .agent({ name: 'standin-agent' })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
    agentInfo: { name: 'standin-agent', version: '1.0' },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    sessions++;
    log({ event: 'session', cwd: params.cwd });
    return {
      sessionId: `s-${process.pid}-${sessions}`,
      configOptions: [
        {
          id: 'model',
          name: 'Model',
          category: 'model',
          type: 'select' as const,
          currentValue: 'standin-small',
          options: [
            { value: 'standin-small', name: 'small' },
            { value: 'standin-large', name: 'large' },
          ],
        },
      ],
    };
  })
  .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
    log({ event: 'config', configId: params.configId, value: 'value' in params ? params.value : undefined });
    return { configOptions: [] };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    log({ event: 'cancel' });
    cancelled.add(params.sessionId);
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    log({ event: 'prompt', text });
    const say = (chunk: string) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } } });
    const last = text.split('\n').pop() ?? '';

    if (last === 'crash') {
      await say('about to');
      process.exit(3);
    }
    if (last === 'slow') {
      for (let i = 0; i < 2000 && !cancelled.has(params.sessionId); i++) {
        await say(`tick${i} `);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { stopReason: cancelled.delete(params.sessionId) ? 'cancelled' : 'end_turn' };
    }
    if (last === 'permission') {
      const answer = await client.request(acp.methods.client.session.requestPermission, {
        sessionId: params.sessionId,
        toolCall: { toolCallId: 'perm-1', title: 'delete the file notes.txt', kind: 'delete', rawInput: { path: 'notes.txt' } },
        options: [
          { optionId: 'yes-once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'no-once', name: 'Reject', kind: 'reject_once' },
        ],
      });
      log({ event: 'permission', outcome: answer.outcome });
      await say(`permission: ${answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled'}`);
      return { stopReason: 'end_turn' };
    }
    if (last === 'escape') {
      await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', toolCallId: 'esc-1', title: 'title \u001b]0;pwned\u0007here', kind: 'other' } });
      await say('plain \u001b[2J\u001b[31mred\u001b[0m text\r\n');
      return { stopReason: 'end_turn' };
    }
    if (last.startsWith('$ ')) {
      const r = spawnSync('sh', ['-c', last.slice(2)], { encoding: 'utf8', timeout: 20_000 });
      await say(`${r.stdout ?? ''}${r.stderr ?? ''}[exit ${r.status}]`);
      return { stopReason: 'end_turn' };
    }
    if (last === 'env') {
      const e = process.env;
      const report = {
        names: Object.keys(e).sort(),
        model: e.ASSISTANT_AGENT_MODEL,
        base_url: e.ASSISTANT_AGENT_BASE_URL,
        key: e.ASSISTANT_AGENT_API_KEY ? 'set' : 'unset',
      };
      await say(`env: ${JSON.stringify(report)}`);
      return { stopReason: 'end_turn' };
    }
    await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', toolCallId: 'look-1', title: 'look around', kind: 'read', status: 'pending' } });
    await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: 'look-1', status: 'completed' } });
    if (text.startsWith('[Context:')) await say(`(handed ${text.split('\nUser: ').length - 1} earlier turn(s)) `);
    await say('echo: ');
    await say(last);
    return { stopReason: 'end_turn' };
  });

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
void connection.closed.then(() => process.exit(0));
