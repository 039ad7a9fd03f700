/**
 * A new cloud is one folder (issue 23): a stand-in provider defined here — a client, a classify table
 * for its one verb, and capabilities (routing words, context reads, an answer without a model, a
 * credentials check) — is registered at run time, and `ask` (routed by its words and by its own
 * `--pantry` flag), `credentials test pantry` and `plan validate` work for it without any other file
 * knowing its name. A provider that can be routed to but not read is refused clearly.
 */
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandContext, type CommandContext } from '../commands/context.js';
import type { Provider } from '../engine/core/provider.js';
import { registerProvider } from '../engine/providers/index.js';

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

registerProvider(pantryProvider);
registerProvider(attic);

const homes: string[] = [];
test.after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** Runs `assistant <argv>` in this process (the registration lives here), as cli.ts would. */
async function assistant(argv: string[], input?: string, output: 'table' | 'json' = 'table'): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'assistant-capability-'));
  homes.push(home);
  writeFileSync(join(home, '.assistant.yaml'), '{}\n', { mode: 0o600 });
  const out = new PassThrough();
  const err = new PassThrough();
  const stdin = new PassThrough();
  stdin.end(input ?? '');
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d));
  err.on('data', (d: Buffer) => (stderr += d));
  const ctx: CommandContext = commandContext({
    io: { stdout: out, stderr: err, stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
    env: { HOME: home },
    home,
    globals: { output, outputExplicit: output !== 'table', debug: false, yes: false, sandbox: false },
  });
  const [group, ...rest] = argv;
  const mod = (await import(`../commands/${group}.js`)) as { run(a: string[], c: CommandContext): Promise<number> };
  const { reportError } = await import('../commands/report-error.js');
  const code = await mod.run(rest, ctx).catch((e: unknown) => reportError(e, ctx));
  return { code, stdout, stderr };
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

test.run();
