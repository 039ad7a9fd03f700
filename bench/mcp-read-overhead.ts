/**
 * Our own per-call work of the MCP list tool, without HTTP on either side (issue 40 item 3): the tool's
 * handler as the server registers it (mcp/tools.ts, with its masking), over the real gpucloud client
 * (limits shared through a file record, token, retry schedule, secret origins, decoding) whose `fetch`
 * answers at once with the emulator's list. What is left is exactly what our server adds to the SDK's
 * cost per call, measured in one process with little noise: CPU µs per call, each build taking turns,
 * medians. The floor of this measure is the `fetch` stand-in itself (a Response and its text()).
 *
 *   node dist/bench/mcp-read-overhead.js          # BENCH_BASELINE=<checkout> puts a baseline beside
 */
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { builds, importFrom, median, rows, tempDir, type Build } from './fixtures.js';
import { loadLine } from './mcp.js';

const CALLS = Number(process.env.BENCH_CALLS) || 3000;
const REPS = Number(process.env.BENCH_REPS) || 7;

/** Two instances as the emulator's demo seed lists them (the list the MCP bench reads). */
const LIST = JSON.stringify(
  ['demo-a100', 'demo-cpu'].map((hostname, i) => ({
    id: `0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b2${i}`,
    instance_type: i ? 'CPU.4V.16G' : '1A100.22V',
    image: 'ubuntu-24.04-cuda-12.8-open-docker',
    os_name: 'Ubuntu 24.04',
    price_per_hour: i ? 0.0279 : 1.29,
    hostname,
    description: `${hostname} (seeded)`,
    ip: `203.0.113.1${i}`,
    status: i ? 'offline' : 'running',
    created_at: '2026-11-26T14:43:47.809Z',
    ssh_key_ids: ['6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'],
    startup_script_id: null,
    os_volume_id: '1c7f5d2b-3a4e-4f6b-8c9d-8e7f6a5b4c32',
    volume_ids: [],
    cpu: { description: '22 CPU', number_of_cores: 22 },
    gpu: { description: '1x A100 SXM4 80GB', number_of_gpus: 1 },
    memory: { description: '120GB RAM', size_in_gigabytes: 120 },
    location: 'FIN-01',
    is_spot: false,
    contract: 'PAY_AS_YOU_GO',
    pricing: 'FIXED_PRICE',
    jupyter_token: '535206fa0ebc585e2c386b7aa4ee1701',
    tags: [],
  })),
);

const answer = (url: string) =>
  Promise.resolve(
    url.endsWith('/oauth2/token')
      ? new Response(JSON.stringify({ access_token: 'a'.repeat(40), token_type: 'Bearer', expires_in: 3600, scope: 'cloud-api-v1' }), { status: 200 })
      : new Response(LIST, { status: 200, headers: { 'content-type': 'application/json' } }),
  );

type Handler = (args: Record<string, unknown>, extra: unknown) => Promise<{ isError?: boolean; content: unknown[] }>;

/** The list tool's handler of a build, as its server registers it (caught from registerTool). */
export async function listHandlerOf(b: Build): Promise<{ call(): Promise<void>; close(): Promise<void> }> {
  const { PROVIDERS } = await importFrom<{ PROVIDERS: unknown }>(b, 'engine/providers/index.js');
  const { createGpuCloudClient } = await importFrom<{ createGpuCloudClient(o: unknown): { close?(): Promise<void> } }>(b, 'engine/providers/gpucloud/client.js');
  const { registerTools } = await importFrom<{ registerTools(s: unknown, backend: unknown): void }>(b, 'mcp/tools.js');
  const client = createGpuCloudClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: { clientId: 'bench', clientSecret: 'bench-secret' },
    rateLimit: { perProject: 1e9, perPath: 1e9 },
    sharedLimits: { dir: tempDir() },
    fetch: answer,
  });
  const signal = new AbortController().signal;
  setMaxListeners(1000, signal);
  const backend = { config: {}, predefined: {}, providers: PROVIDERS, runContext: () => ({ client: async () => client, signal }), home: tmpdir(), env: {}, sandbox: false, destroyer: false };
  let handler: Handler | undefined;
  const catcher = { registerTool: (name: string, _config: unknown, cb: Handler) => void (name === 'assistant_gpucloud_list' && (handler = cb)) };
  registerTools(catcher as unknown as McpServer, backend);
  const extra = { signal: new AbortController().signal, _meta: undefined, sendNotification: async () => undefined };
  return {
    call: async () => {
      const r = await handler!({ resource: 'instances' }, extra);
      if (r.isError) throw new Error(JSON.stringify(r.content));
    },
    close: async () => void (await client.close?.()),
  };
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function cpuPerCall(call: () => Promise<void>, calls: number): Promise<number> {
  const t0 = cpuNow();
  for (let i = 0; i < calls; i++) await call();
  return (cpuNow() - t0) / calls;
}

export async function runMcpReadOverheadBench(calls = CALLS): Promise<void> {
  console.log(`\nMCP list, our own work per call without HTTP (the tool's handler over the real client, fetch answered at once); ${calls} calls × ${REPS}, medians; ${loadLine()}`);
  const floor = async () => void (await (await answer('http://127.0.0.1:9/v1/instances')).text());
  const runs = await Promise.all(builds().map(async (b) => [b, await listHandlerOf(b)] as const));
  const got = new Map<string, number[]>([['fetch stand-in', []], ...runs.map(([b]) => [b.label, []] as [string, number[]])]);
  for (const [, r] of runs) await cpuPerCall(r.call, 500); // JIT, token, lease
  await cpuPerCall(floor, 500);
  for (let rep = 0; rep < REPS; rep++) {
    got.get('fetch stand-in')!.push(await cpuPerCall(floor, calls));
    for (const [b, r] of runs) got.get(b.label)!.push(await cpuPerCall(r.call, calls));
  }
  for (const [label, xs] of got) console.log(`  ${label.padEnd(15)} ${median(xs).toFixed(1).padStart(7)} µs per call (runs: ${xs.map((x) => x.toFixed(0)).join(', ')})`);
  for (const [, r] of runs) await r.close();
  console.log(`  ${loadLine()}`);
  // The low-noise view of what the floor bench's ratio is made of: our own work per call beside the stand-in's.
  const standIn = median(got.get('fetch stand-in')!);
  const values = Object.fromEntries(runs.map(([b]) => [b.label, `${median(got.get(b.label)!).toFixed(0)} µs (fetch stand-in ${standIn.toFixed(0)} µs)`]));
  rows.push({ measure: 'MCP list, our own work per call without HTTP (the tool handler, in process)', values, target: '-' });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await runMcpReadOverheadBench();
  (await import('./fixtures.js')).printRows(builds().map((b) => b.label));
}
