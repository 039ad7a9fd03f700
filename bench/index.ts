/**
 * `npm run bench`: every benchmark, side by side within one run (numbers go into issue notes), then the
 * rows of issue 25 in one table. BENCH_BASELINE=<checkout with dist/ built> measures that build beside
 * this one in the same run (start-up, MCP, creates and the plan engine), so "before" and "after" share
 * the machine and its load.
 */
import { builds, printRows } from './fixtures.js';
import { runStartupBench } from './startup.js';

await runStartupBench();
await (await import('./plan-engine.js')).runPlanEngineBench();
await (await import('./creates.js')).runCreatesBench();
(await import('./redact.js')).runRedactBench();
await (await import('./mcp.js')).runMcpBench();
await (await import('./timing.js')).runTimingBench();
await (await import('./shared-limits.js')).runSharedLimitsBench();
await (await import('./backend.js')).runBackendBench();
await (await import('./box.js')).runBoxBench();
printRows(builds().map((b) => b.label));
