/** `npm run bench`: every benchmark, side by side within one run (numbers go into issue notes). */
import { runStartupBench } from './startup.js';

runStartupBench();
await (await import('./plan-engine.js')).runPlanEngineBench();
(await import('./redact.js')).runRedactBench();
await (await import('./mcp.js')).runMcpBench();
