/**
 * Never paying twice for a name (issue 9 §1): a create whose name already exists is refused before
 * anything is sent, whatever made the existing resource (an earlier plan, an edited plan, the console,
 * another machine); the live cloud is the truth, not the local journal. The same listing, taken once
 * per kind per run (NameSnapshots), is the "before" snapshot of exactly-once. Which steps create what
 * comes from each step's classification; how names are listed comes from its provider (provider.names).
 */
import { dirname, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Plan } from '../../../schemas/plan.js';
import { abortReason } from '../deadline.js';
import { isAbortError, SafetyRefusal } from '../errors.js';
import type { NamedRecord, Provider, ProviderSet, StepClass, StepResult } from '../provider.js';
import { namedCreate, type NamedCreate } from './validate.js';
import { placeholdersIn } from './bindings.js';
import { RunJournal, type InFlightStep, type JournalState } from './journal.js';
import { foldName, type Reservation } from './reservations.js';

/**
 * How long after a create was sent it may still appear in listings: a run killed with its create on the
 * wire leaves the server working on it. The same patience the gpucloud client has for a create that got
 * no answer (its createLookupMs). A resume looks again every IN_FLIGHT_LOOK_MS within it.
 */
export const IN_FLIGHT_SETTLE_MS = 30_000;
const IN_FLIGHT_LOOK_MS = 1_000;

/** A planned create whose name is already taken. */
export interface NameConflict {
  /** Command index. */
  index: number;
  kind: string;
  name: string;
  existing_ids: string[];
}

// Which step creates a named resource lives with validation (which asks it of every plan, reads included).
export { namedCreate, type NamedCreate } from './validate.js';

/** Creates whose name is known before the run (no placeholder in it), except the steps in `skip`. */
export function staticCreates(plan: Plan, classes: readonly StepClass[], providers: ProviderSet, skip: ReadonlySet<number> = new Set()): NamedCreate[] {
  const out: NamedCreate[] = [];
  plan.commands.forEach((command, index) => {
    if (skip.has(index)) return;
    const create = namedCreate(providers, index, command.args, classes[index]);
    if (create && placeholdersIn(create.name).length === 0) out.push(create);
  });
  return out;
}

export type Lister = (provider: Provider<any>, kind: string, scope?: readonly string[]) => Promise<NamedRecord[]>;

/** One listing per provider, kind and scope. */
const listingKey = (create: NamedCreate) => [create.provider.name, create.kind, ...(create.scope ?? [])].join('\u0000');

/**
 * One listing per provider and kind per run (issue 9 §4): the duplicate-name pre-flight and
 * exactly-once both read it, and it is kept current as creates return IDs, so a plan of N creates
 * lists each kind once instead of once (or twice) per create.
 */
export class NameSnapshots {
  private readonly lists = new Map<string, Promise<Listing>>();

  constructor(private readonly list: Lister) {}

  /** IDs of the records carrying the create's name, compared case-blind (listing the kind on first use). */
  async idsNamed(create: NamedCreate): Promise<string[]> {
    return [...((await this.listing(create)).byName.get(foldName(create.name)) ?? [])];
  }

  /** Records a create this run made, so later checks and snapshots see it. */
  async add(create: NamedCreate, id: string): Promise<void> {
    (await this.listing(create)).add(id, create.name);
  }

  /** Forgets a kind's listing, so the next check lists it afresh (after reserving a name another process may just have created). */
  forget(create: NamedCreate): void {
    this.lists.delete(listingKey(create));
  }

  private listing(create: NamedCreate): Promise<Listing> {
    const key = listingKey(create);
    let p = this.lists.get(key);
    if (!p) {
      p = this.list(create.provider, create.kind, create.scope).then((records) => new Listing(records));
      // A failed listing is not cached: the next check tries again.
      p.catch(() => this.lists.delete(key));
      this.lists.set(key, p);
    }
    return p;
  }
}

/**
 * One kind's listing, indexed by case-folded name once (issue 40): a create's check asked every record
 * for its folded name (an NFKC pass each), so a plan's checks cost creates × records, and the records
 * grow with every create the run makes. The IDs of a name keep the listing's order, then the run's.
 */
class Listing {
  readonly byName = new Map<string, string[]>();
  private readonly seen = new Set<string>();

  constructor(records: readonly NamedRecord[]) {
    for (const r of records) this.add(r.id, r.name, true);
  }

  /** `listed`: a record of the listing itself, kept however often its ID and name recur (as the list had them). */
  add(id: string, name: string, listed = false): void {
    const key = `${id}\u0000${name}`;
    if (!listed && this.seen.has(key)) return;
    this.seen.add(key);
    const folded = foldName(name);
    const ids = this.byName.get(folded);
    if (ids) ids.push(id);
    else this.byName.set(folded, [id]);
  }
}

/** Lists each kind once and returns the planned creates whose names already exist. */
export async function findNameConflicts(
  plan: Plan,
  classes: readonly StepClass[],
  providers: ProviderSet,
  snapshots: NameSnapshots,
  skip?: ReadonlySet<number>,
): Promise<NameConflict[]> {
  const conflicts: NameConflict[] = [];
  for (const create of staticCreates(plan, classes, providers, skip)) {
    const ids = await snapshots.idsNamed(create);
    if (ids.length) conflicts.push({ index: create.index, kind: create.kind, name: create.name, existing_ids: ids });
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

/** The listing function of a run: each provider's lookup through its client, under the run's signal. */
export function listerFor(client: (provider: string) => Promise<unknown>, signal: AbortSignal): Lister {
  return async (provider, kind, scope) => provider.names!.list(kind, await client(provider.name), signal, scope);
}

export interface CreateStepPlan {
  /** The resource an earlier attempt (a killed or failed run) made: adopted instead of sending. */
  adopted?: StepResult;
  /** The IDs that carried the create's name before it was sent: the verb needs no listing of its own. */
  existingIds?: string[];
}

/**
 * The per-step side of a journaled run: before each step, journal its start (with the name snapshot for
 * a create), adopt what an interrupted attempt created, and refuse a create whose name exists by then
 * (names bound at run time are only known here). After a create returns, record it in the journal and
 * in the run's snapshot.
 */
export class RunCreates {
  private readonly sending = new Map<number, NamedCreate>();

  constructor(
    private readonly providers: ProviderSet,
    private readonly snapshots: NameSnapshots,
    private readonly opts: {
      journal?: RunJournal;
      resume?: JournalState;
      allowDuplicateNames: boolean;
      /** Lists a kind afresh (not from the run's snapshot): what exists now. */
      listNow: Lister;
      /** Throws when the run lost its journal lock (checked before every step). */
      assertLocked?: () => void;
      /**
       * Reserves a create's name across processes (engine/core/plan/reservations.ts) before it is sent;
       * answers true when the name was reserved only now (it was not known before the run), so its
       * existence must be checked afresh rather than from the run's snapshot.
       */
      reserve?: (create: NamedCreate) => Promise<boolean>;
      /** How long after an interrupted create was sent it may still appear (default IN_FLIGHT_SETTLE_MS). */
      settleMs?: number;
      /** Told once when a resume waits for an interrupted create to appear. */
      onWait?: (message: string, waitMs: number) => void;
      /** The run's cancel: ends that wait. */
      signal?: AbortSignal;
    },
  ) {}

  /** The ID each create step of this run made or adopted, by step (the run's history names them). */
  readonly createdIds = new Map<number, string>();

  /**
   * Before a step is sent. A step that creates no named resource (every read) is decided here and now,
   * without a promise: a plan of 1,000 reads otherwise paid a promise and a microtask per step for nothing.
   */
  before(index: number, args: readonly string[], cls: StepClass): CreateStepPlan | undefined | Promise<CreateStepPlan | undefined> {
    this.opts.assertLocked?.();
    const create = namedCreate(this.providers, index, args, cls);
    if (!create) {
      // A read in flight is simply read again on resume: only changes are recorded before they are sent.
      if (cls.effect !== 'read') this.opts.journal?.started(index);
      return undefined;
    }
    return this.beforeCreate(index, create);
  }

  private async beforeCreate(index: number, create: NamedCreate): Promise<CreateStepPlan | undefined> {
    const { journal, resume } = this.opts;
    const inFlight = resume?.inFlight?.index === index ? resume.inFlight : undefined;
    if (inFlight) {
      if (inFlight.created !== undefined) {
        const id = create.provider.names!.createdId(create.kind, inFlight.created);
        if (id) this.createdIds.set(index, id);
        return { adopted: { status: 200, data: inFlight.created, deduplicated: true } };
      }
      const found = inFlight.snapshot ? await this.madeByUsOnceSettled(create, inFlight) : undefined;
      if (found) {
        await this.snapshots.add(create, found.id);
        this.createdIds.set(index, found.id);
        return { adopted: { status: 200, data: create.provider.names!.responseFor(create.kind, found), deduplicated: true } };
      }
    }
    if (await this.opts.reserve?.(create)) this.snapshots.forget(create);
    const existing = await this.snapshots.idsNamed(create);
    if (existing.length && !this.opts.allowDuplicateNames) {
      throw nameConflictRefusal([{ index, kind: create.kind, name: create.name, existing_ids: existing }]);
    }
    journal?.started(index, existing);
    this.sending.set(index, create);
    return { existingIds: existing };
  }

  /** A step's response arrived (not adopted). Nothing to wait for unless the step was a named create. */
  sent(index: number, result: StepResult): Promise<void> | undefined {
    const create = this.sending.get(index);
    if (!create) return undefined;
    this.sending.delete(index);
    this.opts.journal?.created(index, result.data);
    const id = create.provider.names!.createdId(create.kind, result.data);
    // Its reservation is kept until the run ends (machines/apply/index.ts releases all of a run's names at
    // once): released here, every create would cost the file system a call or two of its own.
    if (!id) return undefined;
    this.createdIds.set(index, id);
    return this.snapshots.add(create, id);
  }

  /**
   * The create an interrupted run had in flight, once the server has had time to make it. A run killed
   * while its create was on the wire leaves a request the server may still be working on: it appears in
   * listings only when the server is done (the emulator's slow create; a cloud queueing it). Until
   * IN_FLIGHT_SETTLE_MS after it was sent, a listing without it proves nothing, so it is looked for again
   * (the same patience the client has for a create that got no answer); after that, or when the run saw
   * the step end with an answer that made nothing (`settled`), one look decides.
   */
  private async madeByUsOnceSettled(create: NamedCreate, inFlight: InFlightStep): Promise<NamedRecord | undefined> {
    const sentAt = Date.parse(inFlight.startedAt ?? '');
    const deadline = inFlight.settled || Number.isNaN(sentAt) ? 0 : sentAt + (this.opts.settleMs ?? IN_FLIGHT_SETTLE_MS);
    let told = false;
    for (;;) {
      const found = await this.madeByUs(create, inFlight.snapshot ?? []);
      const left = deadline - Date.now();
      if (found || left <= 0) return found;
      if (!told) {
        told = true;
        this.opts.onWait?.(`the interrupted run's create of "${create.name}" is not listed yet; looking for it up to ${Math.ceil(left / 1000)} s more before sending it again`, left);
      }
      await delay(Math.min(IN_FLIGHT_LOOK_MS, left), undefined, { signal: this.opts.signal });
    }
  }

  /** The newest record with the create's name that was not there before it was sent. */
  private async madeByUs(create: NamedCreate, before: readonly string[]): Promise<NamedRecord | undefined> {
    const known = new Set(before);
    const name = foldName(create.name);
    const fresh = (await this.opts.listNow(create.provider, create.kind, create.scope)).filter((r) => foldName(r.name) === name && !known.has(r.id));
    return newest(fresh);
  }
}

/**
 * The run asking about a dead run's create: its own journal, the create whose name it took over, and
 * what each of its steps creates (a run of the same plan that died had one of these steps in flight).
 */
export interface OwnRun {
  journal: string;
  create: NamedCreate;
  /** How many steps the plan has (an index outside them, a damaged journal, is waited for as before). */
  steps: number;
  createAt(index: number): NamedCreate | undefined;
}

/** Two creates of the same resource: the same provider, kind, scope and name (case-blind, as reservations compare). */
function sameNamedCreate(a: NamedCreate, b: NamedCreate): boolean {
  return a.provider.name === b.provider.name && a.kind === b.kind && (a.scope ?? []).join('\u0000') === (b.scope ?? []).join('\u0000') && foldName(a.name) === foldName(b.name);
}

/**
 * Until when a create of a name whose reservation was taken over from a dead run (another plan's,
 * killed with -9) may still appear: the create that run had in flight, sent at its journal's `started`,
 * may be made until IN_FLIGHT_SETTLE_MS after — the window a `--resume` of that run waits too. Undefined
 * when the reservation was free, or the dead run's journal shows nothing in flight (it died before
 * sending, or its create's outcome is known: made ones are listed, the rest made nothing). A holder
 * whose journal cannot be read from this home's runs (an older version, another path) may have sent
 * it just now: the whole window from now.
 */
export function deadRunsCreateUntil(reservation: Reservation, home: string, own?: OwnRun): number | undefined {
  const dead = reservation.tookOverFrom;
  if (!dead) return undefined;
  const journal = dead.journal && resolve(dead.journal);
  if (!journal || !RunJournal.runsDirs(home).includes(dirname(journal))) return Date.now() + IN_FLIGHT_SETTLE_MS;
  let inFlight: InFlightStep | undefined;
  try {
    inFlight = RunJournal.inFlightAt(journal);
  } catch {
    return Date.now() + IN_FLIGHT_SETTLE_MS;
  }
  if (!inFlight || inFlight.settled || inFlight.created !== undefined) return undefined;
  // The dead run was a run of this very plan (its journal is ours): its step in flight is one of ours,
  // so what that step creates is known. A create of another name (or no named create at all) cannot make
  // this one: nothing to wait for. A name known only at run time (a placeholder) may be this one: wait.
  if (own && journal === resolve(own.journal) && Number.isInteger(inFlight.index) && inFlight.index >= 0 && inFlight.index < own.steps) {
    const step = own.createAt(inFlight.index);
    if (!step) return undefined;
    if (placeholdersIn(step.name).length === 0 && !sameNamedCreate(step, own.create)) return undefined;
  }
  const sentAt = Date.parse(inFlight.startedAt ?? '');
  return Number.isNaN(sentAt) ? Date.now() + IN_FLIGHT_SETTLE_MS : sentAt + IN_FLIGHT_SETTLE_MS;
}

/**
 * Looks for `create`'s name until `until` (a dead run's create of it may still be made), every
 * IN_FLIGHT_LOOK_MS; returns once it is listed (the caller's name check then refuses it) or the window
 * passed without it (nothing will appear: the name is free).
 */
export async function awaitDeadRunsCreate(
  create: NamedCreate,
  until: number,
  opts: { listNow: Lister; signal?: AbortSignal; onWait?: (message: string, waitMs: number) => void },
): Promise<void> {
  const name = foldName(create.name);
  let told = false;
  try {
    for (;;) {
      const listed = (await opts.listNow(create.provider, create.kind, create.scope)).some((r) => foldName(r.name) === name);
      const left = until - Date.now();
      if (listed || left <= 0) return;
      if (!told) {
        told = true;
        opts.onWait?.(`a run that died (kill -9) may have had a create of ${create.kind} "${create.name}" in flight; looking for it up to ${Math.ceil(left / 1000)} s before creating it here`, left);
      }
      await delay(Math.min(IN_FLIGHT_LOOK_MS, left), undefined, { signal: opts.signal });
    }
  } catch (err) {
    // The command's deadline or Ctrl-C ended the wait: its own error (timeout exit 1, interrupt 130).
    if (opts.signal?.aborted && isAbortError(err)) throw abortReason(opts.signal, { while: `looking for a dead run's create of "${create.name}"`, cause: err });
    throw err;
  }
}

/** The most recently created record (by createdAt when present, else the last listed). */
export function newest(records: readonly NamedRecord[]): NamedRecord | undefined {
  let best = records[records.length - 1];
  for (const r of records) {
    const a = Date.parse(r.createdAt ?? '');
    const b = Date.parse(best?.createdAt ?? '');
    if (!Number.isNaN(a) && (Number.isNaN(b) || a > b)) best = r;
  }
  return best;
}
