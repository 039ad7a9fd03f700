/**
 * The built-in answers, table-driven (answer-questions.ts): each question is routed as `ask` routes it,
 * its context plan is the one `ask` would read (machines/ask/ask.ts), the reads are answered from a fixed
 * account, and the answer must be exactly the expected one, or declined with the reason and a hint to
 * configure an AI provider (exit 2) — never another list.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contextPlanFor } from '../../machines/ask/ask.js';
import { builtinAnswer, BuiltinCannotAnswer } from '../../engine/producers/planner/answer.js';
import { routeQuestion } from '../../engine/core/routing/route.js';
import { providerRoutings } from '../../engine/providers/index.js';
import { ACCOUNT, ANSWER_CASES } from './answer-questions.js';

const routings = await providerRoutings();

async function answer(question: string): Promise<{ text?: string; error?: BuiltinCannotAnswer; providers: string[] }> {
  const route = routeQuestion(question, { config: {}, routings });
  const { plan, kinds } = await contextPlanFor(route, { question });
  const results = plan.commands.map((c, i) => {
    const key = c.args[0] === 'aws' ? c.args.join(' ') : (c.args[2] ?? '').split('?')[0]!;
    return { kind: kinds[i]!, args: c.args, data: ACCOUNT[key] ?? [] };
  });
  try {
    return { text: builtinAnswer(question, route, results), providers: route.providers };
  } catch (err) {
    if (err instanceof BuiltinCannotAnswer) return { error: err, providers: route.providers };
    throw err;
  }
}

for (const c of ANSWER_CASES) {
  test(`${c.declined ? 'declines' : 'answers'} "${c.q}"`, async () => {
    const r = await answer(c.q);
    if (c.providers) assert.equal(r.providers, c.providers);
    if (c.declined) {
      assert.ok(r.error, `expected a decline, got: ${r.text}`);
      assert.match(r.error!.message, c.declined);
      assert.is(r.error!.exitCode, 2);
      assert.match(r.error!.hint ?? '', /configure an AI provider/);
      return;
    }
    assert.not.ok(r.error, r.error?.message);
    if (typeof c.answer === 'string') assert.is(r.text, c.answer);
    else assert.match(r.text ?? '', c.answer!);
  });
}

test('the table covers every class of question (at least 40 questions, declines included)', () => {
  assert.ok(ANSWER_CASES.length >= 40, String(ANSWER_CASES.length));
  assert.ok(ANSWER_CASES.filter((c) => c.declined).length >= 8);
});

test('hostile data and questions: a resource named like a word does not hijack questions, control characters never reach the terminal, a huge question is declined', () => {
  const results = (extra: Record<string, unknown>[]) => [
    { kind: 'instances', args: ['gpucloud-api', 'GET', '/v1/instances'], data: [...(ACCOUNT['/v1/instances'] as Record<string, unknown>[]), ...extra] },
    { kind: 'balance', args: ['gpucloud-api', 'GET', '/v1/balance'], data: ACCOUNT['/v1/balance'] },
  ];
  const route = routeQuestion('list my instances', { config: {}, routings });
  const named = [{ id: 'x1', hostname: 'my', status: 'offline', instance_type: '1V100.6V', location: 'FIN-01' }];
  assert.match(builtinAnswer('list my instances', route, results(named)), /^You have 4 instances: 2 offline, 2 running\./);
  const evil = [{ id: 'x2', hostname: 'evil\u001b]0;owned\u0007', status: 'running', instance_type: '1V100.6V', location: 'FIN-01' }];
  const text = builtinAnswer('which instances are running', routeQuestion('which instances are running', { config: {}, routings }), results(evil));
  assert.not.ok(/[\u001b\u0007]/.test(text), JSON.stringify(text));
  assert.match(text, /evil\?\]0;owned\?/);
  assert.throws(() => builtinAnswer(`list my instances ${'please '.repeat(400)}`, route, results([])), /longer than 2000 characters/);
});

test.run();
