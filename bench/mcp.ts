/**
 * MCP benchmark (issue: MCP server; issue 25): tools/call `assistant_gpucloud_list {resource: instances}`
 * through the real Streamable HTTP server and the SDK client, side by side with the same list made
 * without MCP, in the same process against the same in-process emulator (rate limits out of the way).
 * The agents (SDK clients) run in a worker thread, as agents are other processes; with two cores the
 * machine is still shared, so MCP numbers are an upper bound.
 *
 *  (1) the server as `assistant mcp` runs it: its gpucloud client shares the limits through this
 *      machine's file record. 1 and 8 agents, against plain `fetch` (token once, then GETs) at the same
 *      concurrency. Target: +≤ 5 ms at p50, +≤ 25 ms at p95, 8 agents ≥ 8× one agent's calls/s. Once
 *      with the emulator answering at once (CPU-bound: no two-core machine serves 8× one agent's
 *      rate then) and once with 20 ms of API latency, where the calls wait on the API as real ones do
 *      and 8 agents can go 8× as fast unless the server serialises them.
 *  (2) 1 and 32 agents against the gpucloud client called directly, limits not shared (the older
 *      measure). Target at 32: +≤ 5 ms at p50 and ≥ 1,500 calls/s.
 * With BENCH_BASELINE the baseline build's server, engine and client run the same load in the same run.
 */
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startEmulator, type Emulator } from '../emulator/index.js';
import { builds, importFrom, percentile, rows, tempDir, type Build } from './fixtures.js';

export interface Stats {
  p50: number;
  p95: number;
  p99: number;
  perSecond: number;
}

export function stats(latencies: number[], wallMs: number): Stats {
  return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), p99: percentile(latencies, 0.99), perSecond: (latencies.length / wallMs) * 1000 };
}

/** Runs `calls` calls spread over `workers` concurrent workers; returns per-call latencies and wall time. */
export async function drive(workers: number, calls: number, call: (worker: number) => Promise<void>): Promise<Stats> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (next < calls) {
        next++;
        const t = performance.now();
        await call(w);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return stats(latencies, performance.now() - started);
}

const fmt = (s: Stats) => `p50 ${s.p50.toFixed(2)} ms  p95 ${s.p95.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ${s.perSecond.toFixed(0)} calls/s`;

/** Drives MCP calls from a worker thread: agents are other processes, so their CPU is not the server's. */
function agentsInWorker(url: string, concurrency: number, calls: number): Promise<Stats> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mcp-agents.js', import.meta.url), { workerData: { url, concurrency, calls } });
    worker.once('message', (m: Stats | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
    worker.once('error', reject);
  });
}

interface GpuCloudClientLike {
  request(req: { method: string; path: string; signal?: AbortSignal }): Promise<unknown>;
  close?(): Promise<void>;
}

/** One build's MCP server over a gpucloud client of that build. */
async function serverOf(b: Build, emu: Emulator, shared: boolean): Promise<{ url: string; client: GpuCloudClientLike; close(): Promise<void> }> {
  const { PROVIDERS } = await importFrom<{ PROVIDERS: unknown }>(b, 'engine/providers/index.js');
  const { createGpuCloudClient } = await importFrom<{ createGpuCloudClient(o: unknown): GpuCloudClientLike }>(b, 'engine/providers/gpucloud/client.js');
  const { startMcpHttpServer } = await importFrom<{ startMcpHttpServer(o: unknown): Promise<{ url: string; close(): Promise<void> }> }>(b, 'mcp/http.js');
  const { createMcpServer } = await importFrom<{ createMcpServer(backend: unknown): unknown }>(b, 'mcp/server.js');
  const client = createGpuCloudClient({
    baseUrl: emu.url,
    credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
    rateLimit: { perProject: 1e9, perPath: 1e9 },
    // As `assistant mcp` builds it (engine/providers/gpucloud/provider.ts): limits shared through this machine's record.
    sharedLimits: shared ? { dir: tempDir() } : undefined,
  });
  const signal = new AbortController().signal;
  setMaxListeners(1000, signal);
  const backend = { config: {}, predefined: {}, providers: PROVIDERS, runContext: () => ({ client: async () => client, signal }), home: tmpdir(), env: {}, sandbox: false, destroyer: false };
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => createMcpServer(backend) });
  return {
    url: server.url,
    client,
    close: async () => {
      await server.close();
      await client.close?.();
    },
  };
}

/** Plain fetch: one token, then GETs; what an integration without this tool would send. */
async function plainFetch(emu: Emulator): Promise<() => Promise<void>> {
  const t = await fetch(`${emu.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: emu.clientId, client_secret: emu.clientSecret }),
  });
  const { access_token } = (await t.json()) as { access_token: string };
  return async () => {
    const r = await fetch(`${emu.url}/v1/instances`, { headers: { Authorization: `Bearer ${access_token}` } });
    await r.text();
    if (r.status !== 200) throw new Error(`plain GET: ${r.status}`);
  };
}

async function fileLimiterRows(emu: Emulator, calls: number, latencyMs: number): Promise<void> {
  const label = latencyMs ? `${latencyMs} ms API latency` : 'emulator answers at once';
  console.log(`\nMCP list, the server as \`assistant mcp\` runs it (limits shared through the file record), ${label}; ${calls} calls per measure`);
  const direct = await plainFetch(emu);
  const values: Record<string, string> = {};
  const rate: Record<string, string> = {};
  let met: boolean | undefined;
  let rateMet: boolean | undefined;
  for (const b of builds()) {
    const server = await serverOf(b, emu, true);
    try {
      const byConc = new Map<number, { d: Stats; m: Stats }>();
      for (const concurrency of [1, 8]) {
        await drive(concurrency, concurrency * 10, direct);
        const d = await drive(concurrency, calls, direct);
        const m = await agentsInWorker(server.url, concurrency, calls);
        byConc.set(concurrency, { d, m });
        console.log(`  [${b.label}] ${String(concurrency).padStart(2)} agents  plain fetch: ${fmt(d)}`);
        console.log(`  [${b.label}]            MCP:         ${fmt(m)}`);
      }
      const { d, m } = byConc.get(8)!;
      const one = byConc.get(1)!.m;
      const addP50 = m.p50 - d.p50;
      const addP95 = m.p95 - d.p95;
      const scale = m.perSecond / one.perSecond;
      console.log(`  [${b.label}] 8 agents: MCP adds ${addP50.toFixed(1)} ms at p50, ${addP95.toFixed(1)} ms at p95; ${m.perSecond.toFixed(0)} calls/s = ${scale.toFixed(2)}× one agent's ${one.perSecond.toFixed(0)}`);
      values[b.label] = `+${addP50.toFixed(1)} ms / +${addP95.toFixed(1)} ms p95`;
      rate[b.label] = `${m.perSecond.toFixed(0)} vs ${one.perSecond.toFixed(0)} calls/s (${scale.toFixed(1)}×)`;
      met = addP50 <= 5 && addP95 <= 25;
      rateMet = scale >= 8;
    } finally {
      await server.close();
    }
  }
  rows.push({ measure: `MCP list, 8 agents, added over plain fetch (file limiter, ${label})`, values, target: '≤ +5 ms / ≤ +25 ms p95', met });
  rows.push({ measure: `MCP list, 8 agents vs 1 agent (file limiter, ${label})`, values: rate, target: '≥ 8×', met: rateMet });
}

async function directClientRows(emu: Emulator, calls: number): Promise<void> {
  console.log(`\nMCP list vs the gpucloud client called directly (limits not shared), emulator answers at once; ${calls} calls per measure`);
  const values: Record<string, string> = {};
  let met: boolean | undefined;
  for (const b of builds()) {
    const server = await serverOf(b, emu, false);
    const signal = new AbortController().signal;
    setMaxListeners(1000, signal);
    const direct = () => server.client.request({ method: 'GET', path: '/v1/instances', signal }).then(() => undefined);
    try {
      for (const concurrency of [1, 32]) {
        await drive(concurrency, concurrency * 10, direct); // warm (token, connections, JIT)
        const d = await drive(concurrency, calls, direct);
        const m = await agentsInWorker(server.url, concurrency, calls);
        console.log(`  [${b.label}] ${String(concurrency).padStart(2)} agents  direct: ${fmt(d)}`);
        console.log(`  [${b.label}]            MCP:    ${fmt(m)}`);
        console.log(`  [${b.label}]            MCP adds ${(m.p50 - d.p50).toFixed(2)} ms at p50, ${(m.p99 - d.p99).toFixed(2)} ms at p99; throughput ${(m.perSecond / d.perSecond).toFixed(2)}×`);
        if (concurrency === 32) {
          values[b.label] = `+${(m.p50 - d.p50).toFixed(1)} ms p50, ${m.perSecond.toFixed(0)} vs ${d.perSecond.toFixed(0)} calls/s`;
          met = m.p50 - d.p50 <= 5 && m.perSecond >= 1500;
        }
      }
    } finally {
      await server.close();
    }
  }
  rows.push({ measure: 'MCP list at 32 agents vs the client directly', values, target: '≤ +5 ms, ≥ 1,500 calls/s', met });
}

export async function runMcpBench(calls = 1000, apiLatencyMs = 20): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    await fileLimiterRows(emu, calls, 0);
    await directClientRows(emu, calls);
    emu.addFault({ method: 'GET', path: '/v1/instances', delayMs: apiLatencyMs, times: -1 });
    await fileLimiterRows(emu, Math.max(80, calls / 4), apiLatencyMs);
  } finally {
    await emu.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await runMcpBench(Number(process.env.BENCH_CALLS) || undefined);
  (await import('./fixtures.js')).printRows(builds().map((b) => b.label));
}
