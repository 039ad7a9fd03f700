import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plan } from '../../../schemas/plan.js';
import { openPrivate, PRIVATE_FILE_MODE } from '../private-file.js';
import { redactValue } from '../redact.js';
import { SANDBOX_SCOPE } from './backend.js';

/**
 * The run journal (~/.assistant/runs/<plan hash>.jsonl): one line when a step that changes something
 * starts, one when a step completes (and one when a create's response arrived), so that a process killed
 * at any point leaves a record that never says less than was sent.
 * A create that was started but not recorded as done may have reached the server; on resume it is
 * looked up (with the name snapshot recorded when it started) instead of being sent again, and a create
 * whose response arrived (`created`) is adopted outright even if the step then failed (its `produces`).
 *
 * What is written when (issue 40: the file work of a step is what shows on a slow file system):
 *   - a change step's `started` is written before its request is sent, with everything still pending
 *     before it; its `done` (with `created`) is written at the latest when the code that follows the
 *     response has run (the next macrotask), and, when the next step starts in that same run of code (a
 *     plan of creates, one after another), together with that step's `started`: one write(2) per change
 *     step. A kill -9 in that moment leaves the step as it leaves one killed between its response and
 *     its `done`: in flight, looked up by name on resume (a create is found and adopted, not sent again);
 *   - a read leaves no `started` (a read in flight is simply sent again), and its `done` waits for the
 *     next write: a plan of reads writes its journal once, at the end. A read whose `done` a kill lost is
 *     read again on resume, which is all a read costs;
 *   - `begin` is the first write of a run (the file is truncated then), not a write of its own.
 * No fsync: the guarantee is against the process dying (kill -9, a crash, Ctrl-C), for which a write
 * that returned is in the kernel and survives; a power cut is beyond it (a named create is still found by
 * the live name check), and a sync per change step would cost ~7 ms each on this machine's disk.
 */

type Entry =
  | { type: 'begin'; plan_hash: string; steps: number; at: string }
  | { type: 'started'; index: number; snapshot?: string[]; at: string }
  | { type: 'created'; index: number; data: unknown; at: string }
  | { type: 'settled'; index: number; at: string }
  | { type: 'done'; index: number; produced: Record<string, string>; http_status?: number; alternative?: unknown; at: string }
  | { type: 'finished'; at: string };

export interface InFlightStep {
  index: number;
  /** IDs that carried the create's name before it was sent (not ours). */
  snapshot?: string[];
  /** The create's response, when it arrived before the step failed or the process died. */
  created?: unknown;
  /** When its request was about to be sent (the `started` entry): a killed run's create may still be made after it. */
  startedAt?: string;
  /** The run saw the step end with a known outcome (an answer that made nothing): nothing it sent can appear later. */
  settled?: boolean;
}

export interface JournalState {
  completed: Map<number, { produced: Record<string, string>; http_status?: number }>;
  /** A step that started and never completed (killed, failed or interrupted). */
  inFlight?: InFlightStep;
  finished: boolean;
  /** When the run finished (the `finished` entry). */
  finishedAt?: string;
  steps: number;
}

export function planHash(plan: Plan): string {
  return createHash('sha256').update(JSON.stringify(plan)).digest('hex');
}

function readJournal(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A journal's entries as a state; `hash`: only a journal of this plan (undefined for another plan's). */
function parseJournal(text: string, steps: number, hash?: string): JournalState | undefined {
  const state: JournalState = { completed: new Map(), finished: false, steps };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let e: Entry;
    try {
      e = JSON.parse(line) as Entry;
    } catch {
      continue; // a torn last line from a kill mid-write carries nothing we rely on
    }
    if (e.type === 'begin' && hash !== undefined && e.plan_hash !== hash) return undefined;
    if (e.type === 'started') state.inFlight = { index: e.index, snapshot: e.snapshot, startedAt: e.at };
    if (e.type === 'settled' && state.inFlight?.index === e.index) state.inFlight.settled = true;
    if (e.type === 'created' && state.inFlight?.index === e.index) state.inFlight.created = e.data;
    if (e.type === 'done') {
      state.completed.set(e.index, { produced: e.produced, http_status: e.http_status });
      if (state.inFlight?.index === e.index) state.inFlight = undefined;
    }
    if (e.type === 'finished') {
      state.finished = true;
      state.finishedAt = e.at;
    }
  }
  return state;
}

/** The fields of an entry that carry what a step received or produced (see RunJournal.add). */
const PAYLOAD = ['produced', 'data', 'alternative', 'snapshot'] as const;

/** The entry with each payload field redacted as a whole (copied only when one is there), nothing else walked. */
function withPayloadRedacted(entry: Entry): Entry {
  let out: Record<string, unknown> | undefined;
  for (const key of PAYLOAD) {
    const value = (entry as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const shown = redactValue(value);
    if (shown !== value) (out ??= { ...entry })[key] = shown;
  }
  return (out as Entry | undefined) ?? entry;
}

/** Pending lines are written once they pass this size, whatever comes next (a long plan of reads). */
const MAX_PENDING = 64 * 1024;

export class RunJournal {
  readonly path: string;
  private fd: number | undefined;
  /** Lines not written yet (the done entries of reads, a create's response, the begin entry). */
  private pending = '';
  /** The next write starts the file afresh (`begin`). */
  private truncate = false;
  /** Steps whose `started` was written: their `done` is written before the next macrotask. */
  private readonly changing = new Set<number>();
  /** The write of a change step's `done`, due before the next macrotask unless the next `started` takes it along. */
  private due: NodeJS.Immediate | undefined;

  constructor(
    runsDir: string,
    readonly hash: string,
    private readonly steps: number,
  ) {
    this.path = join(runsDir, `${hash.slice(0, 32)}.jsonl`);
  }

  /** The journal of a plan's runs in a scope (engine/core/plan/backend.ts: the sandbox's runs are kept apart). */
  static forPlan(home: string, plan: Plan, scope?: string): RunJournal {
    const runs = scope === SANDBOX_SCOPE ? join(home, '.assistant', 'sandbox', 'runs') : join(home, '.assistant', 'runs');
    return new RunJournal(runs, planHash(plan), plan.commands.length);
  }

  /** The recorded state of this plan's last run, or undefined when it never ran here. */
  load(): JournalState | undefined {
    const text = readJournal(this.path);
    return text === undefined ? undefined : parseJournal(text, this.steps, this.hash);
  }

  /** The runs directories of a home (this one's and the sandbox's): the only places a journal is read from. */
  static runsDirs(home: string): string[] {
    return [join(home, '.assistant', 'runs'), join(home, '.assistant', 'sandbox', 'runs')];
  }

  /**
   * The step another run (of any plan) had in flight when it stopped, read from its journal at `path`;
   * undefined when it had none or never wrote one. For a process that took over a dead run's name
   * reservation (machines/apply/index.ts): that run's create may still be made.
   */
  static inFlightAt(path: string): InFlightStep | undefined {
    const text = readJournal(path);
    return text === undefined ? undefined : parseJournal(text, 0)?.inFlight;
  }

  /** A new run: the journal starts afresh with its next write. */
  begin(): void {
    this.pending = '';
    this.truncate = true;
    this.add({ type: 'begin', plan_hash: this.hash, steps: this.steps, at: new Date().toISOString() });
  }

  /**
   * Only what came from outside is redacted: a step's produced values, a create's response, a choice
   * it made, a name snapshot. The entry's own fields (its type, step index, HTTP status, time) are
   * ours, and walking them for secrets was most of the encoding of a read's `done` in a long plan.
   */
  private add(entry: Entry): void {
    this.pending += JSON.stringify(withPayloadRedacted(entry)) + '\n';
  }

  /**
   * Writes what is pending, in one write on a descriptor kept open for the run: a process killed right
   * after it loses nothing (the kernel has the bytes), and a run of N steps does not open the file N times.
   */
  private flush(): void {
    if (this.due) {
      clearImmediate(this.due);
      this.due = undefined;
    }
    if (!this.pending) return;
    if (this.fd === undefined || this.truncate) {
      if (this.fd !== undefined) closeSync(this.fd);
      const flags = this.truncate ? 'w' : 'a';
      try {
        this.fd = this.open(flags);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        this.fd = this.open(flags);
      }
      this.truncate = false;
    }
    writeSync(this.fd, this.pending);
    this.pending = '';
  }

  /**
   * The journal's descriptor, 0600 whatever was there (a journal keeps what a step sent). A run's new
   * journal is made by this open (O_EXCL) with 0600, which a umask can only narrow: no `fchmod`, a file
   * call less per run. A file that existed (or a link in its place: O_EXCL refuses both) is opened as
   * before and brought to 0600 in case its mode was looser.
   */
  private open(flags: 'w' | 'a'): number {
    if (flags === 'w') {
      try {
        return openSync(this.path, 'wx', PRIVATE_FILE_MODE);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return openPrivate(this.path, flags);
  }

  /**
   * The due write of a change's `done`, on its own. A failure (disk full) leaves the lines pending: the
   * next write (the next step's `started`, before its request) tries again and fails that step.
   */
  private flushDue(): void {
    this.due = undefined;
    try {
      this.flush();
    } catch {
      // reported by the next write, which carries these lines too
    }
  }

  /** Writes what is pending and closes the journal's descriptor at the end of a run (the next write would reopen it). */
  close(): void {
    this.flush();
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Before a step that changes something is sent (reads are not recorded as started); for a create,
   * with the IDs its name already had (so a later process can tell ours). Written before it returns.
   */
  started(index: number, snapshot?: string[]): void {
    this.changing.add(index);
    this.add({ type: 'started', index, snapshot, at: new Date().toISOString() });
    this.flush();
  }

  /** A create's response arrived: from here on the resource exists, whatever happens to the step (written with its `done`, or when the run ends). */
  created(index: number, data: unknown): void {
    this.add({ type: 'created', index, data, at: new Date().toISOString() });
  }

  /** `alternative`: which choice a create with alternatives made (engine/core/provider.ts AlternativeUsed). */
  stepDone(index: number, produced: Record<string, string>, httpStatus?: number, alternative?: unknown): void {
    this.add({ type: 'done', index, produced, http_status: httpStatus, alternative, at: new Date().toISOString() });
    // A change's completion is written before anything else can happen (resume must not send it again):
    // by the next step's `started` when that follows at once, else on its own before the next macrotask
    // (a timer, an answer, a wait). A read's waits for the next write.
    if (this.changing.delete(index)) this.due ??= setImmediate(() => this.flushDue());
    else if (this.pending.length > MAX_PENDING) this.flush();
  }

  /**
   * A change step failed and this run saw how (a 4xx answer, a refusal before sending): what it sent
   * made nothing, so a resume need not wait for it to appear. A step that failed without an answer
   * (timeout, reset, 5xx) or whose run was killed or interrupted gets no such entry.
   */
  settled(index: number): void {
    if (!this.changing.delete(index)) return;
    this.add({ type: 'settled', index, at: new Date().toISOString() });
    this.flush();
  }

  finish(): void {
    this.add({ type: 'finished', at: new Date().toISOString() });
    this.flush();
  }
}
