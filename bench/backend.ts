/**
 * Credential backend benchmark (issue 26): store (PUT) and read (GET) latency through HTTP, p50 and p95,
 * for the embedded PGlite and a real PostgreSQL (when installed), with 1 and with 16 concurrent clients.
 * The server runs as its own process (`assistant backend serve`), as in use; the clients are fetch
 * loops in this process. Every store is a transaction (record + audit row); every read decrypts and
 * writes an audit row.
 */
import { loadavg } from 'node:os';
import { backendApiKey, startBackend, startBenchPostgres, whyNoPostgres, type BenchBackend } from './fixtures.js';

const OPS_PER_CONFIG = 400;

function pct(sorted: number[], p: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
}

async function measure(b: BenchBackend, key: string, clients: number, label: string): Promise<void> {
  const perClient = Math.ceil(OPS_PER_CONFIG / clients);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const url = (c: number, i: number) => `${b.url}/v1/credentials/production/gpucloud/bench-${clients}-${c}-${i}`;
  const body = (c: number, i: number) => JSON.stringify({ fields: { client_id: `id-${c}-${i}`, client_secret: `secret-${c}-${i}-${'s'.repeat(40)}` } });
  const run = async (op: 'store' | 'read'): Promise<{ lat: number[]; wall: number }> => {
    const lat: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < perClient; i++) {
          const t = performance.now();
          const r = await fetch(url(c, i), op === 'store' ? { method: 'PUT', headers, body: body(c, i) } : { headers });
          await r.arrayBuffer();
          if (!r.ok) throw new Error(`${op} ${r.status}`);
          lat.push(performance.now() - t);
        }
      }),
    );
    return { lat: lat.sort((a, z) => a - z), wall: performance.now() - started };
  };
  for (const op of ['store', 'read'] as const) {
    const { lat, wall } = await run(op);
    console.log(
      `  ${label}, ${String(clients).padStart(2)} client(s), ${op.padEnd(5)}: p50 ${pct(lat, 0.5)} ms, p95 ${pct(lat, 0.95)} ms, ` +
        `${((lat.length / wall) * 1000).toFixed(0)} ops/s (${lat.length} ops; load average ${loadavg()[0]!.toFixed(1)})`,
    );
  }
}

async function onStorage(label: string, database?: string): Promise<void> {
  const b = await startBackend(database);
  try {
    const key = backendApiKey(b, 'bench');
    // Warm up: connections, the first queries' plans.
    for (let i = 0; i < 20; i++) await (await fetch(`${b.url}/v1/health`)).arrayBuffer();
    for (const clients of [1, 16]) await measure(b, key, clients, label);
  } finally {
    await b.stop();
  }
}

export async function runBackendBench(): Promise<void> {
  console.log('credential backend (issue 26): store and read through HTTP');
  await onStorage('PGlite');
  const missing = whyNoPostgres();
  if (missing) {
    console.log(`  PostgreSQL: skipped (${missing})`);
    return;
  }
  const pg = await startBenchPostgres();
  try {
    await onStorage(`PostgreSQL ${pg.version}`, pg.createDatabase('backend_bench'));
  } finally {
    await pg.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runBackendBench();
