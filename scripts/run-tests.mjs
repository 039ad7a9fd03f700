#!/usr/bin/env node
// Runs every compiled uvu test file in its own process (isolation, and both cores busy), then prints
// one line per skip reason ("12 skipped: moto_server not on PATH (see .ci/run)") and the closing line
// CI reads: "N passed, N failed".
//
// Each test file gets a TMPDIR of its own; anything left in it when the file ends is a failure of that
// file (tests make temp dirs with tempDir() from test/support/temp.ts, which removes them). A test
// reports a skip with reportSkip() from test/support/skip.ts: a line "SKIP<TAB><reason><TAB><test>".
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
// A guard against a file that hangs, not a speed limit: a loaded 2-core machine runs the moto (aws CLI)
// files several times slower than an idle one, and a file cut short is a failure no retry should hide.
const perFileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 900_000);
const SKIP_LINE = /SKIP\t([^\t]*)\t(.*)$/;
const MAX_LEFTOVERS_SHOWN = 5;

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

/** The files and folders a test file left in its TMPDIR (top level only). */
function leftovers(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  // The per-user parent of CLI scratch directories (engine/core/kits/cli/isolation.ts) stays by design; what is in it may not.
  return entries.filter((name) => !(/^assistant-cli-\w+$/.test(name) && leftovers(join(dir, name)).length === 0));
}

const runRoot = mkdtempSync(join(tmpdir(), 'assistant-tests-'));
// Servers a test starts as another user (PostgreSQL runs as `postgres` when we are root) must reach their directories.
chmodSync(runRoot, 0o755);

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const ownTmp = mkdtempSync(join(runRoot, `${basename(file, '.test.js')}-`));
    chmodSync(ownTmp, 0o755);
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', TMPDIR: ownTmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      output += `\n[run-tests] ${relative(root, file)} timed out after ${perFileTimeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, perFileTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const plain = stripAnsi(output);
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
      const uvuSkipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      // Skips a test reported itself (it returned early, so uvu counted it as passed), by reason.
      const skips = new Map();
      for (const line of plain.split('\n')) {
        const m = SKIP_LINE.exec(line);
        if (m) skips.set(m[1], (skips.get(m[1]) ?? 0) + 1);
      }
      if (uvuSkipped) skips.set('no reason given (uvu test.skip)', (skips.get('no reason given (uvu test.skip)') ?? 0) + uvuSkipped);
      const reported = [...skips.values()].reduce((n, k) => n + k, 0) - uvuSkipped;
      let p = 0;
      let f = 0;
      if (Number.isNaN(total) || Number.isNaN(passed)) f = 1; // crashed before uvu's summary
      else {
        p = Math.max(0, passed - reported);
        f = total - passed; // uvu's Total leaves out its own skipped tests
      }
      if (code !== 0 && f === 0) f = 1; // uvu summary looked fine but the process failed
      // A file killed at its timeout had no chance to clean up: its timeout is the failure to report.
      const left = killed ? [] : leftovers(ownTmp);
      if (left.length) {
        f += 1;
        const shown = left.slice(0, MAX_LEFTOVERS_SHOWN).join(', ') + (left.length > MAX_LEFTOVERS_SHOWN ? `, … (${left.length} in all)` : '');
        output += `\n[run-tests] ${relative(root, file)} left files behind in its TMPDIR: ${shown}; make temp dirs with tempDir() from test/support/temp.ts (removed when the file ends)\n`;
      }
      rmSync(ownTmp, { recursive: true, force: true, maxRetries: 3 });
      resolve({ file, output, passed: p, failed: f, skips, ms: Date.now() - started });
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
    const skipped = [...r.skips.values()].reduce((n, k) => n + k, 0);
    process.stdout.write(`${mark} ${relative(root, file)}  (${r.passed} passed, ${r.failed} failed${skipped ? `, ${skipped} skipped` : ''}, ${r.ms} ms)\n`);
    if (r.failed) process.stdout.write(r.output.replace(/^/gm, '    ') + '\n');
    // Measurements a test reports (accuracy, fuzz seeds, MCP conformance) are shown even when it passes.
    else for (const line of stripAnsi(r.output).split('\n')) if (/accuracy:|fuzz: seed|conformance:/.test(line)) process.stdout.write(`     ${line.trim()}\n`);
  }
});
await Promise.all(workers);
rmSync(runRoot, { recursive: true, force: true, maxRetries: 3 });

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skippedBy = new Map();
for (const r of results) for (const [why, n] of r.skips) skippedBy.set(why, (skippedBy.get(why) ?? 0) + n);
if (files.length === 0) console.log('no test files found under dist/test');
for (const [why, n] of [...skippedBy].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`${n} skipped: ${why}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || files.length === 0 ? 1 : 0);
