#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/cli.js, what tsc wrote) into dist/bundle/ with esbuild: ES modules, split
 * at every `import()` so a command loads its own chunks and nothing else, packages left to node_modules.
 * Why (issue 40): a `gpucloud list` loaded 107 of our modules one by one, and Node's ES loader pays per
 * module (resolve, stat, open, read, compile, link): that was the largest part of its start-up. A chunk
 * holds many modules for one file's cost.
 *
 * `bin/assistant.js` runs the bundle when it is newer than tsc's last build (dist/.tsbuildinfo), so a `tsc`
 * alone never leaves a stale bundle in charge; the tests that import dist modules import tsc's files.
 * `dist/bundle/meta.json` (esbuild's metafile) says which of our modules each chunk holds: the start-up
 * guard counts a loaded chunk as the modules in it (scripts/module-trace.mjs).
 *
 *   node scripts/bundle.mjs        (npm run build runs it after tsc)
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The small pure-JS packages every command loads go into the bundle (xstate's `import` entry alone is a
 * CommonJS wrapper of 8 files, which Node reads through its CommonJS loader and lexer); every other
 * package stays where npm put it and loads as it always does (its own files, wasm and native parts).
 */
const INSIDE = new Set(['xstate', 'cac', 'picocolors', 'p-retry', 'is-network-error']);

function packagesOutsideExceptEveryCommands() {
  return {
    name: 'packages-outside',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return INSIDE.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = process.env.BUNDLE_OUTDIR ?? `${root}dist/bundle`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

rmSync(outdir, { recursive: true, force: true });
// A checkout whose node_modules predates the esbuild dev dependency still builds: without a bundle,
// bin/assistant.js runs tsc's files (slower to start, same behaviour) until `npm install` brings esbuild.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  process.stderr.write('warning: esbuild is not installed (npm install): dist/ is not bundled, the CLI runs tsc\'s files\n');
  process.exit(0);
}
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { cli: 'dist/cli.js' },
  outdir,
  bundle: true,
  splitting: process.env.BUNDLE_SPLIT !== '0',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [packagesOutsideExceptEveryCommands()],
  chunkNames: 'chunks/[name]-[hash]',
  // engine/core/version.ts reads package.json relative to its own file; a chunk lives elsewhere.
  define: { ASSISTANT_BUNDLED_VERSION: JSON.stringify(version) },
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
writeFileSync(`${outdir}/meta.json`, JSON.stringify(result.metafile));
