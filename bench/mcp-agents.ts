/**
 * Agents for bench/mcp.ts, in a process of their own (agents are other programs, and their CPU time is
 * then counted apart from the server's): `concurrency` MCP SDK clients, one session each, calling the
 * list tool. Parent side: runAgents(); child side: this file run with fork().
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Stats } from './drive.js';

export interface AgentRun {
  stats: Stats;
  /** The agents' process CPU time per call (µs): the SDK client's share of a call. */
  cpuPerCallUs: number;
}

/**
 * Starts the agents; resolves when they are connected and warm. `go()` runs the measured calls, so the
 * caller can read the other processes' CPU clocks around exactly that window.
 */
export function startAgents(url: string, concurrency: number, calls: number): Promise<{ go(): Promise<AgentRun> }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify({ url, concurrency, calls })], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('message', (m: { ready: true } | { error: string }) => {
      if ('error' in m) return reject(new Error(m.error));
      resolve({
        go: () =>
          new Promise<AgentRun>((done, fail) => {
            child.once('message', (r: AgentRun | { error: string }) => ('error' in r ? fail(new Error(r.error)) : done(r)));
            child.send('go');
          }),
      });
    });
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { drive } = await import('./drive.js');
  const { url, concurrency, calls } = JSON.parse(process.argv[2]!) as { url: string; concurrency: number; calls: number };
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
    await new Promise<void>((resolve) => {
      process.once('message', () => resolve());
      process.send!({ ready: true });
    });
    const before = process.cpuUsage();
    const stats = await drive(concurrency, calls, call);
    const cpu = process.cpuUsage(before);
    process.send({ stats, cpuPerCallUs: (cpu.user + cpu.system) / calls } satisfies AgentRun, () => {
      void Promise.all(clients.map((c) => c.close())).finally(() => process.exit(0));
    });
  } catch (err) {
    process.send({ error: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
  }
}
