/**
 * The provider contract (issue 11): a provider defined here, in the test, with one read verb and one
 * destroy verb, validates, is gated, dry-runs and runs through the same engine as gpucloud, with no
 * engine change. Also: `provider` in a plan means something, and the run machine's effects can be
 * swapped with `.provide()`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, toPromise } from 'xstate';
import { ProviderSet, type Provider, type RunEvent } from '../../engine/core/provider.js';
import { allProviders } from '../../engine/providers/index.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { checkPlan } from '../../engine/core/plan/check.js';
import { AssistantError } from '../../engine/core/errors.js';
import { dryRunPlan } from '../../machines/apply/index.js';
import { runPlanMachine, stepRunner, type PlanBackend, type StepInput, type StepOutput } from '../../machines/run/run-plan.js';
import { runChecked } from '../support/run.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

/** A toy cloud: a shelf of jars that can be counted and smashed. Its client is a plain object. */
interface Shelf {
  jars: Map<string, number>;
  calls: string[];
}

const toy: Provider<Shelf> = {
  name: 'toy',
  verbs: [
    {
      verb: 'toy-count',
      checkArgs: (args) => (args.length === 2 ? [] : [{ field: 'args', message: 'toy-count takes a jar name' }]),
      classify: (args) => ({ effect: 'read', kind: 'jar', reasons: [], name: args[1] }),
      substitute: (args, bindings) => args.map((a) => a.replace(/<([A-Z_]+)>/g, (m, n: string) => bindings[n] ?? m)),
      async run(args, ctx) {
        const shelf = await ctx.client();
        shelf.calls.push(`count ${args[1]}`);
        return { data: { jar: args[1], count: shelf.jars.get(args[1]!) ?? 0 } };
      },
      describe: (args) => `COUNT ${args[1]}`,
    },
    {
      verb: 'toy-smash',
      checkArgs: (args) => (args.length === 2 ? [] : [{ field: 'args', message: 'toy-smash takes a jar name' }]),
      classify: (args) => ({ effect: 'destroy', kind: 'jar', reasons: [`smashes jar ${args[1]}`] }),
      substitute: (args) => [...args],
      async run(args, ctx) {
        const shelf = await ctx.client();
        shelf.calls.push(`smash ${args[1]}`);
        shelf.jars.delete(args[1]!);
        return { data: { smashed: args[1] } };
      },
      describe: (args) => `SMASH ${args[1]}`,
    },
  ],
  async connect() {
    throw new Error('the test hands the client in');
  },
  async preview(steps) {
    // One price per change step (a smashed jar no longer needs cooling: a saving).
    const changes = steps.filter((s) => s.class.effect !== 'read').map((s) => ({ step: s.index, price: { price: 'priced' as const, per_hour: -0.5, lines: [{ step: s.index, kind: 'jar', type: 'glass', per_hour: -0.5 }] } }));
    return { changes, warnings: ['toy: smashing is forever'] };
  },
};

/** The registration line a real provider adds to engine/providers.ts. */
const providers = new ProviderSet([...PROVIDERS.list, toy]);

function backendFor(shelf: Shelf): PlanBackend {
  return {
    providers,
    predefined: {},
    runContext: () => ({
      client: async (name) => {
        if (name !== 'toy') throw new Error(`no client for ${name} in this test`);
        return shelf;
      },
      signal: new AbortController().signal,
    }),
  };
}

const plan = {
  version: 1,
  provider: 'toy',
  commands: [
    { args: ['toy-count', 'plum'], reason: 'how many plums', produces: { PLUMS: '$.count' } },
    { args: ['toy-smash', 'plum'], reason: 'smash the plum jar' },
  ],
};

test('a provider defined in the test validates through the engine: its destroy verb is gated like any destructive step', () => {
  const v = validatePlan(plan, { providers, destroyer: false });
  assert.not.ok(v.ok);
  assert.equal(v.destructive, [[], ['smashes jar plum']]);
  assert.equal(
    v.problems.map((p) => [p.kind, p.index]),
    [['destructive', 1]],
  );
  assert.ok(validatePlan(plan, { providers, destroyer: true }).ok);
});

test('its plan is refused whole without --destroyer (exit 3) before its client is even built', async () => {
  const shelf: Shelf = { jars: new Map([['plum', 3]]), calls: [] };
  let threw: unknown;
  try {
    await runChecked(plan, { providers, destroyer: false, predefined: {}, context: backendFor(shelf).runContext() });
  } catch (err) {
    threw = err;
  }
  assert.ok(threw instanceof AssistantError);
  assert.is((threw as AssistantError).exitCode, 3);
  assert.equal(shelf.calls, []);
});

test('it dry-runs through the engine: steps described, its price preview merged, nothing changed', async () => {
  const shelf: Shelf = { jars: new Map([['plum', 3]]), calls: [] };
  const { preview, gated } = await dryRunPlan(backendFor(shelf), plan, { destroyer: false });
  assert.is(gated, true);
  assert.equal(
    preview.steps.map((s) => [s.request, s.destructive]),
    [
      ['COUNT plum', []],
      ['SMASH plum', ['smashes jar plum']],
    ],
  );
  assert.is(preview.total_per_hour, -0.5);
  assert.ok(preview.warnings.includes('toy: smashing is forever'));
  assert.equal(shelf.calls, []);
});

test('it runs through the same machine: bindings, report and observer events', async () => {
  const shelf: Shelf = { jars: new Map([['plum', 3]]), calls: [] };
  const events: RunEvent['type'][] = [];
  const out = await runChecked(plan, {
    providers,
    destroyer: true,
    predefined: {},
    context: backendFor(shelf).runContext(),
    observer: (e) => events.push(e.type),
    keepResults: true,
  });
  assert.is(out.report.status, 'succeeded');
  assert.equal(out.report.bindings, { PLUMS: '3' });
  assert.equal(shelf.calls, ['count plum', 'smash plum']);
  assert.is(shelf.jars.has('plum'), false);
  assert.equal(events, ['step-started', 'step-done', 'step-started', 'step-done']);
});

test('provider in a plan means something: an unknown provider, or a verb of a provider the plan does not name, is invalid', () => {
  const unknown = validatePlan({ ...plan, provider: 'moon' }, { providers, destroyer: true });
  assert.ok(unknown.problems.some((p) => p.field === 'provider' && /unknown provider "moon" \(known: gpucloud, ([a-z0-9_]+, )*toy\)/.test(p.message)), JSON.stringify(unknown.problems));
  const foreign = validatePlan({ ...plan, provider: 'gpucloud' }, { providers, destroyer: true });
  assert.ok(foreign.problems.some((p) => p.index === 0 && /"toy-count" belongs to provider "toy", which the plan does not name/.test(p.message)));
  const both = validatePlan(
    { ...plan, provider: ['gpucloud', 'toy'], commands: [...plan.commands, { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] },
    { providers, destroyer: true },
  );
  assert.ok(both.ok, JSON.stringify(both.problems));
  // A name with a control character is shown escaped, never raw on the terminal.
  const odd = validatePlan({ ...plan, provider: 'toy\u0000\u001b[31m' }, { providers, destroyer: true });
  assert.ok(odd.problems.some((p) => p.message.includes('unknown provider "toy\\u0000\\u001b[31m"')), JSON.stringify(odd.problems));
  // Without the toy provider registered, its verbs are unknown and the known ones are listed.
  const without = validatePlan(plan, { providers: PROVIDERS, destroyer: true });
  assert.ok(without.problems.some((p) => /unknown step verb "toy-count" \(known: gpucloud-api, gpucloud-wait(, [a-z0-9-]+)*\)/.test(p.message)));
});

test('the run machine takes its effects from .provide(): a swapped step effect that polls waits in the waiting state', async () => {
  const seen: StepInput[] = [];
  let polls = 0;
  const machine = runPlanMachine.provide({
    actors: {
      runner: stepRunner(async (input): Promise<StepOutput> => {
        seen.push(input);
        if (input.index === 0 && polls++ < 2) return { kind: 'pending', afterMs: 5, pollingSince: input.pollingSince ?? 1 };
        return { kind: 'done', step: { index: input.index, result: { data: null }, produced: { [`S${input.index}`]: 'x' }, durationMs: 0 } };
      }),
    },
  });
  const states: string[] = [];
  const actor = createActor(machine, { input: { total: 2, startIndex: 0, bindings: {}, completed: [] } });
  actor.subscribe((s) => states.push(String(s.value)));
  actor.start();
  await toPromise(actor);
  assert.is(actor.getSnapshot().value, 'succeeded');
  assert.equal(actor.getSnapshot().context.bindings, { S0: 'x', S1: 'x' });
  assert.equal(
    seen.map((s) => [s.index, s.pollingSince]),
    [
      [0, undefined],
      [0, 1],
      [0, 1],
      [1, undefined],
    ],
  );
  assert.ok(states.filter((s) => s === 'waiting').length === 2, states.join(' '));
});

test('checkPlan hands the run the step classes it computed once', () => {
  const { classes } = checkPlan(plan, { providers, destroyer: true, predefined: {} });
  assert.equal(
    classes.map((c) => c.effect),
    ['read', 'destroy'],
  );
});

test.run();
