/**
 * Plan-engine fuzzing: seeded random mutations of the example plans. Every mutated plan must either pass
 * checkPlan or be refused with an AssistantError (exit 2 invalid / 3 gated) whose message is non-empty and
 * carries no stack; no other exception type is acceptable. Rejected plans are also fed to runPlan against a
 * real client + emulator (the client must never even be requested), and a small sample goes through the
 * real CLI (`ask --apply`, nothing may reach the emulator, not even a token request).
 *
 * Reproduce a run with FUZZ_SEED=<seed> (printed at the start); FUZZ_N overrides the mutation count.
 */
import { allProviders } from '../../engine/providers/index.js';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32 } from '../support/random.js';
import { startEmulator } from '../../emulator/index.js';
import { AssistantError } from '../../engine/core/errors.js';
import { createGpuCloudClient } from '../../engine/providers/gpucloud/client.js';
import { runChecked } from '../support/run.js';
import { checkPlan } from '../../engine/core/plan/check.js';
import { destructiveReasons } from '../../engine/providers/gpucloud/destroyer.js';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): the sample is about what the CLI prints and
// sends for a refused plan, not about the process (no signals, stdin handling or start-up).
cliInThisProcess();

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) >>> 0 : 0x5eed_2024;
const N = process.env.FUZZ_N ? Number(process.env.FUZZ_N) : 10_000;
const CLI_SAMPLE = 30;
const PREDEFINED = { DEFAULT_SSH_KEY_ID: 'k', DEFAULT_LOCATION: 'FIN-01' };
const STACK_LINE = /^\s+at /m;

console.log(`plan.fuzz: seed ${SEED} (FUZZ_SEED=${SEED} to reproduce), ${N} mutations`);


const examplesDir = fileURLToPath(new URL('../../../examples/plans/', import.meta.url));
const exampleTexts = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => readFileSync(join(examplesDir, f), 'utf8'));
/** The examples plus a read-only plan with bindings flowing through paths (more surface for path/placeholder edits). */
const BASES: string[] = [
  ...exampleTexts,
  JSON.stringify({
    version: 1,
    provider: 'gpucloud',
    commands: [
      { args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'list', produces: { FIRST_ID: '$[0].id' } },
      { args: ['gpucloud-api', 'GET', '/v1/instances/<FIRST_ID>'], reason: 'read one' },
      { args: ['gpucloud-api', 'PUT', '/v1/instances', '{"action":"start","id":"<FIRST_ID>"}'], reason: 'start it' },
    ],
  }),
];

// ---------------------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------------------

class Fuzzer {
  constructor(readonly rnd: () => number) {}
  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  /** A fresh copy of a random element: later mutations must never edit a shared value (or an earlier plan). */
  pick<T>(xs: readonly T[]): T {
    const v = xs[this.int(xs.length)]!;
    return typeof v === 'object' && v !== null ? structuredClone(v) : v;
  }
  /** A random element itself (to mutate it in place). */
  pickRef<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.rnd() < p;
  }
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function commandsOf(plan: Json): Obj[] {
  if (!isObj(plan) || !Array.isArray(plan.commands)) return [];
  return plan.commands.filter(isObj);
}

function argsOf(f: Fuzzer, plan: Json): Json[] | undefined {
  const cmds = commandsOf(plan).filter((c) => Array.isArray(c.args));
  return cmds.length ? (f.pickRef(cmds).args as Json[]) : undefined;
}

const HUGE = () => 'x'.repeat(200_000);
const WEIRD_VALUES: Json[] = [null, true, false, 0, -1, 1.5, 1e308, '', ' ', '1', 'null', [], [null], {}, { a: 1 }, '\u0000', '\ud800', '🚀'];
const UNKNOWN_KEYS = ['produce', 'Produces', 'arg', 'command', 'Reason', 'extra', '__proto__', 'constructor', 'prototype', 'destroyer', 'toString', ''];
const VERBS = ['gpucloud', 'gpucloud-wait', 'GPUCLOUD-API', 'Gpucloud-Api', ' gpucloud-api', 'gpucloud-api ', 'gpucloud_api', 'shell', 'sh', '', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'gpucloud-api\u0000', 'ｇpucloud-api'];
const METHODS = ['get', 'Get', 'pOsT', ' put ', 'PUT\n', 'delete', 'Delete', 'DELETE', 'PATCH', 'patch', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE', 'FOO', '', ' ', 'DEL ETE', 'GET\u0000', 'ＧＥＴ', 'POST /v1/instances', '<METHOD>', 'get;delete'];
const PATHS = [
  '/v1/instances',
  '/v1/instances/',
  '/v1/instances//',
  '//v1/instances',
  '/v1//instances',
  '/v1/instances/..',
  '/v1/../v1/instances',
  '/v1/x/../instances',
  '/v1/./instances',
  '/v1/instances/.',
  '../v1/instances',
  'v1/instances',
  '/V1/INSTANCES',
  '/v1/Instances',
  '/v1/instances?action=delete',
  '/v1/instances#frag',
  '/v1/instances?',
  'http://evil.example/v1/instances',
  'https://api.example/v1/instances',
  'HTTP://x/v1/instances',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '//evil.example/v1/instances',
  '/v2/instances',
  '/instances',
  '/',
  '',
  ' ',
  '/v1',
  '/v1/',
  '/v1/volumes',
  '/v1/clusters',
  '/v1/volumes/',
  '/v1/clusters?x=1',
  '/v1/balance',
  '/v1/locations',
  '/v1/instance-types',
  '/v1/instances/<INSTANCE_ID>',
  '/v1/instances/<NOPE>',
  '/v1/<DEFAULT_LOCATION>',
  '/v1/instances/%2e%2e',
  '/v1/x/%2e%2e/instances',
  '/v1/x/%2E./instances',
  '/v1/x\\..\\instances',
  '/v1/inst\tances',
  '/v1/inst\nances',
  '/v1/\u0000',
  '/v1/instances\n',
  // Variants a server may normalise (issue 9 §2): each must be invalid or classified as its route.
  '/v1/instances;x=1',
  '/v1/instances.',
  '/v1/instances%20',
  '/v1/instances%252e',
  '/v1/instances/%2E',
  '/v1/instances/action',
  '/v1/Instances/Action',
  '/v1/instances/action.json',
  '/v1/instances?Action=delete',
  '/v1/container-deployments/web/purge-queue',
  '/v1/container-deployments/web;x/purge-queue',
  '/v1/container-deployments/web%2Fpurge-queue',
  '/v1/job-deployments/<NAME>/purge-queue',
  '/v1/job-deployments/web/<OP>',
];
const ACTION_BODIES = [
  '{"action":"delete","id":"x"}',
  '{"action":"DELETE","id":"x"}',
  '{"action":" delete ","id":"x"}',
  '{"action":"\\u0064elete","id":"x"}',
  '{"\\u0061ction":"delete","id":"x"}',
  '{"action":"discontinue"}',
  '{"action":"force_shutdown"}',
  '{"action":"delete_stuck"}',
  '{"action":"hibernate"}',
  '{"action":"start","action":"delete"}',
  '{"action":"delete","action":"start"}',
  '{"actions":[{"action":"delete","id":"x"}]}',
  '{"actions":[{"action":"start"},{"action":"delete"}]}',
  '{"actions":{"action":"delete"}}',
  '{"actions":["delete"]}',
  '{"actions":[null]}',
  '[{"action":"delete"}]',
  '[[{"action":"delete"}]]',
  '{"action":null}',
  '{"action":1}',
  '{"action":["delete"]}',
  '{"action":{"delete":true}}',
  '{"action":true}',
  '{"action":"start"}',
  '{"action":"<ACTION>"}',
  '{"action":"<DEFAULT_LOCATION>"}',
  '  \n\t{"action" :\n "delete"}  ',
  '"delete"',
  'null',
  '0',
  '[]',
  '{}',
  '',
  ' ',
  'action=delete',
  "{'action':'delete'}",
  '{"action":"delete"',
  '{"action":"delete"}}',
  '\ufeff{"action":"delete"}',
  '{"action":"dele\\u0000te"}',
];

type Mutation = (f: Fuzzer, plan: Json) => Json;

const mutations: [string, Mutation][] = [
  ['top-level replace', (f) => f.pick<Json>([null, [], [null], 0, 1, 'plan', true, {}, { version: 1 }])],
  ['wrap in array', (_f, p) => [p]],
  [
    'delete top-level key',
    (f, p) => {
      if (isObj(p)) delete p[f.pick(['version', 'provider', 'commands', 'summary'])];
      return p;
    },
  ],
  [
    'add unknown key',
    (f, p) => {
      const target = f.chance(0.5) ? p : f.chance(0.5) ? commandsOf(p)[0] : p;
      const key = f.pick(UNKNOWN_KEYS);
      // An own "__proto__" property, as JSON.parse creates from a real plan document (not a prototype change).
      if (isObj(target)) Object.defineProperty(target, key, { value: f.pick(WEIRD_VALUES), enumerable: true, writable: true, configurable: true });
      return p;
    },
  ],
  [
    'rename key',
    (f, p) => {
      const [from, to] = f.pick([
        ['produces', 'produce'],
        ['produces', 'Produces'],
        ['args', 'arg'],
        ['args', 'argv'],
        ['reason', 'reasons'],
        ['commands', 'command'],
        ['commands', 'steps'],
        ['version', 'Version'],
        ['provider', 'providers'],
      ] as const);
      for (const t of [p, ...commandsOf(p)]) {
        if (isObj(t) && from in t) {
          t[to] = t[from]!;
          delete t[from];
        }
      }
      return p;
    },
  ],
  [
    'change type',
    (f, p) => {
      const cmd = f.pickRef(commandsOf(p).length ? commandsOf(p) : [{} as Obj]);
      const where = f.pick(['version', 'provider', 'commands', 'args', 'reason', 'produces', 'arg', 'question', 'notes'] as const);
      const v = f.pick<Json>([...WEIRD_VALUES, 'gpucloud-api', ['gpucloud-api'], 2, '1', { length: 3 }]);
      if (where === 'version' || where === 'provider' || where === 'commands' || where === 'question' || where === 'notes') {
        if (isObj(p)) p[where] = v;
      } else if (where === 'arg') {
        const args = argsOf(f, p);
        if (args && args.length) args[f.int(args.length)] = v;
      } else cmd[where] = v;
      return p;
    },
  ],
  [
    'change verb',
    (f, p) => {
      const args = argsOf(f, p);
      if (args) args[0] = f.pick(VERBS);
      return p;
    },
  ],
  [
    'change method',
    (f, p) => {
      const args = argsOf(f, p);
      if (args) args[1] = f.pick(METHODS);
      return p;
    },
  ],
  [
    'change path',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args) return p;
      const cur = typeof args[2] === 'string' ? args[2] : '/v1/instances';
      args[2] = f.pick<string>([
        f.pick(PATHS),
        `${cur}/`,
        `${cur}//`,
        `/${cur}`,
        cur.replace('/v1/', '/v1//'),
        cur.replace('/v1/', '/v1/../'),
        `${cur}/..`,
        `http://127.0.0.1:1${cur}`,
        cur.toUpperCase(),
        `${cur}?q=${encodeURIComponent('../')}`,
        cur.slice(0, f.int(cur.length + 1)),
        cur + '/' + HUGE().slice(0, 5000),
      ]);
      return p;
    },
  ],
  [
    'change body',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args) return p;
      const cur = typeof args[3] === 'string' ? args[3] : '{"action":"start","id":"x"}';
      const choice = f.int(8);
      if (choice === 0) args[3] = cur.slice(0, f.int(cur.length + 1));
      else if (choice === 1) args[3] = f.pick(ACTION_BODIES);
      else if (choice === 2) args[3] = cur.replace(/^\s*\{/, '{"action":"delete",');
      else if (choice === 3) args[3] = cur.replace(/^\s*\{/, '{"action":"\\u0064elete",');
      else if (choice === 4) args[3] = ` \n\t${cur}\r\n `;
      else if (choice === 5) args[3] = f.pick(['not json', '{', '}', '{"a":}', 'undefined', 'NaN', '{"a":1,}', '<BODY>']);
      else if (choice === 6) args.splice(3, args.length - 3);
      else args[3] = JSON.stringify({ blob: HUGE() });
      return p;
    },
  ],
  [
    'set action path + destructive body',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args) return p;
      args[0] = 'gpucloud-api';
      args[1] = f.pick(['PUT', 'put', 'POST', 'PATCH', ' Put ']);
      args[2] = f.pick(['/v1/instances', '/v1/instances/', '//v1/instances'.slice(1), '/v1//instances', '/V1/Instances', '/v1/instances?x=1', '/v1/clusters', '/v1/volumes', '/v1/volumes/', '/v1/instances/action', '/v1/instances/<X>']);
      args[3] = f.pick(ACTION_BODIES);
      return p;
    },
  ],
  [
    'extra / missing args',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args) return p;
      if (f.chance(0.5)) args.push(f.pick<Json>(['{}', 'extra', '', '{"action":"delete"}']));
      else args.splice(f.int(args.length), 1 + f.int(2));
      return p;
    },
  ],
  [
    'placeholder edit',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args) return p;
      const idx = 2 + f.int(Math.max(1, args.length - 2));
      const cur = typeof args[idx] === 'string' ? (args[idx] as string) : '/v1/instances';
      const ph = f.pick(['<NOPE>', '<default_location>', '<Default_Location>', '<PROJECT_ID>', '<INSTANCE_ID>', '<FIRST_ID>', '<>', '<1X>', '< X >', '<<X>>', '<X_>', '<DEFAULT_SSH_KEY_ID>', '<DEFAULT_LOCATION>', '<A\u0000>']);
      args[idx] = f.chance(0.5) ? cur.replace(/<[^>]*>/, ph) : cur + ph;
      return p;
    },
  ],
  [
    'produces edit',
    (f, p) => {
      const cmds = commandsOf(p);
      if (!cmds.length) return p;
      const cmd = f.pickRef(cmds);
      cmd.produces = f.pick<Json>([
        { instance_id: '$.id' },
        { INSTANCE_ID: '' },
        { INSTANCE_ID: 'id' },
        { INSTANCE_ID: '  $.id' },
        { INSTANCE_ID: 5 },
        { INSTANCE_ID: null },
        { '': '$.id' },
        { 'INSTANCE-ID': '$.id' },
        { INSTANCE_ID: '$..[?(@.constructor)]' },
        { DEFAULT_LOCATION: '$.id' },
        ['INSTANCE_ID'],
        'INSTANCE_ID',
        {},
        null,
      ]);
      return p;
    },
  ],
  [
    'reorder / duplicate / drop commands',
    (f, p) => {
      if (!isObj(p) || !Array.isArray(p.commands)) return p;
      const c = p.commands;
      const op = f.int(4);
      if (op === 0) c.reverse();
      else if (op === 1 && c.length) c.push(JSON.parse(JSON.stringify(c[f.int(c.length)])) as Json);
      else if (op === 2) c.splice(0, c.length);
      else if (c.length) p.commands = Array.from({ length: 300 }, () => JSON.parse(JSON.stringify(c[0])) as Json);
      return p;
    },
  ],
  [
    'nest commands',
    (f, p) => {
      const cmds = commandsOf(p);
      if (!cmds.length) return p;
      const cmd = f.pickRef(cmds);
      const copy = JSON.parse(JSON.stringify(cmd)) as Obj;
      const op = f.int(4);
      if (op === 0) cmd.commands = [copy];
      else if (op === 1 && Array.isArray(cmd.args)) cmd.args = [copy.args ?? null];
      else if (op === 2 && Array.isArray(cmd.args)) cmd.args.push(copy);
      else if (isObj(p)) p.commands = [p.commands ?? null];
      return p;
    },
  ],
  [
    'huge string',
    (f, p) => {
      const cmds = commandsOf(p);
      const huge = HUGE();
      if (f.chance(0.3) && isObj(p)) p.summary = huge;
      else if (cmds.length) {
        const cmd = f.pickRef(cmds);
        if (f.chance(0.5) || !Array.isArray(cmd.args)) cmd.reason = huge;
        else cmd.args[f.int(cmd.args.length)] = huge;
      }
      return p;
    },
  ],
  [
    'unicode / control characters',
    (f, p) => {
      const args = argsOf(f, p);
      if (!args || !args.length) return p;
      const i = f.int(args.length);
      if (typeof args[i] === 'string') {
        const s = args[i] as string;
        const at = f.int(s.length + 1);
        args[i] = s.slice(0, at) + f.pick(['\u0000', '\u202e', '\ud83d', '\r\n', '\t', '\u00a0', '\\', '"', '%00', '%2F']) + s.slice(at);
      }
      return p;
    },
  ],
];

function mutate(f: Fuzzer): { plan: Json; applied: string[] } {
  let plan = JSON.parse(f.pick(BASES)) as Json;
  const applied: string[] = [];
  const rounds = 1 + f.int(3);
  for (let r = 0; r < rounds; r++) {
    const [name, m] = f.pickRef(mutations);
    applied.push(name);
    plan = m(f, plan);
  }
  return { plan, applied };
}

// ---------------------------------------------------------------------------------------------------------
// Oracle
// ---------------------------------------------------------------------------------------------------------

type Verdict = { kind: 'accepted' } | { kind: 'rejected'; exitCode: number; message: string };

/**
 * A plan's JSON, once per case: the failure messages quote its start and the CLI sample reads its length.
 * Serialising a plan of 300 commands or 200,000-character strings is most of a case's cost, so each case
 * does it once (it did it three times, a third of the file's CPU).
 */
function described(plan: Json): { short: string; chars: number } {
  const s = JSON.stringify(plan) ?? String(plan);
  return { short: s.length > 400 ? `${s.slice(0, 400)}… (${s.length} chars)` : s, chars: s.length };
}

function classify(plan: Json, where: string): Verdict {
  try {
    const out = checkPlan(plan, { providers: PROVIDERS, destroyer: false, predefined: { ...PREDEFINED } });
    assert.ok(out && typeof out === 'object', `${where}: checkPlan returned ${String(out)}`);
    return { kind: 'accepted' };
  } catch (err) {
    if (!(err instanceof AssistantError)) {
      const e = err as Error;
      assert.unreachable(`${where}: checkPlan threw ${e?.constructor?.name ?? typeof err} (not an AssistantError): ${e?.message}\n${e?.stack}`);
    }
    const ae = err as AssistantError;
    assert.ok(ae.exitCode === 2 || ae.exitCode === 3, `${where}: exit code ${ae.exitCode} (${ae.code}: ${ae.message})`);
    assert.type(ae.message, 'string');
    assert.ok(ae.message.trim().length > 0, `${where}: empty message`);
    assert.not.ok(STACK_LINE.test(ae.message), `${where}: stack trace in the message: ${ae.message.slice(0, 500)}`);
    return { kind: 'rejected', exitCode: ae.exitCode, message: ae.message };
  }
}

/**
 * What the server would see for a path: fetch() parses it with the WHATWG URL parser, which resolves
 * `.`/`..` (also percent-encoded), turns `\` into `/`, and drops tabs and newlines.
 */
function serverPath(path: string): string {
  try {
    return new URL(path, 'http://origin.invalid').pathname;
  } catch {
    return path;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------

interface Case {
  i: number;
  plan: Json;
  applied: string[];
  verdict: Verdict;
  /** What a failure message says about the case: its number, mutations, seed and the plan's start. */
  where: string;
  /** The length of the plan's JSON. */
  chars: number;
}
const rejected: Case[] = [];

test(`${N} seeded mutations: checkPlan returns a plan or throws an AssistantError (exit 2/3) without a stack`, () => {
  const f = new Fuzzer(mulberry32(SEED));
  const started = performance.now();
  const counts = { accepted: 0, invalid: 0, gated: 0 };
  const byMutation = new Map<string, { accepted: number; rejected: number }>();
  const gateGaps: string[] = [];
  for (let i = 0; i < N; i++) {
    const { plan, applied } = mutate(f);
    const { short, chars } = described(plan);
    const where = `mutation #${i} [${applied.join(' + ')}] (seed ${SEED}) plan=${short}`;
    const verdict = classify(plan, where);
    if (verdict.kind === 'accepted') {
      counts.accepted++;
      // Gate oracle: an accepted plan (destroyer off) must not be destructive as the server will see it.
      for (const cmd of commandsOf(plan)) {
        const [verb, method, path, body] = cmd.args as string[];
        if (verb !== 'gpucloud-api' || typeof path !== 'string' || typeof method !== 'string') continue;
        const seen = serverPath(path);
        if (seen !== path && destructiveReasons(method, seen, body).length) gateGaps.push(`#${i}: ${method} ${JSON.stringify(path)} → server sees ${seen}`);
      }
    } else {
      if (verdict.exitCode === 2) counts.invalid++;
      else counts.gated++;
      rejected.push({ i, plan, applied, verdict, where, chars });
    }
    for (const name of new Set(applied)) {
      const b = byMutation.get(name) ?? { accepted: 0, rejected: 0 };
      b[verdict.kind === 'accepted' ? 'accepted' : 'rejected']++;
      byMutation.set(name, b);
    }
  }
  console.log(
    `  checkPlan: ${counts.accepted} accepted, ${counts.invalid} invalid (exit 2), ${counts.gated} gated (exit 3) in ${Math.round(performance.now() - started)} ms`,
  );
  // Every mutation kind must have produced rejections (otherwise the fuzzer is not exercising it).
  for (const [name, b] of byMutation) assert.ok(b.rejected > 0, `mutation "${name}" never produced a rejected plan`);
  assert.ok(counts.invalid > 0 && counts.gated > 0 && counts.accepted > 0, JSON.stringify(counts));
  assert.is(
    gateGaps.length,
    0,
    `destroyer gate gap: accepted plan(s) are destructive once the URL parser normalises the path, e.g.\n    ${gateGaps.slice(0, 3).join('\n    ')}`,
  );
});

test('runPlan refuses every rejected mutation before requesting a client (shared emulator, real client)', async () => {
  assert.ok(rejected.length > 1000, `only ${rejected.length} rejected mutations`);
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    const client = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, retry: { delaysMs: [1] } });
    let requested = 0;
    const context = {
      client: async () => {
        requested++;
        return client;
      },
      signal: new AbortController().signal,
    };
    const started = performance.now();
    for (const c of rejected) {
      const where = c.where;
      let threw: unknown;
      try {
        await runChecked(c.plan, { destroyer: false, predefined: { ...PREDEFINED }, providers: PROVIDERS, context });
      } catch (err) {
        threw = err;
      }
      assert.ok(threw instanceof AssistantError, `${where}: runPlan did not throw an AssistantError (${String(threw)})`);
      assert.is((threw as AssistantError).exitCode, c.verdict.kind === 'rejected' ? c.verdict.exitCode : -1, where);
      assert.is(requested, 0, `${where}: the gpucloud client was requested for a rejected plan`);
    }
    console.log(`  runPlan: ${rejected.length} rejected plans refused in ${Math.round(performance.now() - started)} ms; client requested ${requested} times`);
    assert.is(requested, 0);
    assert.is(client.stats.requests + client.stats.tokenRequests, 0);
    assert.is(emu.requests().length, 0, 'nothing reached the emulator');
  } finally {
    await emu.close();
  }
});

test(`a sample of ${CLI_SAMPLE} rejected mutations through the real CLI (ask --apply): exit 2/3, error line, no stack, no request`, async () => {
  // Spread the sample over both exit codes and the mutation kinds, deterministically.
  const f = new Fuzzer(mulberry32(SEED ^ 0x9e3779b9));
  const gated = rejected.filter((c) => c.verdict.kind === 'rejected' && c.verdict.exitCode === 3);
  const invalid = rejected.filter((c) => c.verdict.kind === 'rejected' && c.verdict.exitCode === 2 && c.chars < 100_000);
  const sample: Case[] = [];
  for (let k = 0; k < CLI_SAMPLE; k++) sample.push(f.pickRef(k % 3 === 0 && gated.length ? gated : invalid));

  const dir = tempDir('assistant-fuzz-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `gpucloud:\n  default_location: ${PREDEFINED.DEFAULT_LOCATION}\n  default_ssh_key_id: ${PREDEFINED.DEFAULT_SSH_KEY_ID}\n`, { mode: 0o600 });

  await withEmulator(async ({ emu, env }) => {
    const started = performance.now();
    // One at a time: runs in this process take turns (two at once would make the second a child process).
    const PARALLEL = 1;
    for (let at = 0; at < sample.length; at += PARALLEL) {
      await Promise.all(
        sample.slice(at, at + PARALLEL).map(async (c) => {
          const where = c.where;
          const r = await runCli(['--config', config, 'ask', '--apply'], { env, input: JSON.stringify(c.plan), timeoutMs: 30_000 });
          const expected = c.verdict.kind === 'rejected' ? c.verdict.exitCode : -1;
          assert.is(r.code, expected, `${where}: exit ${r.code}\nstderr: ${r.stderr}`);
          assert.match(r.stderr, /^error: /m, `${where}: no error line\nstderr: ${r.stderr}`);
          assert.not.ok(STACK_LINE.test(r.stderr), `${where}: stack in stderr: ${r.stderr}`);
          assert.not.ok(STACK_LINE.test(r.stdout), `${where}: stack in stdout: ${r.stdout}`);
        }),
      );
      assert.is(emu.requests().length, 0, 'nothing reached the emulator, not even a token request');
    }
    console.log(`  CLI: ${sample.length} rejected plans (${sample.filter((c) => c.verdict.kind === 'rejected' && c.verdict.exitCode === 3).length} gated) in ${Math.round(performance.now() - started)} ms`);
    assert.is(emu.requests().length, 0);
  });
});

test.run();
