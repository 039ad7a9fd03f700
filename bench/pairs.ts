/**
 * What a paired measure of the apply path reports: each repetition runs the apply path and its plain
 * counterpart back to back, and the row is the median of those pairs (bench/apply-path.ts, creates.ts).
 */
export interface PairedResult {
  /** The apply path / the plain side, wall time: the median of the ratios of pairs run back to back. */
  ratio: number;
  /** The same for this process's CPU time (user + system). */
  cpuRatio: number;
  /** What the apply path adds per step over the plain side (median of the pairs' differences), wall and CPU. */
  addedUs: number;
  addedCpuUs: number;
}

/** This process's CPU time so far (user + system), in ms. */
export const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
