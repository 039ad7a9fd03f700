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
 */
import { appendFileSync } from 'node:fs';
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
  return { esm: [...esm].sort(), cjs: [...cjs].sort() };
}
