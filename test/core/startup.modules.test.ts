/**
 * Start-up guard (issue 25): what a command loads is counted, not timed. A gpucloud list or a one-step
 * apply loads the gpucloud provider and nothing of the others (no ssh2, no Kubernetes code, no cloud CLI
 * rules), no AI or MCP SDK, and none of the libraries kept off the hot path (zod: about 95 modules;
 * yaml; ofetch) — each of those once cost more start-up than the request itself. `--version` loads next to
 * nothing. The counts come from scripts/module-trace.mjs, which the bench uses too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emulatorEnv, runCli, withEmulator } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const TRACE = new URL('../../../scripts/module-trace.mjs', import.meta.url);
const { parseModuleTrace } = (await import(TRACE.href)) as { parseModuleTrace(text: string): { esm: string[]; cjs: string[] } };

const temp = () => tempDir('assistant-startup-');

/** Every module (by URL) `assistant <args>` loads, built-ins left out. */
async function modulesOf(args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<string[]> {
  const home = temp();
  const file = join(home, 'trace.txt');
  writeFileSync(file, '');
  const r = await runCli(args, { home, input: opts.input, env: { ...opts.env, NODE_OPTIONS: `--import=${pathToFileURL(TRACE.pathname).href}`, MODULE_TRACE_FILE: file } });
  assert.is(r.code, 0, `assistant ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const t = parseModuleTrace(readFileSync(file, 'utf8'));
  return [...t.esm, ...t.cjs];
}

/** What a gpucloud read must not load, each with why it would be there. */
const NOT_ON_A_GPUCLOUD_READ: [RegExp, string][] = [
  [/\/dist\/engine\/providers\/(?!gpucloud\/)[^/]+\/(?!config\.js$)/, 'another provider'],
  [/\/dist\/engine\/core\/kits\/cli\//, 'the CLI clouds\' kit'],
  [/\/node_modules\/ssh2\//, 'ssh2 (ssh and k8s steps only)'],
  [/\/node_modules\/(openai|@anthropic-ai|@aws-sdk|google-auth-library)\//, 'an AI SDK (only when a model is called)'],
  [/\/node_modules\/@modelcontextprotocol\//, 'the MCP SDK (`assistant mcp` only)'],
  // ai/kinds.js is the table of AI flags `ask` registers; the rest of ai/ is the question flow.
  [/\/dist\/engine\/(producers\/(ai\/(?!kinds\.js)|planner\/|reports\/|iac\/)|core\/routing\/route\.js)/, 'the question flow (ask without --apply)'],
  [/\/node_modules\/zod\//, 'zod (plans that plainly fit the schema are checked without it: engine/core/plan/shape.ts)'],
  [/\/node_modules\/yaml\//, 'yaml (only for a config file or -o yaml)'],
  [/\/node_modules\/(ofetch|node-fetch-native)\//, 'ofetch (Node\'s fetch is used)'],
  [/\/node_modules\/ioredis\//, 'ioredis (only with a redis_url)'],
  // The cost capability is a light module; what prices loads when a cost command or a budget prices.
  [/\/dist\/(engine\/producers\/cost\/|engine\/providers\/gpucloud\/cost\.js|machines\/cost\/)/, 'the cost code (cost commands and budgets only)'],
];

function assertNone(loaded: string[], what: string): void {
  for (const [pattern, why] of NOT_ON_A_GPUCLOUD_READ) {
    const hits = loaded.filter((u) => pattern.test(u));
    assert.equal(hits.slice(0, 5), [], `${what} loaded ${why}: ${hits.slice(0, 5).join(', ')}${hits.length > 5 ? ` and ${hits.length - 5} more` : ''}`);
  }
}

test('gpucloud list loads the gpucloud provider and nothing a list does not use', () =>
  withEmulator(async ({ emu }) => {
    const loaded = await modulesOf(['gpucloud', 'list', 'instances', '-o', 'json'], { env: emulatorEnv(emu) });
    assert.ok(loaded.some((u) => u.endsWith('/dist/engine/providers/gpucloud/provider.js')), 'the gpucloud provider is loaded');
    assertNone(loaded, 'gpucloud list');
    // Issue 40: 113 modules before the apply machinery, the Redis limiter and the prompt left the read path
    // (106); one more since: commands/flag-coerce.js, which types every command's flags without zod.
    assert.ok(loaded.length <= 107, `${loaded.length} modules (at most 107): ${loaded.length > 107 ? 'something a list does not use came back' : ''}`);
    // A read validates and runs its plan, nothing more: no name checks, journal, reservations or run lock
    // (creates only), no Redis limiter without a redis_url, no prompt (an action's confirmation).
    for (const [pattern, why] of [
      [/\/dist\/engine\/core\/plan\/(names|journal|reservations|run-lock)\.js$/, 'the apply machinery'],
      [/\/dist\/machines\/apply\/index\.js$/, 'the apply path'],
      [/\/dist\/engine\/providers\/gpucloud\/limits\/redis\.js$/, 'the Redis limiter (only with a redis_url)'],
      [/\/dist\/commands\/prompt\.js$/, 'the confirmation prompt'],
    ] as const) {
      assert.equal(loaded.filter((u) => pattern.test(u)), [], `gpucloud list loaded ${why}`);
    }
    // Issue 40: a read's one lock is a lock file (no lock library), a plan without `produces` evaluates
    // no JSONPath, and only --sandbox needs the sandbox.
    for (const [pattern, why] of [
      [/\/node_modules\/(proper-lockfile|graceful-fs)\//, 'the lock library'],
      [/\/node_modules\/jsonpath-plus\//, 'jsonpath-plus'],
      [/\/node_modules\/ini\//, 'ini (INI credential files only)'],
      [/\/dist\/engine\/producers\/sandbox\//, 'the sandbox'],
    ] as const) {
      assert.equal(loaded.filter((u) => pattern.test(u)), [], `gpucloud list loaded ${why}`);
    }
  }));

test('a one-step ask --apply loads what applying needs, not the question flow, the maker or the other providers', () =>
  withEmulator(async ({ emu }) => {
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] });
    const loaded = await modulesOf(['ask', '--apply'], { env: emulatorEnv(emu), input: plan });
    assert.ok(loaded.some((u) => u.endsWith('/dist/machines/apply/index.js')));
    assertNone(loaded, 'ask --apply');
    // Issue 40: 128 before the Redis limiter left it (a plan without creates reserves no names either),
    // 127 after; one more since: commands/flag-coerce.js (flags typed, without zod).
    assert.ok(loaded.length <= 128, `${loaded.length} modules (at most 128)`);
    assert.equal(loaded.filter((u) => /\/dist\/engine\/providers\/gpucloud\/limits\/redis\.js$/.test(u)), [], 'ask --apply loaded the Redis limiter without a redis_url');
  }));

test('a budget on ask --apply is read as a number without zod (every flag kind is coerced without a schema library)', () =>
  withEmulator(async ({ emu }) => {
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] });
    const loaded = await modulesOf(['ask', '--apply', '--max-hourly-cost', '5', '--timeout', '30s'], { env: emulatorEnv(emu), input: plan });
    assert.ok(loaded.some((u) => u.endsWith('/dist/commands/flag-coerce.js')), 'the flags were coerced');
    assert.equal(loaded.filter((u) => /\/node_modules\/zod\//.test(u)).slice(0, 3), [], 'ask --apply with a budget loaded zod');
  }));

test('--sandbox gpucloud list starts the emulator in process without an HTTP server or the shared-limits lock library', async () => {
  const loaded = await modulesOf(['--sandbox', 'gpucloud', 'list', 'instances']);
  assert.ok(loaded.some((u) => u.endsWith('/dist/emulator/server.js')), 'the emulator is loaded');
  assertNone(loaded, '--sandbox gpucloud list');
  const lock = loaded.filter((u) => /\/node_modules\/(proper-lockfile|graceful-fs)\//.test(u));
  assert.equal(lock, [], 'the sandbox shares no limits, so it takes no lock');
});

test('a plan naming ssh steps loads ssh (and only then): the registry loads a provider when a plan needs it', async () => {
  const plan = JSON.stringify({ version: 1, provider: 'ssh', commands: [{ args: ['ssh-exec', '203.0.113.7', 'uptime'], reason: 'check' }] });
  const loaded = await modulesOf(['plan', 'validate'], { input: plan });
  assert.ok(loaded.some((u) => u.endsWith('/dist/engine/providers/ssh/provider.js')), 'ssh is loaded for an ssh plan');
  // ssh shares kubeconfig helpers with k8s; no other provider's own module is loaded.
  const others = loaded.filter((u) => /\/dist\/engine\/providers\/(gpucloud|k8s|cloud_a|cloud_b|cloud_c)\/provider\.js$/.test(u));
  assert.equal(others, [], 'no other provider');
});

test('--version loads next to nothing', async () => {
  const loaded = await modulesOf(['--version']);
  assert.ok(loaded.length <= 6, `${loaded.length}: ${loaded.join(', ')}`);
  assert.not.ok(loaded.some((u) => u.includes('/node_modules/')), loaded.join(', '));
});

test.run();
