/** `npm run bench`: every benchmark, side by side within one run (numbers go into issue notes). */
import { runStartupBench } from './startup.js';

runStartupBench();
await (await import('./plan-engine.js')).runPlanEngineBench();
await (await import('./mcp.js')).runMcpBench();
await (await import('./shared-limits.js')).runSharedLimitsBench();
