/**
 * The built-in answers about money and counts, table-driven (answer-money-questions.ts): each question is
 * routed as `ask` routes it, its context plan is the one `ask` would read (machines/ask/ask.ts), the reads
 * are answered from a fixed account, and the answer must be exactly the expected one (its figures
 * computed from the account by the billing rules), or declined with the reason and the command that
 * answers — never another figure. Follow-ups run in one thread, as talk runs them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnswerThread } from '../../engine/core/capabilities.js';
import { contextPlanFor } from '../../machines/ask/ask.js';
import { builtinAnswer, BuiltinCannotAnswer } from '../../engine/producers/planner/answer.js';
import { routeQuestion } from '../../engine/core/routing/route.js';
import { providerRoutings } from '../../engine/providers/index.js';
import { costSummary } from '../../engine/providers/gpucloud/cost.js';
import { BALANCE, billsPerHour, BURN, INSTANCES, MONEY_ACCOUNT, MONEY_CASES, NOW, VOLUMES, VOLUMES_TO_COME } from './answer-money-questions.js';
import { ANSWER_CASES } from './answer-questions.js';

const routings = await providerRoutings();

async function answer(question: string, thread?: AnswerThread, account: Record<string, unknown> = MONEY_ACCOUNT): Promise<{ text?: string; error?: BuiltinCannotAnswer }> {
  const route = routeQuestion(question, { config: {}, routings });
  const { plan, kinds } = await contextPlanFor(route, { question, ...(thread ? { thread } : {}) });
  const results = plan.commands.map((c, i) => ({ kind: kinds[i]!, args: c.args, data: account[(c.args[2] ?? '').split('?')[0]!] ?? [] }));
  try {
    return { text: builtinAnswer(question, route, results, {}, { now: NOW, ...(thread ? { thread } : {}) }) };
  } catch (err) {
    if (err instanceof BuiltinCannotAnswer) return { error: err };
    throw err;
  }
}

for (const c of MONEY_CASES) {
  test(`${c.declined ? 'declines' : 'answers'} "${c.q}"${c.after ? ` after "${c.after.join('", "')}"` : ''}`, async () => {
    const thread: AnswerThread | undefined = c.after ? {} : undefined;
    for (const earlier of c.after ?? []) {
      const r = await answer(earlier, thread);
      if (c.afterDeclined?.includes(earlier)) assert.ok(r.error, `${earlier}: expected a decline, got: ${r.text}`);
      else assert.not.ok(r.error, `${earlier}: ${r.error?.message}`);
    }
    const r = await answer(c.q, thread);
    if (c.declined) {
      assert.ok(r.error, `expected a decline, got: ${r.text}`);
      assert.match(r.error!.message, c.declined);
      assert.is(r.error!.exitCode, 2);
      // The decline names the command that answers, in one line of hint.
      assert.match(r.error!.hint ?? '', c.hint ?? /`assistant (cost summary|gpucloud list [a-z<>-]+)`/);
      assert.not.match(r.error!.hint ?? '', /\n/);
      return;
    }
    assert.not.ok(r.error, r.error?.message);
    if (typeof c.answer === 'string') assert.is(r.text, c.answer);
    else assert.match(r.text ?? '', c.answer!);
  });
}

test("the table's true figures are the cost capability's: its billing rules give the burn, each rate and the balance `cost summary` gives for the account", () => {
  const a = MONEY_ACCOUNT;
  const s = costSummary({ instances: a['/v1/instances'], volumes: a['/v1/volumes'], clusters: a['/v1/clusters'], balance: a['/v1/balance'], instanceTypes: a['/v1/instance-types'], volumeTypes: a['/v1/volume-types'], clusterTypes: a['/v1/cluster-types'] }, NOW);
  assert.ok(Math.abs(s.hourly_cost - BURN) < 1e-9, `${s.hourly_cost} vs ${BURN}`);
  assert.is(s.balance, BALANCE);
  const billed = [...INSTANCES, ...VOLUMES, ...VOLUMES_TO_COME].filter((r) => billsPerHour(r) !== undefined);
  assert.equal(s.resources.map((r) => r.id).sort(), billed.map((r) => String(r.id)).sort());
  for (const r of billed) assert.ok(Math.abs(s.resources.find((x) => x.id === r.id)!.hourly_cost! - billsPerHour(r)!) < 1e-12, String(r.id));
});

test('the table has at least 60 questions of every class, new ones (none of them in the first table), declines and follow-ups among them', () => {
  const earlier = new Set(ANSWER_CASES.map((c) => c.q.toLowerCase()));
  assert.ok(MONEY_CASES.length >= 60, String(MONEY_CASES.length));
  assert.equal(MONEY_CASES.filter((c) => earlier.has(c.q.toLowerCase())).map((c) => c.q), []);
  assert.ok(MONEY_CASES.filter((c) => c.declined).length >= 12);
  assert.ok(MONEY_CASES.filter((c) => c.after).length >= 5);
});

test.run();
