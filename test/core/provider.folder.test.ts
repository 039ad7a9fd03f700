/**
 * A new cloud is one folder and one manifest row (issue 37): larder (test/fixtures/larder/: a config
 * section, a provider through the core's HTTP kit, a local fake) is added to the registry at run time by
 * the row below, and with no other file touched its section is part of the config file (typos refused
 * with "did you mean", secrets masked), `credentials store|list|test` keep and use its token in the team's
 * backend, `onboarding scan` lists its sources and runs its probe, and `--sandbox` runs its plans against
 * its stand-in with its default for `<DEFAULT_SHELF>`, never its real endpoint.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDERS, type ProviderManifestEntry } from '../../engine/providers/index.js';
import { runInProcess } from '../support/in-process.js';
import { asClient, backendForFile, type BackendProcess } from '../support/backend.js';
import { tempHome } from '../support/cli.js';
import { startLarderFake, type LarderFake } from '../fixtures/larder/fake.js';


/** The one manifest row: what engine/providers/index.ts would hold for it. */
const LARDER_ROW: ProviderManifestEntry = {
  name: 'larder',
  verbs: ['larder-api'],
  has: ['credentials', 'bindings', 'sandbox'],
  load: async () => (await import('../fixtures/larder/provider.js')).larderProvider,
  config: async () => (await import('../fixtures/larder/config.js')).larderConfig,
};
PROVIDERS.add(LARDER_ROW);

const TOKEN = 'larder-token-that-must-stay-secret-0001';
let backend: BackendProcess;
let key = '';
let real: LarderFake;
backendForFile(test, 'team-larder', (b, k) => ((backend = b), (key = k)));
test.before(async () => {
  real = await startLarderFake(TOKEN, { jam: 7, honey: 2 });
});
test.after(async () => real?.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `assistant <argv>` in this process (where the row was added), as cli.ts runs it. */
async function assistant(home: string, argv: string[], o: { input?: string; env?: Record<string, string | undefined>; json?: boolean; sandbox?: boolean } = {}): Promise<Run> {
  return runInProcess(argv, { home, input: o.input, env: { HOME: home, PATH: process.env.PATH, ...o.env }, output: o.json ? 'json' : 'table', sandbox: o.sandbox });
}

function homeWith(config: string): string {
  const home = tempHome('assistant-larder-');
  writeFileSync(join(home, '.assistant.yaml'), config, { mode: 0o600 });
  return home;
}

const shelfPlan = (shelf: string) => JSON.stringify({ version: 1, provider: 'larder', commands: [{ args: ['larder-api', 'GET', `/v1/shelves/${shelf}`], reason: 'count one shelf' }] });

test('its config section is part of the file: a misspelt key in it is refused with "did you mean", its token masked', async () => {
  const typo = homeWith('larder:\n  api_tokn: x\n');
  const refused = await assistant(typo, ['config', 'show']);
  assert.is(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /unknown key "larder\.api_tokn"; did you mean "larder\.api_token"\?/);

  const home = homeWith(`larder:\n  api_token: ${TOKEN}\n  base_url: ${real.url}\n  default_shelf: jam\n`);
  const shown = await assistant(home, ['config', 'show'], { json: true });
  assert.is(shown.code, 0, shown.stderr);
  const doc = JSON.parse(shown.stdout);
  assert.equal([doc.config.larder.api_token, doc.config.larder.default_shelf], ['***', 'jam']);
  assert.not.ok(shown.stdout.includes(TOKEN) || shown.stderr.includes(TOKEN), 'the token appears nowhere');
});

test('its predefined binding comes from its section: <DEFAULT_SHELF> is bound and its real endpoint answers', async () => {
  const home = homeWith(`larder:\n  api_token: ${TOKEN}\n  base_url: ${real.url}\n  default_shelf: jam\n`);
  real.requests.length = 0;
  const r = await assistant(home, ['ask', '--apply'], { input: shelfPlan('<DEFAULT_SHELF>'), json: true });
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { status: string; steps: { request: string; status: string }[] };
  assert.equal([report.status, report.steps.map((s) => [s.request, s.status])], ['succeeded', [['larder GET /v1/shelves/jam', 'succeeded']]]);
  assert.equal(real.requests, ['GET /v1/shelves/jam']);
});

test('credentials store keeps its token in the backend; list shows it; test uses it when nothing local is set', async () => {
  const home = homeWith(`larder:\n  base_url: ${real.url}\n`);
  const env = asClient(backend, key);
  const stored = await assistant(home, ['credentials', 'store', 'larder', '--api-token', '-'], { input: TOKEN, env });
  assert.is(stored.code, 0, stored.stderr);
  assert.match(stored.stderr, /^stored larder\/default \(api_token\)/m);
  const stray = await assistant(home, ['credentials', 'store', 'larder', '--client-id', 'x'], { env });
  assert.is(stray.code, 2);
  assert.match(stray.stderr, /--client-id is not a field of larder/);

  const list = await assistant(home, ['credentials', 'list'], { env, json: true });
  assert.is(list.code, 0, list.stderr);
  assert.ok((JSON.parse(list.stdout) as { provider: string; name: string }[]).some((c) => c.provider === 'larder' && c.name === 'default'), list.stdout);

  real.requests.length = 0;
  const tested = await assistant(home, ['credentials', 'test', 'larder'], { env });
  assert.is(tested.code, 0, tested.stderr);
  assert.match(tested.stdout, /^larder credentials work \(source: the backend credential store \(larder\/default\)\); 2 shelves seen$/m);
  assert.equal(real.requests, ['GET /v1/shelves']);
  assert.not.ok(tested.stdout.includes(TOKEN) || tested.stderr.includes(TOKEN));
});

test('onboarding scan lists its sources in its own order and runs its probe through the executor', async () => {
  const home = homeWith(`larder:\n  base_url: ${real.url}\n`);
  const env = { LARDER_API_TOKEN: TOKEN };
  const unknown = await assistant(home, ['onboarding', 'scan', '--provider', 'lardr']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /hint: providers: .*larder/);

  real.requests.length = 0;
  const r = await assistant(home, ['onboarding', 'scan', '--provider', 'larder', '--check'], { env, json: true });
  assert.is(r.code, 0, r.stderr);
  const report = (JSON.parse(r.stdout) as { providers: { provider: string; title: string; sources: { kind: string; where: string; present: boolean; used?: boolean }[]; checked: boolean; authenticated: boolean | null; detail: string }[] }).providers;
  assert.equal(report.map((p) => p.provider), ['larder']);
  const [larder] = report;
  assert.is(larder!.title, 'larder (a stand-in cloud)');
  assert.equal(larder!.sources.map((s) => [s.kind, s.where.replace(/^.*: /, ''), s.present, Boolean(s.used)]), [['config', 'larder.api_token', false, false], ['env', 'LARDER_API_TOKEN', true, true]]);
  assert.equal([larder!.checked, larder!.authenticated], [true, true]);
  assert.match(larder!.detail, /^2 shelves seen; source: LARDER_API_TOKEN/);
  assert.equal(real.requests, ['GET /v1/shelves'], 'the probe read once, through the executor');
  assert.not.ok(r.stdout.includes(TOKEN) || r.stderr.includes(TOKEN));
});

test('--sandbox runs its plans against its stand-in, with its default for <DEFAULT_SHELF>; its real endpoint is never asked', async () => {
  // Credentials and an endpoint that would work outside the sandbox: the sandbox must not use them.
  const home = homeWith(`larder:\n  api_token: ${TOKEN}\n  base_url: ${real.url}\n`);
  real.requests.length = 0;
  const r = await assistant(home, ['ask', '--apply'], { input: shelfPlan('<DEFAULT_SHELF>'), json: true, sandbox: true });
  assert.is(r.code, 0, r.stderr);
  // The stand-in answers only its own token and knows only its own shelf: the step succeeding says it was asked.
  const report = JSON.parse(r.stdout) as { status: string; steps: { request: string; status: string }[] };
  assert.equal([report.status, report.steps.map((s) => [s.request, s.status])], ['succeeded', [['larder GET /v1/shelves/sandbox-shelf', 'succeeded']]]);
  assert.equal(real.requests, [], 'nothing left the sandbox');
  // Outside the sandbox the same plan has no <DEFAULT_SHELF> (the section names none): refused before anything is sent.
  const unbound = await assistant(home, ['ask', '--apply'], { input: shelfPlan('<DEFAULT_SHELF>'), json: true });
  assert.is(unbound.code, 2, unbound.stderr);
  assert.match(unbound.stdout + unbound.stderr, /DEFAULT_SHELF/);
  assert.equal(real.requests, []);
});

// ---- one folder and one row: nothing else knows it ------------------------------------------------

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'));
const FOLDER = 'test/fixtures/larder';

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    return e.isDirectory() ? sources(p) : /\.(ts|mjs|json|ya?ml)$/.test(e.name) ? [p] : [];
  });
}

test('no file outside its folder and this test names it, and its folder imports only the core and the schemas', () => {
  const here = relative(ROOT, fileURLToPath(import.meta.url)).split(sep).join('/').replace(/^dist\//, '').replace(/\.js$/, '.ts');
  const tree = ['engine', 'commands', 'machines', 'mcp', 'box', 'backend', 'schemas', 'emulator', 'test', 'examples'].flatMap(sources).concat('cli.ts');
  const naming = tree.filter((f) => !f.startsWith(`${FOLDER}/`) && f !== here && /\blarder\b/i.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.equal(naming, []);
  for (const f of sources(FOLDER)) {
    const imports = [...readFileSync(join(ROOT, f), 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]!);
    const outside = imports.filter((i) => i.startsWith('.') && !/^\.\/|^\.\.\/\.\.\/\.\.\/(engine\/core|schemas)\//.test(i));
    assert.equal(outside, [], `${f} imports ${outside.join(', ')}`);
  }
});

test.run();
