/** Worker for bench/mcp.ts: `concurrency` MCP agents (one SDK client session each) calling the list tool. */
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { drive } from './mcp.js';

const { url, concurrency, calls } = workerData as { url: string; concurrency: number; calls: number };
try {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const c = new Client({ name: 'bench-agent', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      return c;
    }),
  );
  const call = async (w: number) => {
    const r = await clients[w]!.callTool({ name: 'assistant_gpucloud_list', arguments: { resource: 'instances' } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  };
  await drive(concurrency, concurrency * 10, call);
  parentPort!.postMessage(await drive(concurrency, calls, call));
  await Promise.all(clients.map((c) => c.close()));
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
