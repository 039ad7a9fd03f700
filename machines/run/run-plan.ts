/**
 * The plan run as a state machine, and `runPlan`, which drives it.
 *
 *   next ──(steps left)──► stepping ──(done, more left)──► stepping (again, next step)
 *     └──(none left)──► succeeded ◄──(done, last)──┘ │ ▲
 *                                             pending│ │after pollDelay    stepping ──(error)──► failed | cancelled
 *                                                    ▼ │
 *                                                   waiting ──(CANCEL)──► cancelled
 *
 * A step that waits for something (a cluster until `running`) answers `pending`; the machine sits in
 * `waiting` for the verb's delay and runs the step again: polling is a state with a delayed transition,
 * not a loop hidden in an executor. The effects are injected: the step effect (substitute, gate re-check,
 * send, `produces`) with the input, or as the `runner` actor with `.provide()`, and `record` (journal,
 * observer), so tests can swap either. A resumed run starts from what the persisted journal recorded
 * (`startIndex`, `bindings`, `completed`).
 */
import { assign, createActor, enqueueActions, fromCallback, setup, toPromise, type AnyActorRef } from 'xstate';
import type { Plan } from '../../schemas/plan.js';
import type { RunReport, StepReport } from '../../schemas/run-report.js';
import { AssistantError, ExitCode, InterruptedError, isAbortError, OperationError, SafetyRefusal } from '../../engine/core/errors.js';
import { abortReason } from '../../engine/core/deadline.js';
import type { CanonicalForm, CanonicalRequest, ProviderSet, ProviderSource, RunObserver, StepClass, StepContext, StepResult } from '../../engine/core/provider.js';
import type { CheckedPlan } from '../../engine/core/plan/check.js';
import { evaluateProduces } from '../../engine/core/plan/produces.js';
import type { JournalState, RunJournal } from '../../engine/core/plan/journal.js';
import type { CreateStepPlan, RunCreates } from '../../engine/core/plan/names.js';
import type { PlanBackend, RunContext } from '../../engine/core/plan/backend.js';
import { redactText, redactValue } from '../../engine/core/redact.js';

export interface CompletedStep {
  index: number;
  result: StepResult;
  produced: Record<string, string>;
  durationMs: number;
}

/** What one run of the `step` effect is asked to do. */
export interface StepInput {
  index: number;
  bindings: Record<string, string>;
  /** Set while polling: when the first poll of this step started. */
  pollingSince?: number;
}

export type StepOutput = { kind: 'done'; step: CompletedStep } | { kind: 'pending'; afterMs: number; pollingSince: number };

interface MachineInput {
  total: number;
  startIndex: number;
  bindings: Record<string, string>;
  completed: CompletedStep[];
  /**
   * The run's effects, handed in with the input rather than by `.provide()`: providing builds a new
   * machine, about 1 ms per run, which every one-step read (each MCP call, each static command) paid.
   * Without an effect, the machine's `runner` actor performs steps (tests provide one with stepRunner).
   */
  effect?: StepEffect;
  record?: (step: CompletedStep) => void;
}

interface MachineContext extends MachineInput {
  index: number;
  pollingSince?: number;
  pollAfterMs: number;
  error?: unknown;
}

type MachineEvent =
  | { type: 'STEP_DONE'; output: StepOutput }
  /** Raised by `stepping` when it is entered with no step left (a resumed run that had finished). */
  | { type: 'NO_STEPS_LEFT' }
  | { type: 'STEP_FAILED'; error: unknown }
  /** The command's signal aborted: `reason` says whether by Ctrl-C (interrupted) or its deadline (timeout). */
  | { type: 'CANCEL'; reason: AssistantError };

/** A step effect: what one run of a step does (runPlan's, or a test's). */
export type StepEffect = (input: StepInput) => Promise<StepOutput>;

/** Performs one step and reports its outcome to `to` as STEP_DONE or STEP_FAILED. */
function performStep(effect: StepEffect, input: StepInput, to: Pick<AnyActorRef, 'send'>): void {
  effect(input).then(
    (output) => to.send({ type: 'STEP_DONE', output }),
    (error: unknown) => to.send({ type: 'STEP_FAILED', error }),
  );
}

/**
 * The actor that performs steps for a machine whose input carries no effect (`.provide()` swaps it in:
 * tests): it lives as long as the run, runs one step per RUN event and reports the outcome back. An
 * input's effect is called by the machine itself, with no actor: a child actor measured ~90 µs of
 * XState work per run, most of what a one-step read (an MCP list, a static command) spent in XState.
 */
export function stepRunner(effect?: StepEffect) {
  return fromCallback<{ type: 'RUN'; input: StepInput }>(({ sendBack, receive }) => {
    receive((event) => {
      if (!effect) throw new Error('runPlanMachine: give the step effect in the input, or provide the step runner (stepRunner(effect))');
      performStep(effect, event.input, { send: sendBack });
    });
  });
}

export const runPlanMachine = setup({
  types: { context: {} as MachineContext, input: {} as MachineInput, events: {} as MachineEvent },
  actors: {
    /** Performs steps when the input has no effect (a provided stepRunner). */
    runner: stepRunner(),
  },
  actions: {
    /** The runner actor, only for a machine whose input carries no effect. */
    startRunner: enqueueActions(({ context, enqueue }) => {
      if (!context.effect) enqueue.spawnChild('runner', { id: 'runner' });
    }),
    /**
     * Performs the current step on entering `stepping`: the input's effect, else the runner actor. Entered
     * with no step left (a resumed run that had finished), it raises NO_STEPS_LEFT, which `stepping` takes
     * straight on to succeeded (an eventless transition instead was evaluated after every step).
     */
    run: enqueueActions(({ context, self, enqueue }) => {
      if (context.index >= context.total) return enqueue.raise({ type: 'NO_STEPS_LEFT' });
      const input: StepInput = { index: context.index, bindings: context.bindings, pollingSince: context.pollingSince };
      if (context.effect) performStep(context.effect, input, self);
      else enqueue.sendTo('runner', { type: 'RUN', input });
    }),
    /**
     * A step done and more to run, in one action: count it, record it (journal, observer), start the
     * next. One action rather than three because XState resolves each action of a transition on its
     * own, and that was most of what the machine cost per step of a long plan.
     */
    advance: ({ context, event, self }) => {
      const step = doneStep({ event });
      countDone(context, step);
      context.record?.(step);
      const input: StepInput = { index: context.index, bindings: context.bindings };
      if (context.effect) performStep(context.effect, input, self);
      // A provided runner (tests): the machine spawned it when it started.
      else (self.getSnapshot() as { children: Record<string, AnyActorRef | undefined> }).children.runner!.send({ type: 'RUN', input });
    },
    /** The last step done: count it and record it. */
    finishLast: ({ context, event }) => {
      const step = doneStep({ event });
      countDone(context, step);
      context.record?.(step);
    },
  },
  delays: {
    pollDelay: ({ context }) => context.pollAfterMs,
  },
  guards: {
    isPending: ({ event }) => (event as { output?: StepOutput }).output?.kind === 'pending',
    /** Decided before the completed step is counted (guards run before actions). */
    moreAfterThis: ({ context }) => context.index + 1 < context.total,
    /** Ended by Ctrl-C (exit 130). A deadline's timeout is a failure (exit 1), not a cancellation. */
    wasCancelled: ({ event }) => isAbortError((event as { error?: unknown }).error),
  },
}).createMachine({
  id: 'runPlan',
  // Spelled out, not spread from the input: a spread measured a few µs of every run.
  context: ({ input }) => ({
    total: input.total,
    startIndex: input.startIndex,
    bindings: input.bindings,
    completed: input.completed,
    effect: input.effect,
    record: input.record,
    index: input.startIndex,
    pollAfterMs: 0,
  }),
  entry: 'startRunner',
  // The run starts in `stepping`: a `next` state deciding between stepping and succeeded cost every
  // run (each one-step read: an MCP list, a static command) a second microstep; a resumed run with
  // nothing left leaves `stepping` at once by the event its entry raises, without running a step.
  initial: 'stepping',
  states: {
    stepping: {
      entry: 'run',
      on: {
        NO_STEPS_LEFT: 'succeeded',
        STEP_DONE: [
          {
            guard: 'isPending',
            target: 'waiting',
            actions: assign(({ event }) => {
              const out = event.output as Extract<StepOutput, { kind: 'pending' }>;
              return { pollAfterMs: out.afterMs, pollingSince: out.pollingSince };
            }),
          },
          // The next step runs in the same state: a transition without a target skips exit and entry work.
          { guard: 'moreAfterThis', actions: 'advance' },
          { target: 'succeeded', actions: 'finishLast' },
        ],
        STEP_FAILED: [
          { guard: 'wasCancelled', target: 'cancelled', actions: assign({ error: ({ event }) => event.error }) },
          { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
        ],
      },
    },
    waiting: {
      after: { pollDelay: 'stepping' },
      on: {
        CANCEL: [
          { guard: ({ event }) => event.reason instanceof InterruptedError, target: 'cancelled', actions: assign({ error: () => new InterruptedError('interrupted while waiting to poll again') }) },
          { target: 'failed', actions: assign({ error: ({ event }) => event.reason }) },
        ],
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

function doneStep({ event }: { event: unknown }): CompletedStep {
  return ((event as { output: StepOutput }).output as Extract<StepOutput, { kind: 'done' }>).step;
}

/**
 * Counts a completed step. The completed list, the bindings and the index change in place: an
 * `assign` per step copies the context and measured 1.3× a plain loop over 1,000 steps; the context
 * is still only changed by the machine's own transitions.
 */
function countDone(context: MachineContext, step: CompletedStep): void {
  context.completed.push(step);
  Object.assign(context.bindings, step.produced);
  context.index++;
  context.pollingSince = undefined;
}


export interface RunOptions {
  providers: ProviderSet;
  /** Bindings predefined from config (DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION, PROJECT_ID). */
  predefined: Record<string, string>;
  context: RunContext;
  /** Every event of the run (progress, waits, --debug). */
  observer?: RunObserver;
  /** Records every step; with `resume`, continues after the steps it recorded as done. */
  journal?: RunJournal;
  resume?: JournalState;
  /** Create guards of a journaled run (one name snapshot per kind, adoption of interrupted creates). */
  creates?: RunCreates;
  /** Keep every step's response in `results` (static commands, dry runs). Off for applies: a long plan
   * would otherwise hold every response body in memory until the end. */
  keepResults?: boolean;
}

export interface RunOutcome {
  status: RunReport['status'];
  /**
   * The run's report, redacted (once: the whole report on its way out). Made when first read: a read
   * (readPlan) needs only the status and the results, and every MCP list and static command is one.
   */
  readonly report: RunReport;
  /** Raw step responses, index-aligned with completed steps, when `keepResults` was set (else empty). */
  results: unknown[];
  /** The error that ended a failed or cancelled run (carries the exit code). */
  error?: unknown;
  /** Secrets produced by steps with `reveal: true` (StepResult.secrets): for the CLI's stdout only, never MCP. */
  revealed?: { step: number; secrets: { path: string; value: string }[] }[];
}

/**
 * Runs a checked plan (validated once, gated: engine/core/plan/check.ts) through the machine. Only the apply
 * module (machines/apply/) calls it: producers hand their plans to that module, never to the executor.
 */
export async function runPlan(checked: CheckedPlan, opts: RunOptions): Promise<RunOutcome> {
  const { plan, classes } = checked;
  const total = plan.commands.length;
  const completed: CompletedStep[] = [];
  const bindings = { ...opts.predefined };
  for (let index = 0; opts.resume?.completed.has(index); index++) {
    const done = opts.resume.completed.get(index)!;
    completed.push({ index, result: { status: done.http_status, data: undefined }, produced: done.produced, durationMs: 0 });
    Object.assign(bindings, done.produced);
  }
  // Steps an earlier run completed (a resume): described as substituted, as they never ran here.
  const resumedSteps = completed.length;
  const results: unknown[] = [];
  const revealed: NonNullable<RunOutcome['revealed']> = [];
  // No observer (a read: each MCP list, each static command): no events are built at all (`observe?.(…)`
  // evaluates its argument only when there is one), so a step's description is not made for nobody.
  const observe = opts.observer ?? opts.context.observer;
  const sent = new SentSteps();
  // The canonical requests of steps that bindings changed, made once when the step ran (the report reads them).
  const bound = new Map<number, CanonicalRequest | undefined>();
  const step = stepEffect(checked, { ...opts, observer: observe }, sent, bound);

  const record = (done: CompletedStep) => {
    opts.journal?.stepDone(done.index, done.produced, done.result.status, done.result.alternative);
    if (plan.commands[done.index]!.reveal && done.result.secrets?.length) revealed.push({ step: done.index, secrets: done.result.secrets });
    if (opts.keepResults) results.push(done.result.data);
    else done.result = { ...done.result, data: undefined };
    observe?.({
      type: 'step-done',
      index: done.index,
      total,
      status: done.result.status,
      durationMs: done.durationMs,
      produced: done.produced,
      deduplicated: done.result.deduplicated,
    });
  };
  const actor = createActor(runPlanMachine, { input: { total, startIndex: completed.length, bindings, completed, effect: step, record } });
  const onAbort = () => actor.send({ type: 'CANCEL', reason: abortReason(opts.context.signal) });
  opts.context.signal.addEventListener('abort', onAbort, { once: true });
  actor.start();
  if (opts.context.signal.aborted) onAbort();
  await toPromise(actor).catch(() => undefined);
  opts.context.signal.removeEventListener('abort', onAbort);
  const snapshot = actor.getSnapshot();
  const { error, bindings: finalBindings } = snapshot.context;
  const status = snapshot.value as 'succeeded' | 'failed' | 'cancelled';
  if (status !== 'succeeded') observe?.({ type: 'step-failed', index: completed.length, total, error });
  // A failure whose outcome is known (nothing was made) is recorded, so a resume does not wait for it to appear.
  if (status === 'failed' && !sent.outcomeUnknown(completed.length, error)) opts.journal?.settled(completed.length);

  if (status === 'succeeded') opts.journal?.finish();
  let report: RunReport | undefined;
  const makeReport = (): RunReport => {
    const byIndex = new Map(completed.map((c) => [c.index, c]));
    const steps: StepReport[] = plan.commands.map((command, index) => {
      const done = byIndex.get(index);
      const verb = opts.providers.verb(command.args[0]!)!.verb;
      // A step that ran unchanged by bindings is described from its validated request as it is (most
      // steps of a long plan: no substituting them again); one bindings changed, from the request it
      // ran with; one that never ran, as substituted.
      const ranAsValidated = done !== undefined && index >= resumedSteps && !bound.has(index) && checked.requests[index] !== undefined;
      const args = ranAsValidated ? command.args : verb.substitute(command.args, finalBindings);
      const request = ranAsValidated ? checked.requests[index] : bound.has(index) ? bound.get(index) : args.some((a, i) => a !== command.args[i]) ? undefined : checked.requests[index];
      // Redacted with the whole report below, once.
      const description = verb.describe(args, request);
      // The steps that ran and those that did not are written out, not spread from a shared base: V8
      // builds `{ ...base, eight more fields }` on a slow path, ~15 µs a step, most of a long plan's report.
      if (done) {
        return {
          index,
          reason: command.reason,
          request: description,
          status: 'succeeded' as const,
          http_status: done.result.status,
          attempts: done.result.attempts,
          deduplicated: done.result.deduplicated || undefined,
          alternative: done.result.alternative,
          produced: Object.keys(done.produced).length ? done.produced : undefined,
          duration_ms: Math.round(done.durationMs),
        };
      }
      if (index === completed.length && status !== 'succeeded') {
        const changed = (error as { details?: { changed?: boolean; created?: string } })?.details;
        const unknown = changed?.changed !== true && sent.outcomeUnknown(index, error);
        return {
          index,
          reason: command.reason,
          request: description,
          status: 'failed' as const,
          http_status: (error as { status?: number })?.status,
          error: errorSummary(error),
          ...(changed?.changed === true ? { changed: true, created: changed.created } : unknown ? { changed: 'unknown' as const, sent: unknown } : {}),
        };
      }
      return { index, reason: command.reason, request: description, status: 'not_run' as const };
    });

    return redactValue({
      status,
      steps,
      bindings: finalBindings,
      error: status === 'succeeded' ? undefined : { ...errorSummary(error), step: completed.length },
    });
  };
  return {
    status,
    get report() {
      return (report ??= makeReport());
    },
    results,
    error: status === 'succeeded' ? undefined : error,
    ...(revealed.length ? { revealed } : {}),
  };
}

/**
 * Which change a run handed to its provider: a step that fails after its request may have left (a
 * timeout, Ctrl-C, a dropped connection) has an unknown outcome, and the report must say so rather than
 * "nothing changed" (issue 22 §6). A server's 4xx answer is an outcome: that change was not made.
 */
class SentSteps {
  private readonly steps = new Map<number, string>();

  dispatched(index: number, what: string): void {
    this.steps.set(index, what);
  }

  /** What was sent for the failed step `index`, when its outcome is unknown. */
  outcomeUnknown(index: number, error: unknown): string | undefined {
    const what = this.steps.get(index);
    const status = (error as { status?: unknown })?.status;
    if (!what || (typeof status === 'number' && status >= 400 && status < 500)) return undefined;
    // Our own refusals (exit 3) and input errors (exit 2) are raised before the step acts: nothing left.
    const exitCode = (error as { exitCode?: unknown })?.exitCode;
    if (exitCode === ExitCode.refused || exitCode === ExitCode.invalidInput) return undefined;
    return what;
  }
}

/**
 * The `step` effect: substitute bindings, re-check the gate on substituted values, adopt or guard a
 * create (journal), send through the verb, evaluate `produces`. A polling verb's `pending` answer goes
 * back to the machine, which waits before asking again.
 */
function stepEffect(checked: CheckedPlan, opts: RunOptions, sent: SentSteps, bound: Map<number, CanonicalRequest | undefined>): (input: StepInput) => Promise<StepOutput> {
  const { plan, classes, requests, destroyer } = checked;
  const total = plan.commands.length;
  const observe = opts.observer;
  return async ({ index, bindings, pollingSince }) => {
    const command = plan.commands[index]!;
    const { provider, verb } = opts.providers.verb(command.args[0]!)!;
    const args = verb.substitute(command.args, bindings);
    // Validation made the step's canonical request and class from the plan as written; only a
    // substituted value can change them, and then they are made again from the substituted step.
    const changed = args.some((a, i) => a !== command.args[i]);
    const canon = changed ? verb.canonical?.(args) : undefined;
    const request = changed ? (canon?.ok ? canon.request : undefined) : requests[index];
    if (changed) bound.set(index, request);
    const cls = changed ? verb.classify(args, request) : classes[index]!;
    if (changed && cls.refused?.length) throw new SafetyRefusal(`step ${index} may never run from a plan after substituting bindings (${cls.refused.join('; ')}); it was not sent`);
    if (changed && !destroyer && cls.effect === 'destroy') {
      throw new SafetyRefusal(`step ${index} became destructive after substituting bindings (${cls.reasons.join('; ')}); it was not sent`, {
        hint: 'review the plan; if the destruction is intended, run again with --destroyer',
      });
    }
    if (changed) refuseChangedMeaning(index, classes[index]!, cls, requests[index], canon);
    const started = performance.now();
    let pre: CreateStepPlan | undefined;
    if (pollingSince === undefined) {
      observe?.({ type: 'step-started', index, total, description: verb.describe(args, request), reason: command.reason });
      // A read's answer comes back at once (no promise to wait for: a microtask per step of a long plan).
      const before = opts.creates?.before(index, args, cls);
      pre = before instanceof Promise ? await before : before;
    }
    let result = pre?.adopted;
    if (!result) {
      const ctx: StepContext = {
        client: () => opts.context.client(provider.name),
        signal: opts.context.signal,
        waiting: (wait) => observe?.({ type: 'waiting', index, wait }),
        existingIds: pre?.existingIds,
        pollingSince,
        alternatives: command.alternatives,
        request,
      };
      if (cls.effect !== 'read' && pollingSince === undefined) sent.dispatched(index, `${cls.effect}${cls.kind ? ` of ${cls.kind}` : ''}${cls.name ? ` "${cls.name}"` : ''}`);
      result = await verb.run(args, ctx);
      if (result.pending) return { kind: 'pending', afterMs: result.pending.afterMs, pollingSince: pollingSince ?? Date.now() };
      const sentDone = opts.creates?.sent(index, result);
      if (sentDone) await sentDone;
    }
    let produced: Record<string, string>;
    try {
      // Most steps produce nothing: no promise to wait for then.
      produced = command.produces ? await evaluateProduces(command.produces, result.data) : {};
    } catch (err) {
      throw changedThenFailed(err, cls, provider.names?.createdId(cls.kind ?? '', result.data), result);
    }
    return { kind: 'done', step: { index, result, produced, durationMs: performance.now() - started } };
  };
}

/**
 * What was checked before the run (the gate, the price, the names) was the step as validated: a bound
 * value may fill in an ID or a name, never make the step another kind of change. A step whose request
 * has no canonical form once bound, whose method or route differs from the validated one, or whose
 * effect or kind differs, is refused before it is sent.
 */
function refuseChangedMeaning(index: number, validated: StepClass, now: StepClass, validatedRequest: CanonicalRequest | undefined, canon: CanonicalForm | undefined): void {
  const refuse = (what: string) =>
    new SafetyRefusal(`step ${index}, once its bindings are substituted, ${what}; it was not sent`, {
      hint: 'a binding may fill in an ID or a name, not change what a step does: write the step as it is meant to run',
    });
  if (canon && !canon.ok) throw refuse(`has no single reading (${canon.problem})`);
  const request = canon?.ok ? canon.request : undefined;
  // A read stays a read whatever its path becomes (its method cannot be bound): only changes are held to their route.
  if (validatedRequest && request && validatedRequest.method !== 'GET' && (request.method !== validatedRequest.method || request.route !== validatedRequest.route)) {
    throw refuse(`became ${request.method} ${request.route}, not the ${validatedRequest.method} ${validatedRequest.route} it was checked and priced as`);
  }
  if (validated.effect !== 'destroy' && (now.effect !== validated.effect || now.kind !== validated.kind)) {
    throw refuse(`became a ${now.effect}${now.kind ? ` of ${now.kind}` : ''}, not the ${validated.effect}${validated.kind ? ` of ${validated.kind}` : ''} it was checked and priced as`);
  }
}

/**
 * A step whose request succeeded but whose `produces` failed did change something (a create made its
 * resource): the error says so and carries the ID, so the report never claims nothing was changed.
 */
function changedThenFailed(err: unknown, cls: StepClass, id: string | undefined, result: StepResult): unknown {
  if (cls.effect === 'read' || !(err instanceof AssistantError)) return err;
  const what = id ? `created ${id}` : 'changed something';
  return new OperationError(err.code, `${err.message}; the request itself succeeded (HTTP ${result.status ?? '-'}) and ${what}`, {
    hint: `${id ? `${id} exists now; ` : ''}--resume adopts it instead of sending the step again (--fresh would create it again); fix the JSONPath in a new plan if it is wrong`,
    details: { changed: true, created: id },
    cause: err,
  });
}


function errorSummary(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof AssistantError) return { code: error.code, message: redactText(error.message), hint: error.hint };
  return { code: 'internal', message: redactText(error instanceof Error ? error.message : String(error)) };
}

export type { PlanBackend, RunContext };
