/**
 * The bundled CLI (issue 40): `npm run build` bundles tsc's dist/ into dist/bundle/ (scripts/bundle.mjs) and
 * bin/assistant.js runs it, but only while it is newer than tsc's last build, so editing a file and running
 * `tsc` never leaves an old bundle in charge. The start-up guard counts a loaded chunk as the modules inside
 * it (scripts/module-trace.mjs reads esbuild's metafile), so the bundled and the unbundled CLI are held to
 * the same list of modules.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, emulatorEnv, runCli, withEmulator } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const TRACE = new URL('../../../scripts/module-trace.mjs', import.meta.url);
const { parseModuleTrace } = (await import(TRACE.href)) as { parseModuleTrace(text: string): { esm: string[]; cjs: string[] } };
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const temp = () => tempDir('assistant-bundle-');

/** A package root with bin/assistant.js and a dist/ whose two entry points say which one ran. */
function fakePackage(times: { tsc: number; bundle?: number }): string {
  const root = temp();
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
  copyFileSync(BIN, join(root, 'bin', 'assistant.js'));
  writeFileSync(join(root, 'dist', 'cli.js'), "process.stdout.write('tsc');\n");
  writeFileSync(join(root, 'dist', '.tsbuildinfo'), '{}');
  utimesSync(join(root, 'dist', '.tsbuildinfo'), times.tsc, times.tsc);
  if (times.bundle !== undefined) {
    writeFileSync(join(root, 'dist', 'bundle', 'cli.js'), "process.stdout.write('bundle');\n");
    utimesSync(join(root, 'dist', 'bundle', 'cli.js'), times.bundle, times.bundle);
  }
  return root;
}

const whichRuns = (root: string, env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'assistant.js')], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
};

test('bin/assistant.js runs the bundle while it is newer than tsc\'s build, and tsc\'s files once tsc has built again', () => {
  assert.is(whichRuns(fakePackage({ tsc: 1_000, bundle: 2_000 })), 'bundle');
  assert.is(whichRuns(fakePackage({ tsc: 2_000, bundle: 1_000 })), 'tsc', 'a bundle older than the last tsc build is stale');
  // npm pack gives every file one date: a packed bundle is as new as the build it came from.
  assert.is(whichRuns(fakePackage({ tsc: 1_000, bundle: 1_000 })), 'bundle');
  assert.is(whichRuns(fakePackage({ tsc: 1_000 })), 'tsc', 'no bundle built');
  assert.is(whichRuns(fakePackage({ tsc: 1_000, bundle: 2_000 }), { ASSISTANT_NO_BUNDLE: '1' }), 'tsc');
});

test('a loaded chunk counts as the modules esbuild put in it, each under its own URL', () => {
  const root = temp();
  mkdirSync(join(root, 'dist', 'bundle', 'chunks'), { recursive: true });
  const meta = {
    inputs: {},
    outputs: {
      'dist/bundle/cli.js': { inputs: { 'dist/cli.js': {} } },
      'dist/bundle/chunks/chunk-A.js': { inputs: { 'dist/engine/core/a.js': {}, 'dist/engine/core/b.js': {}, 'node_modules/xstate/dist/xstate.esm.js': {} } },
      'dist/bundle/chunks/chunk-B.js': { inputs: { 'dist/engine/providers/k8s/provider.js': {} } },
    },
  };
  writeFileSync(join(root, 'dist', 'bundle', 'meta.json'), JSON.stringify(meta));
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const trace = ['bin/assistant.js', 'dist/bundle/cli.js', 'dist/bundle/chunks/chunk-A.js'].map((p) => `module ${url(p)}`).join('\n');
  const { esm, cjs } = parseModuleTrace(trace);
  assert.equal(esm, ['bin/assistant.js', 'dist/cli.js', 'dist/engine/core/a.js', 'dist/engine/core/b.js', 'node_modules/xstate/dist/xstate.esm.js'].map(url).sort());
  assert.equal(cjs, []);
  assert.not.ok(esm.some((u) => u.includes('/providers/k8s/')), 'a chunk that was not loaded counts nothing');
});

/** Our own modules (dist/, by path) that `gpucloud list` loads, bundled or not. */
async function ourModulesOfList(env: Record<string, string>, bundled: boolean): Promise<string[]> {
  const home = temp();
  const file = join(home, 'trace.txt');
  writeFileSync(file, '');
  const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], {
    home,
    env: { ...env, ...(bundled ? {} : { ASSISTANT_NO_BUNDLE: '1' }), NODE_OPTIONS: `--import=${TRACE.href}`, MODULE_TRACE_FILE: file },
  });
  assert.is(r.code, 0, r.stderr);
  const raw = readFileSync(file, 'utf8');
  assert.is(raw.includes('/dist/bundle/'), bundled, bundled ? 'the bundle ran' : 'tsc\'s files ran');
  const t = parseModuleTrace(raw);
  return [...t.esm, ...t.cjs].filter((u) => u.startsWith(pathToFileURL(join(ROOT, 'dist')).href)).map((u) => u.slice(pathToFileURL(ROOT).href.length)).sort();
}

test('the bundled gpucloud list loads the same modules of ours as tsc\'s files, so the start-up guard means the same', () =>
  withEmulator(async ({ emu }) => {
    assert.ok(existsSync(join(ROOT, 'dist', 'bundle', 'meta.json')), 'npm run build bundles dist/ (scripts/bundle.mjs)');
    const env = emulatorEnv(emu);
    const bundled = await ourModulesOfList(env, true);
    const unbundled = await ourModulesOfList(env, false);
    assert.ok(bundled.includes('dist/engine/providers/gpucloud/provider.js'));
    assert.equal(bundled, unbundled);
  }));

test.run();
