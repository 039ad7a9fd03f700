#!/usr/bin/env node
// Runs every compiled uvu test file in its own process (isolation, and both cores busy), then prints
// one line per skip reason ("12 skipped: moto_server not on PATH (see .ci/run)") and the closing line
// CI reads: "N passed, N failed".
//
// Each test file gets a TMPDIR of its own; anything left in it when the file ends is a failure of that
// file (tests make temp dirs with tempDir() from test/support/temp.ts, which removes them). A test
// reports a skip with reportSkip() from test/support/skip.ts: a line "SKIP<TAB><reason><TAB><test>".
//
// Scheduling (issue 40): the longest files start first (their times from the last run, kept in
// dist/.test-durations.json, else from scripts/test-durations.json, a copy of one such file kept in the
// repository for fresh checkouts and CI), so the run does not end with one long file running alone. TEST_JOBS sets how many files run at once (default: see `jobs` below). At the
// end it prints the slowest files with their wall time and the CPU time they and their children used:
// a file with much wall time and little CPU waits (sleeps, timeouts), one with much CPU starts processes.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const sources = new URL('../test/', import.meta.url).pathname;
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
// A guard against a file that hangs, not a speed limit: a loaded 2-core machine runs the moto (aws CLI)
// files several times slower than an idle one, and a file cut short is a failure no retry should hide.
const perFileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 900_000);
const SKIP_LINE = /SKIP\t([^\t]*)\t(.*)$/;
const MAX_LEFTOVERS_SHOWN = 5;

/**
 * The compiled test files under dist/test (test/<wing>/…, any depth). tsc never deletes an output whose
 * source moved or went away, so a compiled file with no test/**.ts beside its path is left over from an
 * earlier layout: it is not run (it would run a test twice, or one that no longer exists).
 */
function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.js') && existsSync(join(sources, relative(root, path)).replace(/\.js$/, '.ts'))) out.push(path);
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

/**
 * CPU time (ms) of this process's children that have exited and been waited for, their own children
 * included (Linux /proc; undefined elsewhere). Read when a test file's process is reaped, the increase is
 * that file's CPU time (two files reaped in the same instant share one reading: rare, and only a report).
 */
function reapedChildrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of proc(5) (cutime, cstime), counted from field 3 (state) here, in clock ticks (100/s on Linux).
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
let lastChildrenCpuMs = reapedChildrenCpuMs();

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    let cpuMs;
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
    child.on('exit', () => {
      const now = reapedChildrenCpuMs();
      if (now !== undefined && lastChildrenCpuMs !== undefined) cpuMs = now - lastChildrenCpuMs;
      lastChildrenCpuMs = now;
    });
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
      resolve({ file, output, passed: p, failed: f, skips, ms: Date.now() - started, cpuMs });
    });
  });
}

// How long each file took last time (by its path under dist/test), for longest-first scheduling.
const durationsFile = new URL('../dist/.test-durations.json', import.meta.url).pathname;
const seedDurationsFile = new URL('./test-durations.json', import.meta.url).pathname;
function readDurations(path) {
  try {
    const d = JSON.parse(readFileSync(path, 'utf8'));
    return d && typeof d === 'object' ? d : {};
  } catch {
    return {};
  }
}
const known = { ...readDurations(seedDurationsFile), ...readDurations(durationsFile) };
// A file's time under its bare name too: a file moved to another folder keeps its place in the order
// (the names are unique across test/; the guard in test/core/test.layout.test.ts holds them so).
const knownByName = Object.fromEntries(Object.entries(known).map(([path, ms]) => [basename(path), ms]));
/** A file never timed goes early: it may be long, and a short one costs little wherever it runs. */
const expectedMs = (file) => known[relative(root, file)] ?? knownByName[basename(file)] ?? 30_000;

/**
 * Files at once. Many files spend most of their time waiting (a deadline that must pass, a server's
 * delayed answer, child processes starting), so one file per core leaves the cores idle: twice the
 * cores by default (measured in issue 40; more made the CPU-bound files slower by as much as it saved).
 */
const jobs = Math.max(1, Number(process.env.TEST_JOBS) || availableParallelism() * 2);

const files = findTests(root).filter((f) => !filter || filter.test(f));
// Longest first (stable: equal times keep the alphabetical order).
const queue = [...files].sort((a, b) => expectedMs(b) - expectedMs(a));
const results = [];
const runStarted = Date.now();
const workers = Array.from({ length: Math.min(jobs, Math.max(1, queue.length)) }, async () => {
  while (queue.length) {
    const file = queue.shift();
    const r = await runFile(file);
    results.push(r);
    const mark = r.failed ? 'FAIL' : 'ok  ';
    const skipped = [...r.skips.values()].reduce((n, k) => n + k, 0);
    process.stdout.write(`${mark} ${relative(root, file)}  (${r.passed} passed, ${r.failed} failed${skipped ? `, ${skipped} skipped` : ''}, ${r.ms} ms${r.cpuMs === undefined ? '' : `, ${Math.round(r.cpuMs)} ms CPU`})\n`);
    if (r.failed) process.stdout.write(r.output.replace(/^/gm, '    ') + '\n');
    // Measurements a test reports (accuracy, fuzz seeds, MCP conformance) are shown even when it passes.
    else for (const line of stripAnsi(r.output).split('\n')) if (/accuracy:|fuzz: seed|conformance:/.test(line)) process.stdout.write(`     ${line.trim()}\n`);
  }
});
await Promise.all(workers);
rmSync(runRoot, { recursive: true, force: true, maxRetries: 3 });

// The slowest files (wall time, and the CPU they and their children used), and the times for next run's order.
const SLOWEST_SHOWN = 20;
const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);
// The run's CPU (every file and its children): on a shared machine the wall time follows the load, the CPU does not.
const cpuMs = results.every((r) => r.cpuMs !== undefined) ? results.reduce((n, r) => n + r.cpuMs, 0) : undefined;
console.log(`\nslowest ${Math.min(SLOWEST_SHOWN, results.length)} of ${results.length} files (wall s, CPU s incl. child processes); ${jobs} at once, ${seconds(Date.now() - runStarted).trim()} s in all${cpuMs === undefined ? '' : `, ${seconds(cpuMs).trim()} s CPU`}, load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')}`);
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN)) {
  console.log(`  ${seconds(r.ms)} ${r.cpuMs === undefined ? '     ?' : seconds(r.cpuMs)}  ${relative(root, r.file)}`);
}
try {
  // A whole run is what `npm run bench` reports as the suite's time (bench/test-run.ts).
  if (!filter) {
    const run = { at: new Date(runStarted).toISOString(), wallMs: Date.now() - runStarted, cpuMs, files: results.length, jobs, load: loadavg(), passed: results.reduce((n, r) => n + r.passed, 0), failed: results.reduce((n, r) => n + r.failed, 0) };
    writeFileSync(new URL('../dist/.test-run.json', import.meta.url), JSON.stringify(run) + '\n');
  }
  const next = existsSync(durationsFile) ? readDurations(durationsFile) : {};
  for (const r of results) next[relative(root, r.file)] = r.ms;
  writeFileSync(durationsFile, JSON.stringify(Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b))), null, 1) + '\n');
} catch {
  // Only an ordering hint: a read-only checkout runs in name order next time.
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skippedBy = new Map();
for (const r of results) for (const [why, n] of r.skips) skippedBy.set(why, (skippedBy.get(why) ?? 0) + n);
if (files.length === 0) console.log('no test files found under dist/test');
for (const [why, n] of [...skippedBy].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`${n} skipped: ${why}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || files.length === 0 ? 1 : 0);
