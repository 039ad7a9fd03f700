import { assign, fromPromise, setup } from 'xstate';
import type { Plan } from '../schemas/plan.js';
import { executorFor } from '../engine/executors/index.js';
import type { ExecutorContext, StepResult } from '../engine/executors/types.js';
import { evaluateProduces } from '../engine/plan/produces.js';
import { isAbortError, SafetyRefusal } from '../engine/errors.js';

export interface CompletedStep {
  index: number;
  result: StepResult;
  produced: Record<string, string>;
  durationMs: number;
}

/** Optional hooks around each step (the run journal). `before` may return a result that replaces sending the step. */
export interface StepHooks {
  before(index: number, args: string[]): Promise<StepResult | undefined>;
  done(step: CompletedStep): void;
}

export interface RunPlanInput {
  plan: Plan;
  /** First step to run (resume); earlier steps are in `completed` and their bindings in `bindings`. */
  startIndex?: number;
  completed?: CompletedStep[];
  hooks?: StepHooks;
  bindings: Record<string, string>;
  executorContext: ExecutorContext;
  /** Whether destructive steps are permitted; re-checked on the substituted request as a backstop. */
  destroyer: boolean;
  onStepStart?: (index: number, args: string[]) => void;
  onStepDone?: (step: CompletedStep) => void;
}

interface RunContext extends RunPlanInput {
  index: number;
  completed: CompletedStep[];
  error?: unknown;
}

/**
 * The plan run as explicit states: starting → running step i (re-entered per step) → succeeded, with
 * failed and cancelled as the other endings. Validation and the destroyer gate happen before this machine starts.
 */
export const runPlanMachine = setup({
  types: { context: {} as RunContext, input: {} as RunPlanInput },
  actors: {
    runStep: fromPromise(async ({ input }: { input: RunContext }): Promise<CompletedStep> => {
      const command = input.plan.commands[input.index]!;
      const executor = executorFor(command.args[0]!)!;
      const args = executor.substitute(command.args, input.bindings);
      // Validation classified the plan as written; only a substituted value can change the verdict.
      const changed = args.some((a, i) => a !== command.args[i]);
      const reasons = input.destroyer || !changed ? [] : executor.destructive(args);
      if (reasons.length) {
        throw new SafetyRefusal(`step ${input.index} became destructive after substituting bindings (${reasons.join('; ')}); it was not sent`, {
          hint: 'review the plan; if the destruction is intended, run again with --destroyer',
        });
      }
      input.onStepStart?.(input.index, args);
      const started = performance.now();
      const adopted = await input.hooks?.before(input.index, args);
      const result = adopted ?? (await executor.run(args, input.executorContext));
      const produced = evaluateProduces(command.produces, result.data);
      return { index: input.index, result, produced, durationMs: performance.now() - started };
    }),
  },
  guards: {
    hasMoreSteps: ({ context }) => context.index < context.plan.commands.length,
    moreAfterThis: ({ context }) => context.index + 1 < context.plan.commands.length,
    wasCancelled: ({ event }) => isAbortError((event as { error?: unknown }).error),
  },
  actions: {
    recordStep: assign(({ context, event }) => {
      const step = (event as unknown as { output: CompletedStep }).output;
      context.hooks?.done(step);
      context.onStepDone?.(step);
      // Appended in place: copying the list on every step made long plans quadratic.
      context.completed.push(step);
      return { bindings: { ...context.bindings, ...step.produced }, index: context.index + 1 };
    }),
  },
}).createMachine({
  id: 'runPlan',
  context: ({ input }) => ({ ...input, index: input.startIndex ?? 0, completed: [...(input.completed ?? [])] }),
  initial: 'starting',
  states: {
    // A resumed run may have nothing left to do.
    starting: {
      always: [{ guard: 'hasMoreSteps', target: 'running' }, { target: 'succeeded' }],
    },
    running: {
      invoke: {
        src: 'runStep',
        input: ({ context }) => context,
        onDone: [
          { guard: 'moreAfterThis', target: 'running', reenter: true, actions: 'recordStep' },
          { target: 'succeeded', actions: 'recordStep' },
        ],
        onError: [
          { guard: 'wasCancelled', target: 'cancelled', actions: assign({ error: ({ event }) => event.error }) },
          { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
        ],
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
