/**
 * Plan-engine benchmark (issue: plan engine), against the in-process emulator with the real client:
 *  (a) executor overhead: a 1,000-step GET plan through runPlan (the run machine: a state and an
 *      invoked step effect per step) versus a plain loop of the same client.request calls on the same
 *      client, rate limits out of the way. Target: ≤ 1.15×. Again against a server with 5 ms latency.
 *  (b) rate-limit pacing: 3× the per-path limit on one path with a short window on both sides. The
 *      minimum is 2 windows (20 at t=0, 20 at t=W, 20 at t=2W). Target: within 5% of it, and no 429.
 */
import { startEmulator } from '../emulator/index.js';
import { createGpuCloudClient } from '../engine/providers/gpucloud/client.js';
import type { GpuCloudClient } from '../engine/providers/gpucloud/types.js';
import { builds, importFrom, median, rows, type Build } from './fixtures.js';

type RunPlan = (checked: unknown, opts: Record<string, unknown>) => Promise<{ report: { status: string; error?: unknown } }>;
type CheckPlan = (plan: unknown, opts: Record<string, unknown>) => unknown;

/** A build's checkPlan + runPlan and the provider set they take (a ProviderSet before issue 25, loaded from the registry since). */
async function engineOf(b: Build): Promise<{ runPlan: RunPlan; checkPlan: CheckPlan; providers: (plan: unknown) => Promise<unknown> }> {
  // The executor moved to machines/run/ (issue 37); older builds have it at machines/run-plan.js.
  const { runPlan } = await importFrom<{ runPlan: RunPlan }>(b, 'machines/run/run-plan.js').catch(() => importFrom<{ runPlan: RunPlan }>(b, 'machines/run-plan.js'));
  const { checkPlan } = await importFrom<{ checkPlan: CheckPlan }>(b, 'engine/core/plan/check.js');
  const { PROVIDERS } = await importFrom<{ PROVIDERS: { forPlan?(plan: unknown): Promise<unknown> } }>(b, 'engine/providers/index.js');
  return { runPlan, checkPlan, providers: async (plan) => (PROVIDERS.forPlan ? PROVIDERS.forPlan(plan) : PROVIDERS) };
}

// The engine of this build, for the pacing measure.
let engine: Awaited<ReturnType<typeof engineOf>>;

const GET_PATHS = ['/v1/balance', '/v1/locations', '/v1/instance-types'];

function getPlan(steps: number, paths: string[]) {
  return {
    version: 1,
    provider: 'gpucloud',
    commands: Array.from({ length: steps }, (_, i) => ({ args: ['gpucloud-api', 'GET', paths[i % paths.length]!], reason: `step ${i}` })),
  };
}

async function timePlan(plan: ReturnType<typeof getPlan>, client: GpuCloudClient, e = engine): Promise<number> {
  const signal = new AbortController().signal;
  const providers = await e.providers(plan);
  const started = performance.now();
  const out = await e.runPlan(e.checkPlan(plan, { providers, destroyer: false, predefined: {} }), { predefined: {}, providers, context: { client: async () => client, signal } });
  const ms = performance.now() - started;
  if (out.report.status !== 'succeeded') throw new Error(`benchmark plan ${out.report.status}: ${JSON.stringify(out.report.error)}`);
  return ms;
}

async function timeLoop(plan: ReturnType<typeof getPlan>, client: GpuCloudClient): Promise<number> {
  const signal = new AbortController().signal;
  const started = performance.now();
  for (const c of plan.commands) await client.request({ method: c.args[1]!, path: c.args[2]!, signal });
  return performance.now() - started;
}

async function executorOverhead(steps = 1000, runs = 7, latencyMs = 0, b: Build = builds().at(-1)!): Promise<number> {
  const eng = await engineOf(b);
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  // A server with realistic latency: every API request waits `latencyMs` before it is handled.
  if (latencyMs) emu.addFault({ path: '/v1/*', delayMs: latencyMs, times: -1 });
  try {
    const client = createGpuCloudClient({
      baseUrl: emu.url,
      credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
      rateLimit: { perProject: 1e9, perPath: 1e9 },
    });
    const plan = getPlan(steps, GET_PATHS);
    // Warm up: token, sockets, JIT of both paths (the machine's code paths take a few runs to optimise).
    for (let w = 0; w < 3; w++) {
      await timeLoop(plan, client);
      await timePlan(plan, client, eng);
    }
    const exec: number[] = [];
    const loop: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first so drift hits both alike.
      if (i % 2 === 0) {
        exec.push(await timePlan(plan, client, eng));
        loop.push(await timeLoop(plan, client));
      } else {
        loop.push(await timeLoop(plan, client));
        exec.push(await timePlan(plan, client, eng));
      }
    }
    const e = median(exec);
    const l = median(loop);
    const ratio = e / l;
    console.log(`plan engine (a) [${b.label}]: ${steps}-step GET plan, rate limits off, ${latencyMs ? `${latencyMs} ms server latency` : 'no server latency'} (median of ${runs} runs, interleaved)`);
    console.log(`  plain client.request loop ${l.toFixed(1).padStart(9)} ms   ${((l / steps) * 1000).toFixed(0).padStart(5)} µs/step`);
    console.log(`  runPlan (executor)        ${e.toFixed(1).padStart(9)} ms   ${((e / steps) * 1000).toFixed(0).padStart(5)} µs/step`);
    console.log(`  ratio ${ratio.toFixed(3)}×, the run machine costs ${(((e - l) / steps) * 1000).toFixed(0)} µs per step  (target ≤ 1.1×: ${ratio <= 1.1 ? 'met' : 'MISSED'})`);
    return ratio;
  } finally {
    await emu.close();
  }
}

async function rateLimitPacing(perPath = 20, windowMs = 1000): Promise<void> {
  const limits = { perProject: 1_000_000, perPath, windowMs };
  const emu = await startEmulator({ seed: 'demo', rateLimit: limits, lifecycleMs: 1 });
  try {
    const client = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: limits });
    // Warm up the token and a socket on another path, so the measured path starts with an empty window.
    await client.request({ method: 'GET', path: '/v1/locations' });
    const plan = getPlan(3 * perPath, ['/v1/balance']);
    const before429 = emu.stats().status429;
    const ms = await timePlan(plan, client);
    const status429 = emu.stats().status429 - before429;
    const minimum = 2 * windowMs;
    const ratio = ms / minimum;
    console.log(`plan engine (b): ${3 * perPath} GETs on one path, perPath ${perPath} / ${windowMs} ms window on client and emulator`);
    console.log(`  measured ${ms.toFixed(1)} ms, minimum ${minimum} ms (2 windows): ${ratio.toFixed(3)}×  (target ≤ 1.05×: ${ratio <= 1.05 ? 'met' : 'MISSED'})`);
    console.log(`  emulator 429s: ${status429} (target 0: ${status429 === 0 ? 'met' : 'MISSED'}); client rate-limit waits: ${client.stats.rateLimitWaits}`);
  } finally {
    await emu.close();
  }
}

export async function runPlanEngineBench(): Promise<void> {
  engine = await engineOf(builds().at(-1)!);
  const values: Record<string, string> = {};
  let met: boolean | undefined;
  for (const b of builds()) {
    const ratio = await executorOverhead(1000, 7, 0, b);
    values[b.label] = `${ratio.toFixed(2)}×`;
    met = ratio <= 1.1;
  }
  rows.push({ measure: '1,000-step plan / plain loop', values, target: '≤ 1.1×', met });
  await executorOverhead(300, 5, 5);
  await rateLimitPacing();
}
