/**
 * How the reports and the terraform drift check read cloud_a: every read is an `aws` step in a plan run through the executor
 * (machines/apply/reads.ts readPlan), never a side path. Each read is its own one-step plan, so one
 * service that is not enabled or one missing permission makes one row `unknown` instead of ending the
 * whole report; a few run at once, since each step starts a CLI process.
 */
import type { Plan } from '../../../schemas/plan.js';

/** Runs a plan through the executor and returns every step's response (readPlan bound to a backend). */
export type PlanReader = (plan: Plan) => Promise<unknown[]>;

export type ReadOutcome = { ok: true; data: unknown } | { ok: false; code: string; message: string };

/** How many aws steps run at the same time. */
const CONCURRENCY = 6;

/** Reads each args vector (`["aws", …]`) as a one-step plan; the outcomes in the same order. */
export async function readEach(read: PlanReader, steps: readonly (readonly string[])[], reason: string): Promise<ReadOutcome[]> {
  const out: ReadOutcome[] = new Array(steps.length);
  let next = 0;
  const worker = async () => {
    while (next < steps.length) {
      const i = next++;
      const plan: Plan = { version: 1, provider: 'cloud_a', commands: [{ args: [...steps[i]!], reason }] };
      try {
        out[i] = { ok: true, data: (await read(plan))[0] };
      } catch (err) {
        // Interrupts, timeouts and refusals (exit 3: nothing was run, e.g. not_in_sandbox) end the report;
        // a failed read is a fact of the report.
        const e = err as { code?: string; message?: string; exitCode?: number };
        if (e.code === 'interrupted' || e.code === 'timeout' || e.code === 'cli_not_found' || e.code === 'cli_not_authenticated' || e.exitCode === 3) throw err;
        out[i] = { ok: false, code: e.code ?? 'error', message: e.message ?? String(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, steps.length) }, worker));
  return out;
}

/** Reads one step; the outcome. */
export async function readOne(read: PlanReader, args: readonly string[], reason: string): Promise<ReadOutcome> {
  return (await readEach(read, [args], reason))[0]!;
}

/** A failed read in a few words: the AWS error code, else the CLI's message without the command line. */
export function shortReason(outcome: ReadOutcome): string {
  if (outcome.ok) return '';
  return awsErrorCode(outcome) ?? outcome.message.replace(/^.*? failed \(exit [^)]*\): /, '').slice(0, 200);
}

/** An AWS error code in a failed read's message (`NoSuchEntity`, `NoSuchPublicAccessBlockConfiguration`…). */
export function awsErrorCode(outcome: ReadOutcome): string | undefined {
  if (outcome.ok) return undefined;
  return /An error occurred \(([A-Za-z.]+)\)/.exec(outcome.message)?.[1];
}
