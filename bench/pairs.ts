/**
 * What a paired measure of the apply path reports: each repetition runs the apply path and its plain
 * counterpart back to back, and the row is the median of those pairs (bench/apply-path.ts, creates.ts).
 */
import { median } from './fixtures.js';

export interface PairedResult {
  /** The apply path / the plain side, wall time: the median of the ratios of pairs run back to back. */
  ratio: number;
  /** The same for this process's CPU time (user + system). */
  cpuRatio: number;
  /** What the apply path adds per step over the plain side (median of the pairs' differences), wall and CPU. */
  addedUs: number;
  addedCpuUs: number;
}

/** One timed run: wall and this process's CPU, in ms. */
export interface Timed {
  ms: number;
  cpu: number;
}

/** The row from pairs run back to back: `ours[i]` beside `plain[i]`, `per` steps (or creates) in each. */
export function pairedResult(ours: readonly Timed[], plain: readonly Timed[], per: number): PairedResult {
  const pairs = ours.map((x, i) => ({ wall: x.ms / plain[i]!.ms, cpu: x.cpu / plain[i]!.cpu, added: (x.ms - plain[i]!.ms) / per, addedCpu: (x.cpu - plain[i]!.cpu) / per }));
  return {
    ratio: median(pairs.map((x) => x.wall)),
    cpuRatio: median(pairs.map((x) => x.cpu)),
    addedUs: median(pairs.map((x) => x.added)) * 1000,
    addedCpuUs: median(pairs.map((x) => x.addedCpu)) * 1000,
  };
}

/** This process's CPU time so far (user + system), in ms. */
export const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
