/**
 * The ask flow machine (machines/ask/ask-flow.ts) driven directly, with an injected read-only plan runner
 * and the real openai SDK against the local OpenAI-compatible server: chunked summarisation of a
 * context of several MB, streaming, failures and the context plan.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fromPromise } from 'xstate';
import { askFlowMachine, runAskFlow, type AskBackend, type AskEvent, type AskFlowInput, type ChooseModelInput, type Routed, type RouteInput } from '../../machines/ask/ask-flow.js';
import { ANSWER_SYSTEM_PROMPT, answerWithoutModel, cloudReadContext, contextPlanFor, type PlanRunner } from '../../machines/ask/ask.js';
import { answerActor, recallFrom, summariseActor } from '../../machines/ask/ask-actors.js';
// What gpucloud always reads for an answer is its reads capability's business (its own module says which).
import { ALWAYS_CONTEXT_KINDS } from '../../engine/providers/gpucloud/capabilities.js';
import { resolveAiProvider } from '../../engine/producers/ai/resolve.js';
import type { AiProvider, ChatMessage } from '../../engine/producers/ai/provider.js';
import type { Config } from '../../schemas/config.js';
import { findKind } from '../../engine/providers/gpucloud/catalogue.js';
import { OperationError } from '../../engine/core/errors.js';
import type { RouteDecision } from '../../engine/core/routing/route.js';
import type { Plan } from '../../schemas/plan.js';
import { firstTokenGate, openAiServerFor } from '../support/openai-server.js';

const srv = openAiServerFor(test);

const route: RouteDecision = { providers: ['gpucloud'], reasons: [{ provider: 'gpucloud', terms: ['instances'] }], kinds: ['instances'], defaulted: false };

function provider() {
  return resolveAiProvider({
    aiConfig: { providers: { openai: { api_key: 'sk-flow-test-123456', model: 'flow-model', local_model_inference_url: srv.baseURL } } },
    env: {},
  });
}

/** `count` instance records of about `size` characters each, answered for the instances step. */
function fakeRead(count: number, size: number, reads: Plan[] = []): PlanRunner {
  return async (plan) => {
    reads.push(plan);
    return plan.commands.map((c) => {
      if (c.args[2] === '/v1/balance') return { amount: 12.5, currency: 'usd' };
      if (c.args[2] === '/v1/instances') {
        return Array.from({ length: count }, (_, i) => ({ id: `inst-${i}`, hostname: `node-${i}`, status: i % 7 ? 'running' : 'offline', description: 'x'.repeat(size) }));
      }
      return [];
    });
  };
}

interface FlowOptions {
  question?: string;
  runPlan?: PlanRunner;
  provider?: () => AiProvider;
  history?: ChatMessage[];
  ai?: Config['ai'];
}

/** The flow with this test's actors: a fixed route, the given provider and turns, the cloud reads run by `runPlan`. */
function flow(o: FlowOptions = {}) {
  const machine = askFlowMachine.provide({
    actors: {
      route: fromPromise<Routed, RouteInput>(async () => ({ route, prompt: { system: ANSWER_SYSTEM_PROMPT, label: 'the cloud' } })),
      chooseModel: fromPromise<AiProvider, ChooseModelInput>(async () => (o.provider ?? provider)()),
      recall: recallFrom(() => o.history ?? []),
      readContext: cloudReadContext({ runPlan: o.runPlan ?? fakeRead(3, 10) }),
      summarise: summariseActor,
      answer: answerActor((input) => answerWithoutModel(input.question, input.route, input.results)),
    },
  });
  // The reads are the test's own: the backend only carries the config.
  const input: AskFlowInput = { question: o.question ?? 'which instances are offline?', context: { backend: { config: { ai: o.ai } } as unknown as AskBackend, home: '/nonexistent', env: {} } };
  return { machine, input };
}

/** Runs the flow; `events` gets every event, `transitions` the phases as `from -> to`. */
async function run(o: FlowOptions = {}, events: AskEvent[] = []) {
  const { machine, input } = flow(o);
  return runAskFlow(machine, input, (e) => events.push(e));
}
const phases = (events: AskEvent[]) => events.flatMap((e) => (e.type === 'ask.phase' ? [`${e.from} -> ${e.to}`] : []));

test('a context of several MB is summarised in ai.max_chunks chunk calls, then answered within ai.max_prompt_chars', async () => {
  srv.setDefault((req) => ({ text: req.body.stream ? 'Instances node-0, node-7… are offline.' : 'condensed: some instances offline' }));
  const events: AskEvent[] = [];
  const started = performance.now();
  const out = await run({ runPlan: fakeRead(3000, 1000), ai: { max_prompt_chars: 120_000, chunk_chars: 120_000, max_chunks: 6 } }, events);
  const transitions = phases(events);
  const progress = events.flatMap((e) => (e.type === 'ask.progress' ? [e.text] : []));
  const ms = performance.now() - started;
  assert.ok(out.contextChars > 3_000_000, `context ${out.contextChars} characters`);
  assert.is(out.summarised, true);
  const chats = srv.chatRequests();
  assert.is(chats.length, 7, 'six chunk summaries (max_chunks) and one answer');
  assert.is(chats.filter((c) => c.body.stream === true).length, 1, 'only the answer streams');
  assert.is(out.summaryCalls, 6);
  assert.equal(transitions, ['start -> routing', 'routing -> gatheringContext', 'gatheringContext -> summarising', 'summarising -> answering', 'answering -> done']);
  assert.is(progress.length, 6);
  assert.match(progress[0]!, /^summarising part 1 of 6 \(chunk 1 of \d+\)$/);
  const answerPrompt = chats[6]!.body.messages.map((m: any) => m.content).join('');
  assert.ok(answerPrompt.length <= 120_000, `answer prompt ${answerPrompt.length} characters`);
  assert.is(out.promptChars, answerPrompt.length);
  assert.match(answerPrompt, /were not summarised because ai\.max_chunks is 6/);
  assert.is(out.answer, 'Instances node-0, node-7… are offline.');
  for (const c of chats.slice(0, 6)) assert.ok(JSON.stringify(c.body.messages).length < 125_000, 'each chunk request stays near chunk_chars');
  console.log(`ask flow: ${(out.contextChars / 1e6).toFixed(1)} MB context → ${chats.length} chat calls, ${Math.round(ms)} ms in-process`);
});

test('with the built-in provider the answer comes after the transition into answering (trace order)', async () => {
  const seen: AskEvent[] = [];
  const out = await run({ question: 'what is my balance', provider: () => resolveAiProvider({ aiConfig: {}, profileName: 'builtin', env: {} }) }, seen);
  const events = seen.flatMap((e) => (e.type === 'ask.phase' ? [`${e.from} -> ${e.to}`] : e.type === 'ask.token' ? [`token ${e.text}`] : []));
  assert.ok(out.answer.length > 0);
  assert.equal(events, ['start -> routing', 'routing -> gatheringContext', 'gatheringContext -> answering', `token ${out.answer}`, 'answering -> done']);
});

test('below ai.max_prompt_chars nothing is summarised and the provider is called once', async () => {
  srv.reply({ text: 'node-0 is offline.' });
  const events: AskEvent[] = [];
  const out = await run({}, events);
  assert.is(out.summarised, false);
  assert.is(srv.chatRequests().length, 1);
  assert.not.ok(phases(events).some((t) => t.endsWith('-> summarising')));
});

test('the answer streams: tokens reach the observer while the reply is still being written', async () => {
  // The server holds everything after the first token until the observer has seen it (60 s safety valve).
  const gate = firstTokenGate();
  srv.reply({ text: 'one two three four five six', restAfter: gate.rest });
  const seen: string[] = [];
  const { machine, input } = flow();
  const out = await runAskFlow(machine, input, (e) => {
    if (e.type === 'ask.token') (seen.push(e.text), gate.firstSeen());
  });
  assert.is(seen.join(''), 'one two three four five six');
  assert.is(out.answer, 'one two three four five six');
  assert.ok(seen.length >= 6, `${seen.length} tokens`);
  assert.not.ok(gate.valveOpened(), 'the first token reached the observer while the rest was still unsent');
});

test('earlier turns are sent before the question', async () => {
  srv.reply({ text: 'yes' });
  await run({ history: [{ role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }] });
  const msgs = srv.chatRequests()[0]!.body.messages.filter((m: any) => m.role !== 'system');
  assert.equal(msgs.slice(0, 2), [{ role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }]);
  assert.match(msgs[2].content, /Question: which instances are offline\?/);
});

test('a failing read ends in failed with the executor error; the AI is not asked', async () => {
  const events: AskEvent[] = [];
  const boom = new OperationError('api_error', 'gpucloud said no');
  const err = await run(
    {
      runPlan: async () => {
        throw boom;
      },
    },
    events,
  ).catch((e: unknown) => e);
  const transitions = phases(events);
  assert.is(err, boom);
  assert.is(transitions[transitions.length - 1], 'gatheringContext -> failed');
  assert.is(srv.chatRequests().length, 0);
});

test('the context plan reads instances and balance always, plus the kinds the question is about, from the catalogue', async () => {
  const { plan, kinds } = await contextPlanFor({ kinds: ['clusters', 'volumes', 'clusters', 'instances'] });
  assert.equal(kinds, [...ALWAYS_CONTEXT_KINDS, 'clusters', 'volumes']);
  assert.equal(
    plan.commands.map((c) => c.args),
    kinds.map((k) => {
      const spec = findKind(k)!;
      return ['gpucloud-api', 'GET', spec.listQuery ? `${spec.path}?${spec.listQuery}` : spec.path];
    }),
  );
  assert.ok(plan.commands.every((c) => c.args[1] === 'GET'), 'read-only');
});

test.run();
