/**
 * A new cloud is one folder (issue 23): a stand-in provider defined here — a client, a classify table
 * for its one verb, and capabilities (routing words, context reads, an answer without a model, a
 * credentials check, live cost figures, a deploy target) — is registered at run time, and `ask` (routed
 * by its words and by its own `--pantry` flag), `credentials test pantry`, `plan validate`, every `cost`
 * command and `deploy --provider pantry` work for it without any other file knowing its name. A provider that can be routed to but not read is
 * refused clearly; one with only a bill (`cellar`) answers the cost commands a bill answers.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Provider } from '../../engine/core/provider.js';
import { registerProvider } from '../../engine/providers/index.js';
import { runInProcess } from '../support/in-process.js';
import { makeRepo } from '../support/git-repos.js';

interface Pantry {
  shelves: Record<string, number>;
  calls: string[];
}

const pantry: Pantry = { shelves: { jam: 7, honey: 2 }, calls: [] };

/** The whole provider: one read verb, a classify table, its capabilities. Nothing else names it. */
const pantryProvider: Provider<Pantry> = {
  name: 'pantry',
  verbs: [
    {
      verb: 'pantry-count',
      checkArgs: (args) => (args.length === 2 ? [] : [{ field: 'args', message: 'pantry-count takes a shelf name or "all"' }]),
      // The classify table: counting reads; nothing else exists, so nothing else can be classified harmless.
      classify: () => ({ effect: 'read', kind: 'shelf', reasons: [] }),
      substitute: (args) => [...args],
      async run(args, ctx) {
        const p = await ctx.client();
        p.calls.push(args[1]!);
        return { data: args[1] === 'all' ? p.shelves : { [args[1]!]: p.shelves[args[1]!] ?? 0 } };
      },
      describe: (args) => `COUNT ${args[1]}`,
    },
  ],
  async connect() {
    return { client: pantry, source: 'the pantry door (test)' };
  },
  capabilities: {
    routing: { names: ['pantry'], specific: ['jam', 'honey', 'jars'] },
    reads: {
      label: 'the pantry',
      contextReads: () => ({ commands: [{ args: ['pantry-count', 'all'], reason: 'count every shelf' }], kinds: ['pantry/shelves'] }),
    },
    answer: {
      answer(question, results) {
        const shelves = results[0]?.data as Record<string, number> | undefined;
        if (!shelves || !/\bhow many\b/i.test(question)) return undefined;
        return Object.entries(shelves).map(([k, n]) => `${n} jars of ${k}`).join(', ') + '.';
      },
    },
    // Live cost: each jar costs a quarter an hour to keep cool, paid from a balance of 10.
    cost: {
      live: {
        async price(read, now) {
          const [all] = await read({ version: 1, provider: 'pantry', commands: [{ args: ['pantry-count', 'all'], reason: 'cost: count every shelf' }] });
          const resources = Object.entries(all as Record<string, number>).map(([shelf, jars]) => ({ kind: 'shelf', id: `shelf-${shelf}`, name: shelf, type: 'cool', status: 'stocked', hourly_cost: jars * 0.25, created_at: new Date(now - 48 * 3_600_000).toISOString(), tags: { team: shelf === 'jam' ? 'breakfast' : 'tea' }, tag_from: 'api' as const }));
          const hourly = resources.reduce((n, r) => n + r.hourly_cost, 0);
          return { provider: 'pantry', currency: 'eur', as_of: new Date(now).toISOString(), based_on: 'a quarter per jar per hour', hourly_cost: hourly, daily_cost: hourly * 24, monthly_forecast: hourly * 720, balance: 10, runway_hours: 10 / hourly, runway_until: new Date(now + (10 / hourly) * 3_600_000).toISOString(), resources, unpriced: [] };
        },
        account: ({ sandbox }) => (sandbox ? 'sandbox' : 'the pantry'),
      },
    },
    // Deploying puts a jar on a shelf: the plan counts the shelf (a read: it applies without --yes).
    deploy: {
      targets: [{ name: 'shelf', about: 'a jar on a shelf of its own', runsSource: false }],
      defaultTarget: () => 'shelf',
      async compile(req, { read }) {
        const [all] = await read({ version: 1, provider: 'pantry', commands: [{ args: ['pantry-count', 'all'], reason: 'deploy: what is on the shelves' }] });
        const there = (all as Record<string, number>)[req.name] !== undefined;
        return {
          plan: { version: 1, provider: 'pantry', summary: `${there ? 'restock' : 'stock'} ${req.name} at ${req.sha.slice(0, 7)} (port ${req.port})`, commands: [{ args: ['pantry-count', req.name], reason: 'count the shelf it goes on' }] },
          secretBindings: {},
          url: `pantry://${req.name}`,
          mode: there ? 'update' : 'create',
          chosen: 'shelf',
        };
      },
    },
    credentials: {
      sources: () => [{ kind: 'config', where: 'pantry.key', present: true }],
      test: async (read) => {
        const [all] = await read({ version: 1, provider: 'pantry', commands: [{ args: ['pantry-count', 'all'], reason: 'a cheap read' }] });
        return { detail: `${Object.keys(all as object).length} shelves seen` };
      },
    },
  },
};

/** Routed to, never read: the flow must refuse it rather than answer about something else. */
const attic: Provider<unknown> = { name: 'attic', verbs: [], async connect() { return { client: {}, source: 'none' }; }, capabilities: { routing: { names: ['attic'], specific: [] } } };

/** Bills afterwards: a bill per day, read through its own verb; no balance, no runway. */
const cellarCalls: string[][] = [];
const cellar: Provider<unknown> = {
  name: 'cellar',
  verbs: [
    {
      verb: 'cellar-bill',
      checkArgs: () => [],
      classify: () => ({ effect: 'read', kind: 'bill', reasons: [] }),
      substitute: (args) => [...args],
      async run(args) {
        cellarCalls.push([...args]);
        const [, start] = args;
        return { data: [{ date: start, cost: 2.4, services: { wine: 2, cheese: 0.4 } }] };
      },
      describe: (args) => `BILL ${args.slice(1).join(' ')}`,
    },
  ],
  async connect() {
    return { client: {}, source: 'the cellar ledger (test)' };
  },
  capabilities: {
    cost: {
      billed: {
        basis: 'the cellar ledger',
        async days(read, period) {
          const [rows] = await read({ version: 1, provider: 'cellar', commands: [{ args: ['cellar-bill', period.start, period.endExclusive], reason: 'cost: the bill per day' }] });
          return { days: (rows as { date: string; cost: number; services: Record<string, number> }[]).map((r) => ({ ...r, estimated: false, services: period.group?.by === 'service' ? r.services : {} })), currency: 'eur' };
        },
      },
    },
  },
};

registerProvider(pantryProvider);
registerProvider(attic);
registerProvider(cellar);

const homes: string[] = [];
test.after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** Runs `assistant <argv>` in this process (the registration lives here), as cli.ts would. */
async function assistant(argv: string[], input?: string, output: 'table' | 'json' = 'table'): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'assistant-capability-'));
  homes.push(home);
  writeFileSync(join(home, '.assistant.yaml'), '{}\n', { mode: 0o600 });
  return runInProcess(argv, { home, input, output });
}

test('ask routes a question to the registered provider by its words, reads through its capability and answers without a model', async () => {
  pantry.calls.length = 0;
  const r = await assistant(['ask', '--ai-profile', 'builtin', 'how many jars of jam do I have?']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), '7 jars of jam, 2 jars of honey.');
  assert.equal(pantry.calls, ['all'], 'one read, through the executor');
});

test('its own --pantry flag exists (one flag per routable provider) and --route-only names it', async () => {
  const r = await assistant(['ask', '--route-only', '--pantry', 'what is on the shelves'], undefined, 'json');
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal([doc.providers, doc.context_kinds], [['pantry'], ['pantry/shelves']]);
});

test('a question its answer capability cannot answer exactly is declined with the reason and a hint, not answered with a list', async () => {
  const r = await assistant(['ask', '--ai-profile', 'builtin', '--pantry', 'which jar is oldest?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /pantry: the built-in answerer cannot answer this exactly .*configure an AI provider/);
  assert.not.match(r.stdout, /jars of jam/);
});

test('credentials test checks the registered provider through its capability', async () => {
  const r = await assistant(['credentials', 'test', 'pantry']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'pantry credentials work (source: the pantry door (test)); 2 shelves seen\n');
});

test('plan validate accepts its verbs, refuses a step it does not know', async () => {
  const ok = await assistant(['plan', 'validate'], JSON.stringify({ version: 1, provider: 'pantry', commands: [{ args: ['pantry-count', 'jam'], reason: 'r' }] }));
  assert.is(ok.code, 0, ok.stderr + ok.stdout);
  const bad = await assistant(['plan', 'validate'], JSON.stringify({ version: 1, provider: 'pantry', commands: [{ args: ['pantry-eat', 'jam'], reason: 'r' }] }));
  assert.is(bad.code, 2);
  assert.match(bad.stdout + bad.stderr, /unknown step verb "pantry-eat" \(known: .*pantry-count/);
});

test('a provider that can be routed to but not read is refused: nothing is read, no AI asked', async () => {
  const r = await assistant(['ask', '--ai-profile', 'builtin', 'what is in the attic?']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: provider_not_integrated: .*attic \(matched: attic\)/m);
});

test('cost summary prices the registered provider through its capability, reading through the executor, and records a snapshot', async () => {
  pantry.calls.length = 0;
  const r = await assistant(['cost', 'summary', '--provider', 'pantry'], undefined, 'json');
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal([s.provider, s.currency, s.hourly_cost, s.balance, s.resources.map((x: { name: string }) => x.name)], ['pantry', 'eur', 2.25, 10, ['jam', 'honey']]);
  assert.equal(pantry.calls, ['all'], 'one read, through the executor');
  const snapshots = readFileSync(join(homes[homes.length - 1]!, '.assistant', 'cost', 'snapshots.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(snapshots.map((x: { provider: string; account: string; hourly_cost: number }) => [x.provider, x.account, x.hourly_cost]), [['pantry', 'the pantry', 2.25]]);
});

test('every cost command a live provider answers works for it: detail, forecast, trend, anomalies, tags, export', async () => {
  const detail = await assistant(['cost', 'detail', '--provider', 'pantry', '--sort-by', 'name']);
  assert.is(detail.code, 0, detail.stderr);
  assert.match(detail.stdout, /shelf-honey .*honey .*0\.5000/);
  assert.match(detail.stdout, /Runway: .*until/);
  const forecast = await assistant(['cost', 'forecast', '--provider', 'pantry'], undefined, 'json');
  assert.is(forecast.code, 0, forecast.stderr);
  assert.equal([JSON.parse(forecast.stdout).provider, JSON.parse(forecast.stdout).balance], ['pantry', 10]);
  const trend = await assistant(['cost', 'trend', '--provider', 'pantry'], undefined, 'json');
  assert.is(trend.code, 0, trend.stderr);
  assert.equal([JSON.parse(trend.stdout).provider, JSON.parse(trend.stdout).days.length], ['pantry', 7]);
  const anomalies = await assistant(['cost', 'anomalies', '--provider', 'pantry'], undefined, 'json');
  assert.is(anomalies.code, 0, anomalies.stderr);
  const tags = await assistant(['cost', 'tags', '--provider', 'pantry', '--key', 'team'], undefined, 'json');
  assert.is(tags.code, 0, tags.stderr);
  assert.equal(JSON.parse(tags.stdout).groups.map((g: { value: string }) => g.value), ['breakfast', 'tea']);
  const file = join(homes[homes.length - 1]!, 'pantry.csv');
  const exported = await assistant(['cost', 'export', '--provider', 'pantry', '--output', file]);
  assert.is(exported.code, 0, exported.stderr);
  assert.ok(existsSync(file));
  assert.match(readFileSync(file, 'utf8'), /^kind,id,name,/);
});

test('a provider with only a bill answers summary, forecast and trend from it through its own verb', async () => {
  cellarCalls.length = 0;
  const s = await assistant(['cost', 'summary', '--provider', 'cellar'], undefined, 'json');
  assert.is(s.code, 0, s.stderr);
  const doc = JSON.parse(s.stdout);
  assert.equal([doc.provider, doc.based_on, doc.month_to_date, doc.balance, doc.resources.map((r: { name: string }) => r.name)], ['cellar', 'the cellar ledger', 2.4, null, ['wine', 'cheese']]);
  const f = await assistant(['cost', 'forecast', '--provider', 'cellar'], undefined, 'json');
  assert.is(f.code, 0, f.stderr);
  assert.equal(JSON.parse(f.stdout).method, "linear: the month's average daily cost so far × the days left");
  const t = await assistant(['cost', 'trend', '--provider', 'cellar', '--start', '2026-01-01', '--end', '2026-01-03'], undefined, 'json');
  assert.is(t.code, 0, t.stderr);
  assert.equal(JSON.parse(t.stdout).days.map((d: { date: string; basis: string }) => [d.date, d.basis]), [['2026-01-01', 'billed']]);
  assert.equal(cellarCalls.map((c) => c[0]), ['cellar-bill', 'cellar-bill', 'cellar-bill']);
});

test('cost for a provider without the figures a command needs is refused before anything is read, naming the providers that can', async () => {
  pantry.calls.length = 0;
  cellarCalls.length = 0;
  const none = await assistant(['cost', 'summary', '--provider', 'attic']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /^error: usage: cost for provider "attic" is not available yet: providers with cost figures are gpucloud, cloud_a, cloud_b, cloud_c, pantry or cellar$/m);
  const billedOnly = await assistant(['cost', 'detail', '--provider', 'cellar']);
  assert.is(billedOnly.code, 2);
  assert.match(billedOnly.stderr, /^error: usage: cost for provider "cellar" is not available for this command yet: cost detail works for gpucloud, cloud_a, cloud_b, cloud_c or pantry$/m);
  assert.match(billedOnly.stderr, /^hint: cellar answers cost summary, trend, anomalies or forecast$/m);
  assert.equal([pantry.calls, cellarCalls], [[], []]);
});

test('deploy compiles through the registered provider\'s deploy capability, reading through the executor, and --help lists its target', async () => {
  pantry.calls.length = 0;
  const repo = makeRepo('jam', { 'README.md': '# jam\n' });
  const r = await assistant(['deploy', repo.dir, '--provider', 'pantry', '--port', '8080'], undefined, 'json');
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal([doc.plan.provider, doc.plan.summary, doc.plan.commands.map((c: { args: string[] }) => c.args), doc.stack.target, doc.stack.chosen], ['pantry', `restock jam at ${repo.sha.slice(0, 7)} (port 8080)`, [['pantry-count', 'jam']], 'shelf', 'shelf']);
  assert.equal(pantry.calls, ['all'], 'what exists was read through the executor; nothing was applied');
  const help = await assistant(['deploy', '--help']);
  assert.match(help.stdout, /--target <target> .*; pantry: shelf \(default\)/);
  assert.match(help.stdout, /--provider <name> +gpucloud \(default\), cloud_a or pantry/);
});

test('deploy --apply runs the stand-in provider\'s plan through the one apply path (journal, report with its URL)', async () => {
  pantry.calls.length = 0;
  const repo = makeRepo('honey', { 'README.md': '# honey\n' });
  const r = await assistant(['deploy', repo.dir, '--provider', 'pantry', '--port', '8080', '--apply'], undefined, 'json');
  assert.is(r.code, 0, r.stderr);
  assert.equal(pantry.calls, ['all', 'honey'], 'the compile read, then the applied step');
  assert.match(r.stdout, /"url": "pantry:\/\/honey"/);
  const runs = join(homes[homes.length - 1]!, '.assistant', 'runs');
  const journal = readdirSync(runs).filter((f) => f.endsWith('.jsonl'));
  assert.is(journal.length, 1, 'one run journal');
  assert.match(readFileSync(join(runs, journal[0]!), 'utf8'), /"type":"begin".*"steps":1/);
});

test('deploy refuses a target or a flag the chosen provider does not offer, naming what it does', async () => {
  const repo = makeRepo('tea', { 'README.md': '# tea\n' });
  const target = await assistant(['deploy', repo.dir, '--provider', 'pantry', '--target', 'vm']);
  assert.is(target.code, 2);
  assert.match(target.stderr, /^error: usage: --target must be shelf for pantry \(got "vm"\)$/m);
  const ami = await assistant(['deploy', repo.dir, '--provider', 'pantry', '--ami', 'ami-1']);
  assert.is(ami.code, 2);
  assert.match(ami.stderr, /^error: usage: --ami goes with --provider cloud_a --target vm$/m);
  const none = await assistant(['deploy', repo.dir, '--provider', 'cellar']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /^error: usage: unknown --provider "cellar" \(deploy supports gpucloud, cloud_a and pantry\)$/m);
});

test.run();
