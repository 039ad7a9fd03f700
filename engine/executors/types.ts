import type { CreateDedupe } from '../gpucloud/dedupe.js';
import type { GpuCloudClient } from '../gpucloud/types.js';

/** One problem found in a command's args before anything is sent. */
export interface ArgProblem {
  field: string;
  message: string;
}

export interface StepResult {
  /** HTTP status when the step made an HTTP call. */
  status?: number;
  /** The value `produces` JSONPaths are evaluated against, and what renderers show. */
  data: unknown;
  attempts?: number;
  deduplicated?: boolean;
}

export interface ExecutorContext {
  gpucloud: () => Promise<GpuCloudClient>;
  signal: AbortSignal;
  /** For a create step of a journaled run: the run's name snapshot, so the client does not list again. */
  createGuard?: CreateDedupe;
  /** Told what a long step is waiting for (polls); the CLI prints it on stderr at a modest rate. */
  notice?: (message: string) => void;
}

/** A plan step verb: its own argument checks, its destroyer classification, and how it runs. */
export interface StepExecutor {
  verb: string;
  checkArgs(args: string[]): ArgProblem[];
  destructive(args: string[]): string[];
  /** Which args may hold placeholders and how each is substituted. */
  substitute(args: string[], bindings: Record<string, string>): string[];
  run(args: string[], ctx: ExecutorContext): Promise<StepResult>;
  /** One-line human description of the step (for progress and dry runs). */
  describe(args: string[]): string;
}
