/**
 * MCP benchmark (issue: MCP server): tools/call `assistant_gpucloud_list {resource: instances}` through
 * the real Streamable HTTP server and the SDK client, side by side with the same list made by the
 * gpucloud client directly, in the same process against the same in-process emulator (rate limits out
 * of the way). Concurrency 1 (one agent, sequential calls) and 32 (32 agents, one session each).
 * Reports throughput and p50/p99 per call; target: MCP adds ≤ 5 ms at p50.
 * The agents (SDK clients) run in a worker thread, as agents are other processes; with two cores the
 * machine is still shared, so MCP numbers are an upper bound.
 */
import { PROVIDERS } from '../engine/providers.js';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startEmulator } from '../emulator/index.js';
import { createGpuCloudClient } from '../engine/gpucloud/client.js';
import { startMcpHttpServer } from '../mcp/http.js';
import { createMcpServer } from '../mcp/server.js';
import type { McpBackend } from '../mcp/tools.js';
import type { Config } from '../schemas/config.js';

export interface Stats {
  p50: number;
  p99: number;
  perSecond: number;
}

export function stats(latencies: number[], wallMs: number): Stats {
  const s = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50: at(0.5), p99: at(0.99), perSecond: (latencies.length / wallMs) * 1000 };
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

const fmt = (s: Stats) => `p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ${s.perSecond.toFixed(0)} calls/s`;

/** Drives MCP calls from a worker thread: agents are other processes, so their CPU is not the server's. */
function agentsInWorker(url: string, concurrency: number, calls: number): Promise<Stats> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mcp-agents.js', import.meta.url), { workerData: { url, concurrency, calls } });
    worker.once('message', (m: Stats | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
    worker.once('error', reject);
  });
}

async function compare(label: string, calls: number, url: string, direct: () => Promise<void>): Promise<void> {
  console.log(label);
  for (const concurrency of [1, 32]) {
    await drive(concurrency, concurrency * 10, direct); // warm (token, connections, JIT)
    const d = await drive(concurrency, calls, direct);
    const m = await agentsInWorker(url, concurrency, calls);
    console.log(`  concurrency ${String(concurrency).padStart(2)}  direct: ${fmt(d)}`);
    console.log(`                  MCP:    ${fmt(m)}`);
    console.log(`                  MCP adds ${(m.p50 - d.p50).toFixed(2)} ms at p50 (target ≤ 5 ms), ${(m.p99 - d.p99).toFixed(2)} ms at p99; throughput ${(m.perSecond / d.perSecond).toFixed(2)}×`);
  }
}

export async function runMcpBench(calls = 1000, apiLatencyMs = 20): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  const gpucloud = createGpuCloudClient({
    baseUrl: emu.url,
    credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
    rateLimit: { perProject: 1e9, perPath: 1e9 },
  });
  const signal = new AbortController().signal;
  setMaxListeners(1000, signal);
  const backend: McpBackend = {
    config: {} as Config,
    predefined: {},
    providers: PROVIDERS,
    runContext: () => ({ client: async () => gpucloud, signal }),
    home: tmpdir(),
    env: {},
    sandbox: false,
    destroyer: false,
  };
  const server = await startMcpHttpServer({ host: '127.0.0.1', port: 0, newServer: () => createMcpServer(backend) });
  const direct = () => gpucloud.request({ method: 'GET', path: '/v1/instances', signal }).then(() => undefined);
  try {
    await compare(`\nMCP tools/call assistant_gpucloud_list vs the gpucloud client directly, ${calls} calls each; emulator answers at once (CPU-bound worst case)`, calls, server.url, direct);
    emu.addFault({ method: 'GET', path: '/v1/instances', delayMs: apiLatencyMs, times: -1 });
    await compare(`\nThe same with ${apiLatencyMs} ms of API latency (closer to a real cloud), ${calls / 4} calls each`, calls / 4, server.url, direct);
  } finally {
    await server.close();
    await emu.close();
  }
}
