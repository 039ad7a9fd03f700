/** Drives calls at a given concurrency and sums them up (bench/mcp.ts and its agents' process). */
import { percentile } from './fixtures.js';

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

