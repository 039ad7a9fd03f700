/** `npm run bench`: every benchmark, side by side within one run (numbers go into issue notes). */
import { runStartupBench } from './startup.js';

runStartupBench();
await (await import('./plan-engine.js')).runPlanEngineBench();
await (await import('./creates.js')).runCreatesBench();
(await import('./redact.js')).runRedactBench();
await (await import('./mcp.js')).runMcpBench();
await (await import('./timing.js')).runTimingBench();
await (await import('./shared-limits.js')).runSharedLimitsBench();
await (await import('./backend.js')).runBackendBench();
await (await import('./box.js')).runBoxBench();
