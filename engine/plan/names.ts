/**
 * Never paying twice for a name (issue 9 §1): a create whose name already exists in the project is
 * refused before anything is sent, whatever made the existing resource (an earlier plan, an edited
 * plan, the console, another machine); the live cloud is the truth, not the local journal. The same
 * listing, taken once per kind per run (KindSnapshots), is the "before" snapshot of exactly-once.
 */
import type { Plan } from '../../schemas/plan.js';
import { SafetyRefusal } from '../errors.js';
import { createDedupeFor, KindSnapshots, type CreateDedupe } from '../gpucloud/dedupe.js';
import type { ExecutorContext, StepResult } from '../executors/types.js';
import { placeholdersIn } from './bindings.js';
import type { JournalState, RunJournal } from './journal.js';
import type { PlanProblem } from './validate.js';

/** A planned create whose name is already taken in the project. */
export interface NameConflict {
  /** Command index. */
  index: number;
  kind: string;
  name: string;
  existing_ids: string[];
}

/** The create guard of a step (`gpucloud-api POST <kind path> {name…}`), or undefined. */
export function createGuardFor(args: readonly string[]): CreateDedupe | undefined {
  const [verb, method, path, body] = args;
  return verb === 'gpucloud-api' ? createDedupeFor(method ?? '', path ?? '', body) : undefined;
}

/** Creates whose name is known before the run (no placeholder in it), except the steps in `skip`. */
export function staticCreates(plan: Plan, skip: ReadonlySet<number> = new Set()): { index: number; guard: CreateDedupe }[] {
  const out: { index: number; guard: CreateDedupe }[] = [];
  plan.commands.forEach((command, index) => {
    if (skip.has(index)) return;
    const guard = createGuardFor(command.args);
    if (guard && placeholdersIn(guard.name).length === 0 && placeholdersIn(command.args[2] ?? '').length === 0) out.push({ index, guard });
  });
  return out;
}

/** A plan that creates one name twice is invalid (it would pay for two resources of one name). */
export function duplicateNameProblems(commands: readonly ({ args: string[] } | undefined)[]): PlanProblem[] {
  const seen = new Map<string, number>();
  const problems: PlanProblem[] = [];
  commands.forEach((command, index) => {
    const guard = command && createGuardFor(command.args);
    if (!guard || placeholdersIn(guard.name).length) return;
    const key = `${guard.kind.path}\u0000${guard.name}`;
    const first = seen.get(key);
    if (first === undefined) return void seen.set(key, index);
    problems.push({
      kind: 'schema',
      index,
      field: `args[3].${guard.kind.nameField}`,
      message: `creates ${guard.kind.singular} "${guard.name}" again (command ${first} creates it too); names must be unique within a plan`,
    });
  });
  return problems;
}

/** Lists each kind once and returns the planned creates whose names already exist. */
export async function findNameConflicts(plan: Plan, snapshots: KindSnapshots, skip?: ReadonlySet<number>): Promise<NameConflict[]> {
  const conflicts: NameConflict[] = [];
  for (const { index, guard } of staticCreates(plan, skip)) {
    const ids = await snapshots.idsNamed(guard);
    if (ids.length) conflicts.push({ index, kind: guard.kind.singular, name: guard.name, existing_ids: ids });
  }
  return conflicts;
}

export function describeConflict(c: NameConflict): string {
  return `step ${c.index} creates ${c.kind} "${c.name}", which already exists (${c.existing_ids.join(', ')})`;
}

export function nameConflictRefusal(conflicts: NameConflict[]): SafetyRefusal {
  return new SafetyRefusal(`the plan would create names that already exist in the project; nothing was sent:\n${conflicts.map(describeConflict).join('\n')}`, {
    hint: 'rename the resources in the plan, delete the existing ones, or run again with --allow-duplicate-names to create them anyway',
    details: conflicts,
  });
}

/** The listing function of a run: GETs through the one client, under the run's signal. */
export function listerFor(ctx: ExecutorContext): (path: string) => Promise<unknown> {
  return async (path) => (await (await ctx.gpucloud()).request({ method: 'GET', path, signal: ctx.signal })).data;
}

export interface CreateStepPlan {
  /** The resource an earlier attempt (a killed or failed run) made: adopted instead of sending. */
  adopted?: StepResult;
  /** Passed to the client, which then needs no listing of its own before the POST. */
  createGuard?: CreateDedupe;
}

/**
 * The per-step side of a journaled run: before each step, journal its start (with the name snapshot for
 * a create), adopt what an interrupted attempt created, and refuse a create whose name exists by then
 * (names bound at run time are only known here). After a create returns, record it in the journal and
 * in the run's snapshot.
 */
export class RunCreates {
  private readonly guards = new Map<number, CreateDedupe>();

  constructor(
    private readonly snapshots: KindSnapshots,
    private readonly opts: {
      journal?: RunJournal;
      resume?: JournalState;
      allowDuplicateNames: boolean;
      list: (path: string) => Promise<unknown>;
      /** Throws when the run lost its journal lock (checked before every step). */
      assertLocked?: () => void;
    },
  ) {}

  async before(index: number, args: string[]): Promise<CreateStepPlan | undefined> {
    const { journal, resume } = this.opts;
    this.opts.assertLocked?.();
    const guard = createGuardFor(args);
    if (!guard) {
      journal?.started(index);
      return undefined;
    }
    const inFlight = resume?.inFlight?.index === index ? resume.inFlight : undefined;
    if (inFlight) {
      if (inFlight.created !== undefined) return { adopted: { status: 200, data: inFlight.created, deduplicated: true } };
      if (inFlight.snapshot) guard.restoreSnapshot(inFlight.snapshot);
      const found = guard.needsSnapshot && !guard.hasSnapshot ? undefined : await guard.find(this.opts.list);
      if (found) {
        await this.snapshots.add(guard, found.id);
        return { adopted: { status: 200, data: found.data, deduplicated: true } };
      }
    }
    const existing = await this.snapshots.idsNamed(guard);
    if (existing.length && !this.opts.allowDuplicateNames) {
      throw nameConflictRefusal([{ index, kind: guard.kind.singular, name: guard.name, existing_ids: existing }]);
    }
    if (guard.needsSnapshot) guard.restoreSnapshot(existing);
    journal?.started(index, guard.snapshotIds);
    this.guards.set(index, guard);
    return { createGuard: guard };
  }

  /** A step's response arrived (not adopted). */
  async sent(index: number, result: StepResult): Promise<void> {
    const guard = this.guards.get(index);
    if (!guard) return;
    this.guards.delete(index);
    this.opts.journal?.created(index, result.data);
    const id = createdId(result.data, guard);
    if (id) await this.snapshots.add(guard, id);
  }
}

/** The ID in a create's response: bare text, `{"id": …}`, or the record of a kind identified by name. */
export function createdId(data: unknown, guard?: CreateDedupe): string | undefined {
  if (typeof data === 'string' && data) return data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const o = data as Record<string, unknown>;
    const v = o[guard?.kind.idField ?? 'id'] ?? o.id;
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return undefined;
}
