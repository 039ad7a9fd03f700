/**
 * `npm run bench`: every benchmark, side by side within one run (numbers go into issue notes), then the
 * rows of issues 25 and 40 in one table. A baseline build runs beside this one in the same run (start-up,
 * MCP, creates, the plan engine and the apply path), so "before" and "after" share the machine and its
 * load: BENCH_BASELINE=<checkout with dist/ built>, or a git revision built into a temp dir (default
 * `main`; bench/baseline.ts), or `none`.
 */
import { cpus } from 'node:os';
import { prepareBaseline } from './baseline.js';
import { builds, printRows, rows } from './fixtures.js';
import { loadLine } from './mcp.js';
import { runStartupBench } from './startup.js';
import { lastTestRun } from './test-run.js';

// Honest about the machine: every part of every measure (emulator, agents, server, CLI processes) runs
// on these cores, beside whatever else the machine runs; the load average says how much that was.
console.log(prepareBaseline());
console.log(`bench on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); at start: ${loadLine()}`);
await runStartupBench();
await (await import('./plan-engine.js')).runPlanEngineBench();
await (await import('./creates.js')).runCreatesBench();
await (await import('./apply-path.js')).runApplyPathBench();
{
  const redact = await import('./redact.js');
  redact.runRedactBench();
  await redact.runMaskerBench();
}
await (await import('./mcp.js')).runMcpBench();
await (await import('./mcp-floor.js')).runMcpFloorBench();
await (await import('./mcp-read-overhead.js')).runMcpReadOverheadBench(1000);
await (await import('./timing.js')).runTimingBench();
await (await import('./shared-limits.js')).runSharedLimitsBench();
await (await import('./backend.js')).runBackendBench();
await (await import('./console-runs.js')).runConsoleRunsBench();
await (await import('./box.js')).runBoxBench();
console.log(`\nat the end: ${loadLine()}; the emulator, the agents and the server ran on the same ${cpus().length} cores as each other and as the load above`);
rows.push(lastTestRun());
printRows(builds().map((b) => b.label));
