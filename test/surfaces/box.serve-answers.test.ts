/**
 * `box serve --agent assistant` answering: the real server in a child process against the gpucloud
 * emulator and a local OpenAI-compatible server (the real openai SDK in the box). JSON, SSE and
 * WebSocket answers; 50 concurrent sessions, each with its own history; a slow AI cut by the request
 * timeout; SIGTERM in the middle of an answer (finished within the drain, or cancelled after it).
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configFile, emulatorEnv } from '../support/cli.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openAiServerFor, type RecordedRequest } from '../support/openai-server.js';
import { boxAiConfig, openWs, postMessage, postSse, startBox, wsAsk, type BoxProcess } from '../support/box.js';

const KEY = 'sk-box-test-key-5d1e8a2b';
const srv = openAiServerFor(test);
let emu: Emulator;
const homes: string[] = [];
const configs: string[] = [];

test.before(async () => {
  emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
});
test.after(async () => {
  await emu.close();
  for (const p of [...homes, ...configs]) rmSync(p.endsWith('.yaml') ? p.slice(0, p.lastIndexOf('/')) : p, { recursive: true, force: true });
});

/** The question of a chat request (the ask flow ends its user message with `Question: …`). */
const questionOf = (r: RecordedRequest): string => /Question: (.*)$/m.exec(r.body.messages[r.body.messages.length - 1].content)?.[1] ?? '';

async function box(args: string[] = []): Promise<BoxProcess> {
  const config = configFile(boxAiConfig(srv.baseURL));
  configs.push(config);
  const b = await startBox(['--agent', 'assistant', ...args], { env: { ...emulatorEnv(emu), TEST_AI_KEY: KEY }, globalArgs: ['--config', config] });
  homes.push(b.home);
  return b;
}

test('an answer as JSON, then a follow-up in the same session sees the first exchange; the history route shows both', async () => {
  const b = await box();
  try {
    srv.reply({ text: 'You have 2 instances.' }, { text: 'demo-a100 is the GPU one.' });
    const first = await postMessage(b.url, { message: 'how many instances do I have?' });
    assert.is(first.status, 200, JSON.stringify(first.body));
    assert.is(first.body.answer, 'You have 2 instances.');
    assert.is(first.body.mode, 'answer');
    assert.equal(first.body.meta.providers, ['gpucloud']);
    const id = first.body.session_id;
    const second = await postMessage(b.url, { session_id: id, message: 'which one has a GPU?' });
    assert.is(second.status, 200);
    assert.is(second.body.session_id, id);
    const chat = srv.chatRequests()[1]!.body.messages.map((m: any) => `${m.role}: ${m.content}`);
    assert.ok(chat.includes('user: how many instances do I have?'), 'the first question is in the follow-up’s prompt');
    assert.ok(chat.includes('assistant: You have 2 instances.'));
    const history = await (await fetch(`${b.url}/v1/box/sessions/${id}`)).json() as any;
    assert.equal(history.turns.map((t: any) => [t.role, t.text]), [
      ['user', 'how many instances do I have?'],
      ['assistant', 'You have 2 instances.'],
      ['user', 'which one has a GPU?'],
      ['assistant', 'demo-a100 is the GPU one.'],
    ]);
    assert.is((await fetch(`${b.url}/v1/box/sessions/00000000-0000-4000-8000-000000000000`)).status, 404);
    const unknown = await postMessage(b.url, { session_id: '00000000-0000-4000-8000-000000000000', message: 'hi' });
    assert.is(unknown.status, 404);
    assert.is(unknown.body.error.code, 'session_not_found');
    assert.not.match(b.stderr(), new RegExp(KEY));
  } finally {
    await b.stop();
  }
});

test('SSE streams the session, the answer as it comes, the answer and the end; WebSocket does the same in frames', async () => {
  const b = await box();
  try {
    srv.reply({ text: 'Your balance is 1000 USD and nothing else is running today.', tokenDelayMs: 1 });
    const sse = await postSse(b.url, { message: 'what is my balance?' });
    assert.is(sse.status, 200);
    const names = sse.events.map((e) => e.event);
    assert.is(names[0], 'session');
    assert.ok(names.includes('token'), 'tokens streamed');
    assert.equal(names.slice(-2), ['answer', 'done']);
    const streamed = sse.events.filter((e) => e.event === 'token').map((e) => e.data.text).join('');
    assert.is(streamed, 'Your balance is 1000 USD and nothing else is running today.');
    assert.is(sse.events.at(-2)!.data.answer, streamed);

    srv.reply({ text: 'Two.' }, { text: 'Still two.' });
    const ws = await openWs(b.url);
    try {
      const frames = await wsAsk(ws, { type: 'message', id: 1, message: 'how many instances?' });
      assert.is(frames[0].type, 'session');
      const answer = frames.at(-1);
      assert.is(answer.type, 'answer');
      assert.is(answer.answer, 'Two.');
      const again = await wsAsk(ws, { type: 'message', id: 2, session_id: answer.session_id, message: 'and now?' });
      assert.is(again.at(-1).answer, 'Still two.');
      assert.is(again.at(-1).session_id, answer.session_id);
      const bad = await wsAsk(ws, { type: 'message', id: 3, message: '' });
      assert.is(bad.at(-1).type, 'error');
      assert.is(bad.at(-1).code, 'invalid_message');
    } finally {
      ws.close();
    }
  } finally {
    await b.stop();
  }
});

test('50 concurrent sessions each keep their own history', async () => {
  const b = await box();
  try {
    // The AI answers each question with its own words, so answers can be told apart.
    srv.setDefault((req) => ({ text: `noted: ${questionOf(req)}` }));
    const clients = Array.from({ length: 50 }, (_, i) => i);
    const firsts = await Promise.all(clients.map((i) => postMessage(b.url, { message: `I am client ${i}` })));
    for (const [i, r] of firsts.entries()) {
      assert.is(r.status, 200, `client ${i}: ${JSON.stringify(r.body)}`);
      assert.is(r.body.answer, `noted: I am client ${i}`);
    }
    const ids = firsts.map((r) => r.body.session_id);
    assert.is(new Set(ids).size, 50, 'fifty sessions');
    const seconds = await Promise.all(clients.map((i) => postMessage(b.url, { session_id: ids[i], message: `who am I, ${i}?` })));
    for (const [i, r] of seconds.entries()) assert.is(r.status, 200, `client ${i}`);
    for (const i of clients) {
      const chat = srv.chatRequests().find((r) => questionOf(r) === `who am I, ${i}?`)!;
      const earlier = chat.body.messages.filter((m: any) => /^I am client \d+$/.test(m.content)).map((m: any) => m.content);
      assert.equal(earlier, [`I am client ${i}`], `client ${i} sees its own history only`);
      const turns = ((await (await fetch(`${b.url}/v1/box/sessions/${ids[i]}`)).json()) as any).turns.map((t: any) => t.text);
      assert.equal(turns, [`I am client ${i}`, `noted: I am client ${i}`, `who am I, ${i}?`, `noted: who am I, ${i}?`]);
    }
  } finally {
    await b.stop();
  }
});

test('the session cap refuses a new session (503) but keeps serving the live ones; history is bounded', async () => {
  const b = await box(['--max-sessions', '2', '--history-turns', '2']);
  try {
    const a = await postMessage(b.url, { message: 'one' });
    const c = await postMessage(b.url, { message: 'two' });
    assert.is(a.status, 200);
    assert.is(c.status, 200);
    const third = await postMessage(b.url, { message: 'three' });
    assert.is(third.status, 503);
    assert.is(third.body.error.code, 'too_many_sessions');
    for (const m of ['a2', 'a3', 'a4']) assert.is((await postMessage(b.url, { session_id: a.body.session_id, message: m })).status, 200);
    const turns = ((await (await fetch(`${b.url}/v1/box/sessions/${a.body.session_id}`)).json()) as any).turns;
    assert.equal(turns.filter((t: any) => t.role === 'user').map((t: any) => t.text), ['a3', 'a4'], 'the last 2 exchanges');
  } finally {
    await b.stop();
  }
});

test('a slow AI server is cut by the request timeout: 504 timeout, and the box answers the next message', async () => {
  const b = await box(['--request-timeout', '8']);
  try {
    srv.reply({ text: 'far too late', delayMs: 600_000 });
    const r = await postMessage(b.url, { message: 'what is my balance?' });
    assert.is(r.status, 504, JSON.stringify(r.body));
    assert.is(r.body.error.code, 'timeout');
    assert.match(r.body.error.message, /within 8 s/);
    srv.reply({ text: 'quick' });
    const sse = await postSse(b.url, { message: 'and now?', session_id: r.body.session_id ?? undefined });
    assert.is(sse.events.at(-2)!.data.answer, 'quick');
    srv.reply({ text: 'too late again', delayMs: 600_000 });
    const cut = await postSse(b.url, { message: 'slow one' });
    const error = cut.events.find((e) => e.event === 'error');
    assert.is(error?.data.code, 'timeout', 'the SSE stream ends with an error event');
    assert.is(cut.events.at(-1)!.event, 'done');
  } finally {
    await b.stop();
  }
});

test('a second message to a session that is still answering is refused (409), not interleaved', async () => {
  const b = await box();
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    srv.reply({ text: 'first answer done now', restAfter: held });
    const events: string[] = [];
    let sessionId = '';
    const first = postSse(b.url, { message: 'slow question' }, {}, (e) => {
      events.push(e.event);
      if (e.event === 'session') sessionId = e.data.session_id;
    });
    while (!sessionId || srv.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 20));
    const second = await postMessage(b.url, { session_id: sessionId, message: 'impatient' });
    assert.is(second.status, 409);
    assert.is(second.body.error.code, 'session_busy');
    release();
    const done = await first;
    assert.is(done.events.at(-2)!.data.answer, 'first answer done now');
  } finally {
    await b.stop();
  }
});

test('a client that goes away mid-answer cancels it (SSE and WebSocket): the session is free at once, not at the timeout', async () => {
  const b = await box();
  try {
    srv.reply({ text: 'hello there' });
    const first = await postMessage(b.url, { message: 'hello' });
    const id = first.body.session_id;
    for (const via of ['sse', 'ws'] as const) {
      const before = srv.chatRequests().length;
      srv.reply({ text: 'never sent', restAfter: new Promise(() => undefined) });
      const gone = new AbortController();
      let ws: Awaited<ReturnType<typeof openWs>> | undefined;
      if (via === 'sse') {
        void postSse(b.url, { session_id: id, message: `hang (${via})` }, {}, undefined, gone.signal).catch(() => undefined);
      } else {
        ws = await openWs(b.url);
        ws.send(JSON.stringify({ type: 'message', session_id: id, message: `hang (${via})` }));
      }
      while (srv.chatRequests().length === before) await new Promise((r) => setTimeout(r, 20));
      const busy = (await (await fetch(`${b.url}/v1/box/sessions/${id}`)).json()) as any;
      assert.is(busy.busy, true, `${via}: answering`);
      if (ws) ws.terminate();
      else gone.abort();
      let session: any;
      do {
        await new Promise((r) => setTimeout(r, 20));
        session = await (await fetch(`${b.url}/v1/box/sessions/${id}`)).json();
      } while (session.busy);
      assert.is(session.turns.length, 2, `${via}: the cancelled message left no turn`);
    }
    srv.reply({ text: 'still here' });
    const next = await postMessage(b.url, { session_id: id, message: 'are you there?' });
    assert.is(next.status, 200);
    assert.is(next.body.answer, 'still here');
    assert.not.match(b.stderr(), /MaxListenersExceeded|Error:/);
  } finally {
    await b.stop();
  }
});

test('SIGTERM mid-answer: the answer in flight finishes within the drain, then the box exits 0', async () => {
  const b = await box(['--drain-timeout', '600']);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  srv.reply({ text: 'finished after the signal', restAfter: held });
  const answer = postSse(b.url, { message: 'long question' });
  while (srv.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 20));
  process.kill(b.pid, 'SIGTERM');
  await b.waitForStderr(/SIGTERM: stopping; 1 answer\(s\) in flight/);
  const health = (await fetch(`${b.url}/healthz`).catch(() => undefined))?.status ?? 'closed';
  assert.ok(health === 'closed' || health === 503, `no new work while draining (got ${health})`);
  release();
  const done = await answer;
  assert.is(done.events.at(-2)!.data.answer, 'finished after the signal');
  assert.is(await b.exited, 0);
  assert.match(b.stderr(), /box stopped: 1 in-flight answer\(s\) finished, 0 cancelled/);
});

test('SIGTERM mid-answer: an answer still running when the drain ends is cancelled (shutting_down), then the box exits 0', async () => {
  const b = await box(['--drain-timeout', '1']);
  srv.reply({ text: 'never finished', restAfter: new Promise(() => undefined) });
  const answer = postSse(b.url, { message: 'endless question' });
  while (srv.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 20));
  process.kill(b.pid, 'SIGTERM');
  const done = await answer;
  const error = done.events.find((e) => e.event === 'error');
  assert.is(error?.data.code, 'shutting_down');
  assert.is(await b.exited, 0);
  assert.match(b.stderr(), /box stopped: 0 in-flight answer\(s\) finished, 1 cancelled/);
});

test.run();
