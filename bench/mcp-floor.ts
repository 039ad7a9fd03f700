/**
 * The MCP floor (issue 40): our MCP server beside a minimal MCP SDK server with the same list tool (one
 * GET of /v1/instances with a cached token, nothing else), both driven by the same SDK-client agents in
 * a process of their own, against the emulator in a process of its own (after ../shared/bench/mcp-floor.mjs).
 * What our server costs per call beyond the SDK's own cost is its server CPU per call over the floor's.
 * Target (issue 40 item 3): ≤ 1.2× the floor's server CPU at 1 and 8 agents.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process.js';
import { builds, median, rows } from './fixtures.js';
import { loadLine, measureMcp, serverOf, type Measure } from './mcp.js';

const REPS = Number(process.env.BENCH_REPS) || 3;

/** The floor: the MCP SDK alone answering the list tool with a plain fetch (exported for profiling it on its own). */
export async function floorServer(emu: EmulatorProcess): Promise<{ url: string; close(): Promise<void> }> {
  const tok = (await (
    await fetch(`${emu.url}/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: emu.clientId, client_secret: emu.clientSecret }),
    })
  ).json()) as { access_token: string };
  const list = async () => {
    const r = await fetch(`${emu.url}/v1/instances`, { headers: { Authorization: `Bearer ${tok.access_token}` } });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`floor GET: ${r.status}`);
    return text;
  };
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const newServer = () => {
    const s = new McpServer({ name: 'floor', version: '1' });
    s.registerTool('assistant_gpucloud_list', { description: 'list', inputSchema: { resource: z.string() } }, async () => ({ content: [{ type: 'text' as const, text: await list() }] }));
    return s;
  };
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
  };
  const http = createServer((req, res) => {
    void (async () => {
      const parsed = await body(req);
      const sid = req.headers['mcp-session-id'];
      let t = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!t) {
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true, onsessioninitialized: (id) => void transports.set(id, fresh) });
        await newServer().connect(fresh);
        t = fresh;
      }
      await t.handleRequest(req, res, parsed);
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const medianServer = (ms: Measure[]) => median(ms.map((m) => m.cpu.server));

export async function runMcpFloorBench(calls = 600): Promise<void> {
  console.log(`\nMCP floor: server CPU per list call, ours against a minimal MCP SDK server (the floor), same agents and emulator; ${calls} calls per measure, median of ${REPS}; ${loadLine()}`);
  const emu = await startEmulatorProcess({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    const floor = await floorServer(emu);
    // As `assistant mcp` runs it: limits shared through this machine's record.
    const ours = await Promise.all(builds().map(async (b) => [b, await serverOf(b, emu, true)] as const));
    try {
      for (const agents of [1, 8]) {
        const floorRuns: Measure[] = [];
        const ourRuns = new Map(ours.map(([b]) => [b.label, [] as Measure[]]));
        for (let rep = 0; rep < REPS; rep++) {
          floorRuns.push(await measureMcp(emu, floor.url, agents, calls));
          for (const [b, s] of ours) ourRuns.get(b.label)!.push(await measureMcp(emu, s.url, agents, calls));
        }
        const f = medianServer(floorRuns);
        const values: Record<string, string> = {};
        let met: boolean | undefined;
        console.log(`  ${agents} agent(s): floor server ${f.toFixed(0)} µs per call, ${median(floorRuns.map((m) => m.stats.perSecond)).toFixed(0)} calls/s`);
        for (const [label, runs] of ourRuns) {
          const o = medianServer(runs);
          console.log(`  ${agents} agent(s): [${label}] our server ${o.toFixed(0)} µs per call (${(o / f).toFixed(2)}× the floor), ${median(runs.map((m) => m.stats.perSecond)).toFixed(0)} calls/s`);
          values[label] = `${(o / f).toFixed(2)}× (${o.toFixed(0)} vs ${f.toFixed(0)} µs)`;
          met = o / f <= 1.2;
        }
        rows.push({ measure: `MCP server CPU per list call / minimal MCP SDK server, ${agents} agent${agents > 1 ? 's' : ''}`, values, target: '≤ 1.2×', met });
      }
    } finally {
      await floor.close();
      for (const [, s] of ours) await s.close();
    }
  } finally {
    await emu.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await runMcpFloorBench(Number(process.env.BENCH_CALLS) || undefined);
  (await import('./fixtures.js')).printRows(builds().map((b) => b.label));
}
