/**
 * Records every module a Node process loads, for the start-up guard test (test/core/startup.modules.test.ts)
 * and the bench's module counts (bench/startup.ts). Counting, not timing: which modules a command
 * pulls in does not depend on how busy the machine is.
 *
 *   MODULE_TRACE_FILE=/tmp/x node --import ./scripts/module-trace.mjs bin/assistant.js gpucloud list instances
 *
 * Each line of the file is `<format> <url>`: ES modules come from a loader `load` hook (run on Node's
 * hooks thread, so it writes the file itself, synchronously, as each module loads); CommonJS modules
 * (`require`d ones never pass the ES loader in Node 20) are added from `require.cache` when the process
 * exits. Built-in `node:` modules are left out. Without MODULE_TRACE_FILE this file does nothing.
 *
 * A bundled CLI (dist/bundle/, scripts/bundle.mjs) loads chunks, each holding many of our modules (and the
 * small packages bundled with them): a loaded chunk counts as the modules in it, by esbuild's metafile
 * (dist/bundle/meta.json), under their own URLs. So the guard counts and names the same modules whether
 * the CLI runs bundled or not: a chunk that brings a module the command does not use is caught as that
 * module would be.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.MODULE_TRACE_FILE;

const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  const result = await next(url, context);
  if (!url.startsWith('node:')) appendFileSync(file, (result.format ?? 'unknown') + ' ' + url + '\\n');
  return result;
}
`;

if (file) {
  register('data:text/javascript,' + encodeURIComponent(HOOKS), import.meta.url, { data: { file } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const lines = Object.keys(require.cache).map((path) => `commonjs ${pathToFileURL(path).href}\n`);
    appendFileSync(file, lines.join(''));
  });
}

/**
 * Reads a trace file into the set of modules, by URL, split by kind (an ES module that imports a
 * CommonJS one lists it through both paths: it counts once).
 * @param {string} text
 * @returns {{ esm: string[]; cjs: string[] }}
 */
export function parseModuleTrace(text) {
  const esm = new Set();
  const cjs = new Set();
  for (const line of text.split('\n')) {
    const at = line.indexOf(' ');
    if (at < 0) continue;
    const format = line.slice(0, at);
    const url = line.slice(at + 1);
    if (format === 'commonjs') cjs.add(url);
    else esm.add(url);
  }
  for (const url of cjs) esm.delete(url);
  for (const url of [...esm]) {
    const inside = modulesInChunk(url);
    if (!inside) continue;
    esm.delete(url);
    for (const m of inside) esm.add(m);
  }
  return { esm: [...esm].sort(), cjs: [...cjs].sort() };
}

/** @type {Map<string, Record<string, string[]>>} the chunks of each bundle (by its root URL): output → input URLs */
const bundles = new Map();

/**
 * The modules (URLs) inside a chunk of a bundle, or undefined for a URL that is not one.
 * @param {string} url
 * @returns {string[] | undefined}
 */
function modulesInChunk(url) {
  const at = url.indexOf('/dist/bundle/');
  if (at < 0 || !url.startsWith('file:')) return undefined;
  const root = url.slice(0, at + 1);
  let chunks = bundles.get(root);
  if (!chunks) {
    const meta = JSON.parse(readFileSync(new URL('dist/bundle/meta.json', root), 'utf8'));
    chunks = {};
    for (const [out, o] of Object.entries(meta.outputs)) chunks[new URL(out, root).href] = Object.keys(o.inputs).map((i) => new URL(i, root).href);
    bundles.set(root, chunks);
  }
  return chunks[url];
}
