#!/usr/bin/env node
// Runs every compiled uvu test file in its own process (isolation, and both cores busy),
// then prints the closing line CI reads: "N passed, N failed".
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
const perFileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out.sort();
}

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[run-tests] ${relative(root, file)} timed out after ${perFileTimeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, perFileTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const plain = stripAnsi(output);
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      let p = 0;
      let f = 0;
      if (Number.isNaN(total) || Number.isNaN(passed)) f = 1; // crashed before uvu's summary
      else {
        p = passed;
        f = total - passed - skipped;
      }
      if (code !== 0 && f === 0) f = 1; // uvu summary looked fine but the process failed
      resolve({ file, output, passed: p, failed: f, ms: Date.now() - started });
    });
  });
}

const files = findTests(root).filter((f) => !filter || filter.test(f));
const queue = [...files];
const results = [];
const workers = Array.from({ length: Math.max(1, availableParallelism()) }, async () => {
  while (queue.length) {
    const file = queue.shift();
    const r = await runFile(file);
    results.push(r);
    const mark = r.failed ? 'FAIL' : 'ok  ';
    process.stdout.write(`${mark} ${relative(root, file)}  (${r.passed} passed, ${r.failed} failed, ${r.ms} ms)\n`);
    if (r.failed) process.stdout.write(r.output.replace(/^/gm, '    ') + '\n');
    // Measurements a test reports (accuracy, fuzz seeds, MCP conformance) are shown even when it passes.
    else for (const line of stripAnsi(r.output).split('\n')) if (/accuracy:|fuzz: seed|conformance:/.test(line)) process.stdout.write(`     ${line.trim()}\n`);
  }
});
await Promise.all(workers);

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
if (files.length === 0) console.log('no test files found under dist/test');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || files.length === 0 ? 1 : 0);
