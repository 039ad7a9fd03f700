/**
 * The ask flow as actors (issue 23, item 3): the machine runs whatever actors it is provided with, its
 * one observer hears every event in order, a failing read ends in `failed`, and the context signal
 * stops the flow mid-read. Reads are real HTTP to the emulator (or to a server that never answers);
 * the model is the local OpenAI-compatible server through the real openai SDK.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { fromPromise } from 'xstate';
import { askFlowMachine, runAskFlow, type AskActors, type AskEvent, type AskFlowInput, type ContextRead, type ReadContextInput } from '../../machines/ask/ask-flow.js';
import { cloudActors, cloudReadContext } from '../../machines/ask/ask.js';
import { commandContext, type CommandContext } from '../../commands/context.js';
import { openSession, type Session } from '../../commands/session.js';
import { InterruptedError, OperationError } from '../../engine/core/errors.js';
import { AI_DEFAULTS, type Config } from '../../schemas/config.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { withEmulator } from '../support/cli.js';
import { openAiServerFor } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

const srv = openAiServerFor(test);

function context(env: Record<string, string>, interrupt?: AbortSignal): CommandContext {
  const home = tempDir('assistant-ask-actors-');
  return commandContext(
    {
      io: { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
      env: { ...env, HOME: home },
      home,
      globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
    },
    interrupt,
  );
}

/** A real session (config, providers, gpucloud client) for `env`, closed after `fn`. */
async function withSession<T>(env: Record<string, string>, fn: (session: Session, ctx: CommandContext) => Promise<T>, interrupt?: AbortSignal): Promise<T> {
  const ctx = context(env, interrupt);
  const session = await openSession(ctx);
  try {
    return await fn(session, ctx);
  } finally {
    await session.close();
  }
}

/** The flow's input for a session: its config with `ai` (an AI section of this test), the question, no history file. */
function inputFor(session: Session, ctx: CommandContext, question: string, ai?: Config['ai'], signal?: AbortSignal): AskFlowInput {
  return {
    question,
    providers: ['gpucloud'],
    history: false,
    context: { backend: { ...session, config: { ...session.config, ...(ai ? { ai } : {}) } }, home: ctx.home, env: ctx.env, signal: signal ?? ctx.signal, ai: ai ? undefined : { profile: 'builtin' } },
  };
}

/** The `ai` section of a config whose one provider is the local OpenAI-compatible server. */
function aiSection(sizes: { max_prompt_chars?: number; chunk_chars?: number; max_chunks?: number } = {}): Config['ai'] {
  return { ...AI_DEFAULTS, ...sizes, providers: { openai: { api_key: 'sk-actors-test-123456', model: 'actors-model', local_model_inference_url: srv.baseURL } } } as Config['ai'];
}

const run = (actors: Partial<AskActors>, input: AskFlowInput, events: AskEvent[] = []) =>
  runAskFlow(askFlowMachine.provide({ actors: { ...cloudActors(), ...actors } }), input, (e) => events.push(e));

const phases = (events: AskEvent[]) => events.flatMap((e) => (e.type === 'ask.phase' ? [`${e.from} -> ${e.to}`] : []));

test('the machine runs with the actors it is provided: the real context read over HTTP to the emulator and a built-in answer', async () => {
  await withEmulator(async ({ emu, env }) => {
    await withSession(env, async (session, ctx) => {
      const before = emu.requests().length;
      const out = await run(
        {
          readContext: cloudReadContext(),
          answer: fromPromise(async ({ input }) => {
            const instances = input.results.find((r) => r.kind === 'instances')!.data as { hostname: string }[];
            return { answer: `hosts: ${instances.map((i) => i.hostname).sort().join(', ')}`, sizes: { system: 0, context: input.data.length, question: 0, history: 0, historyTurns: 0, total: 0 } };
          }),
        },
        inputFor(session, ctx, 'which instances do I have?'),
      );
      const reads = emu.requests().slice(before).filter((r) => r.method === 'GET' && r.path.startsWith('/v1/'));
      assert.ok(reads.some((r) => r.path === '/v1/instances'), `the emulator served the instance read: ${reads.map((r) => r.path).join(', ')}`);
      const expected = (await emulatorClient(emu).call('GET', '/v1/instances')).json as { hostname: string }[];
      assert.ok(expected.length > 0, 'the demo seed has instances');
      assert.is(out.answer, `hosts: ${expected.map((i) => i.hostname).sort().join(', ')}`);
      assert.is(out.read, 'instances, balance');
      assert.ok(out.contextChars > 0);
      assert.equal(out.route.providers, ['gpucloud']);
    });
  });
});

test('one observer hears the events in order: phases, summarising progress, answer tokens, then the answer', async () => {
  srv.setDefault((req) => ({ text: req.body.stream ? 'Two instances are running and the balance is fine.' : 'condensed facts' }));
  await withEmulator(async ({ env }) => {
    await withSession(env, async (session, ctx) => {
      const events: AskEvent[] = [];
      const ai = aiSection({ max_prompt_chars: 1500, chunk_chars: 800, max_chunks: 2 });
      const out = await run({}, inputFor(session, ctx, 'what is running and what is my balance?', ai), events);
      assert.equal(phases(events), ['start -> routing', 'routing -> gatheringContext', 'gatheringContext -> summarising', 'summarising -> answering', 'answering -> done']);
      // The event types in order, repeats folded: debug lines (the provider chosen) come while routing.
      const kinds = events.map((e) => (e.type === 'ask.phase' ? `phase:${e.to}` : e.type)).filter((k, i, all) => k !== all[i - 1]);
      assert.equal(kinds, ['phase:routing', 'ask.debug', 'phase:gatheringContext', 'phase:summarising', 'ask.progress', 'phase:answering', 'ask.token', 'phase:done', 'ask.answer']);
      assert.match((events.find((e) => e.type === 'ask.progress') as { text: string }).text, /^summarising part 1 of 2 \(chunk 1 of \d+\)$/);
      const tokens = events.flatMap((e) => (e.type === 'ask.token' ? [e.text] : []));
      assert.ok(tokens.length > 1, `the answer streamed in ${tokens.length} tokens`);
      assert.is(tokens.join(''), 'Two instances are running and the balance is fine.');
      const answered = events[events.length - 1] as Extract<AskEvent, { type: 'ask.answer' }>;
      assert.is(answered.output.answer, out.answer);
      assert.is(out.summarised, true);
      assert.is(srv.chatRequests().filter((c) => c.body.stream === true).length, 1, 'one streamed answer after the summaries');
    });
  });
});

test('a failure in the read actor ends in failed with its error: no answer, no model asked', async () => {
  const boom = new OperationError('api_error', 'the cloud said no');
  let answered = false;
  await withEmulator(async ({ env }) => {
    await withSession(env, async (session, ctx) => {
      const events: AskEvent[] = [];
      const ai = aiSection();
      const err = await run(
        {
          readContext: fromPromise<ContextRead, ReadContextInput>(async () => {
            throw boom;
          }),
          answer: fromPromise(async () => {
            answered = true;
            return { answer: 'never', sizes: { system: 0, context: 0, question: 0, history: 0, historyTurns: 0, total: 0 } };
          }),
        },
        inputFor(session, ctx, 'what is my balance?', ai),
        events,
      ).catch((e: unknown) => e);
      assert.is(err, boom);
      assert.equal(phases(events).slice(-1), ['gatheringContext -> failed']);
      const failed = events.filter((e) => e.type === 'ask.failed');
      assert.is(failed.length, 1);
      assert.is((failed[0] as { error: unknown }).error, boom);
      assert.not.ok(events.some((e) => e.type === 'ask.answer' || e.type === 'ask.token'), 'no answer event, no token');
      assert.not.ok(answered, 'the answer actor never ran');
      assert.is(srv.chatRequests().length, 0, 'no model was asked');
    });
  });
});

test('Ctrl-C mid-read stops the flow: failed with an interrupt, the HTTP request is cancelled, nothing answered', async () => {
  // A gpucloud that grants a token and then never answers a read: the read is in flight until it is cancelled.
  const held: IncomingMessage[] = [];
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const slow = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/oauth2/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'slow-token', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    held.push(req);
    arrived();
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  const interrupt = new AbortController();
  try {
    await withSession(
      { GPUCLOUD_BASE_URL: url, GPUCLOUD_CLIENT_ID: 'slow-client', GPUCLOUD_CLIENT_SECRET: 'slow-secret' },
      async (session, ctx) => {
        const events: AskEvent[] = [];
        const flow = run({ readContext: cloudReadContext() }, inputFor(session, ctx, 'what is my balance?'), events).catch((e: unknown) => e);
        await reached;
        const cancelled = new Promise<void>((resolve) => held[0]!.socket.once('close', () => resolve()));
        interrupt.abort(new InterruptedError());
        const err = await flow;
        assert.instance(err, InterruptedError);
        assert.is((err as InterruptedError).code, 'interrupted');
        assert.equal(phases(events).slice(-1), ['gatheringContext -> failed']);
        assert.not.ok(events.some((e) => e.type === 'ask.answer' || e.type === 'ask.token'));
        await cancelled;
      },
      interrupt.signal,
    );
  } finally {
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  }
});

test('Ctrl-C stops the flow even when the read in progress ignores every signal (its actor is stopped)', async () => {
  await withEmulator(async ({ env }) => {
    const interrupt = new AbortController();
    await withSession(
      env,
      async (session, ctx) => {
        let ownSignal: AbortSignal | undefined;
        let started!: () => void;
        const readStarted = new Promise<void>((resolve) => (started = resolve));
        const events: AskEvent[] = [];
        const flow = run(
          {
            readContext: fromPromise<ContextRead, ReadContextInput>(({ signal }) => {
              ownSignal = signal;
              started();
              return new Promise<never>(() => undefined);
            }),
          },
          inputFor(session, ctx, 'what is my balance?'),
          events,
        ).catch((e: unknown) => e);
        await readStarted;
        interrupt.abort(new InterruptedError());
        const err = await flow;
        assert.instance(err, InterruptedError);
        assert.ok(ownSignal!.aborted, 'the read actor was stopped (its signal aborted)');
        assert.equal(phases(events).slice(-1), ['gatheringContext -> failed']);
      },
      interrupt.signal,
    );
  });
});

test('an observer that throws (a closed pipe) ends the flow with its error; the streaming answer is stopped', async () => {
  srv.reply({ text: 'one two three four five six seven eight' });
  await withEmulator(async ({ env }) => {
    await withSession(env, async (session, ctx) => {
      const closed = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      const seen: AskEvent[] = [];
      const err = await runAskFlow(askFlowMachine.provide({ actors: cloudActors() }), inputFor(session, ctx, 'what is running?', aiSection()), (e) => {
        seen.push(e);
        if (e.type === 'ask.token') throw closed;
      }).catch((e: unknown) => e);
      assert.is(err, closed);
      assert.is(seen.filter((e) => e.type === 'ask.token').length, 1, 'no token after the observer failed');
      assert.not.ok(seen.some((e) => e.type === 'ask.answer'));
    });
  });
});

test('a signal aborted before the flow starts: nothing is read, the interrupt is thrown', async () => {
  await withEmulator(async ({ emu, env }) => {
    await withSession(env, async (session, ctx) => {
      const before = emu.requests().length;
      const gone = new AbortController();
      gone.abort(new InterruptedError());
      const err = await run({}, inputFor(session, ctx, 'what is my balance?', undefined, gone.signal)).catch((e: unknown) => e);
      assert.instance(err, InterruptedError);
      assert.is(emu.requests().length, before);
    });
  });
});

test.run();
