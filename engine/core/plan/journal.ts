import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../../../schemas/plan.js';
import { openPrivateAppend, writePrivateFile } from '../private-file.js';
import { redactValue } from '../redact.js';

/**
 * The run journal (~/.assistant/runs/<plan hash>.jsonl): one line when a step starts and one when it
 * completes, appended synchronously so that a process killed at any point leaves an exact record.
 * A create that was started but not recorded as done may have reached the server; on resume it is
 * looked up (with the name snapshot recorded when it started) instead of being sent again, and a create
 * whose response arrived (`created`) is adopted outright even if the step then failed (its `produces`).
 */
type Entry =
  | { type: 'begin'; plan_hash: string; steps: number; at: string }
  | { type: 'started'; index: number; snapshot?: string[]; at: string }
  | { type: 'created'; index: number; data: unknown; at: string }
  | { type: 'done'; index: number; produced: Record<string, string>; http_status?: number; alternative?: unknown; at: string }
  | { type: 'finished'; at: string };

export interface InFlightStep {
  index: number;
  /** IDs that carried the create's name before it was sent (not ours). */
  snapshot?: string[];
  /** The create's response, when it arrived before the step failed or the process died. */
  created?: unknown;
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

export class RunJournal {
  readonly path: string;
  private fd: number | undefined;

  constructor(
    runsDir: string,
    readonly hash: string,
    private readonly steps: number,
  ) {
    this.path = join(runsDir, `${hash.slice(0, 32)}.jsonl`);
  }

  static forPlan(home: string, plan: Plan): RunJournal {
    return new RunJournal(join(home, '.assistant', 'runs'), planHash(plan), plan.commands.length);
  }

  /** The recorded state of this plan's last run, or undefined when it never ran here. */
  load(): JournalState | undefined {
    if (!existsSync(this.path)) return undefined;
    const state: JournalState = { completed: new Map(), finished: false, steps: this.steps };
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let e: Entry;
      try {
        e = JSON.parse(line) as Entry;
      } catch {
        continue; // a torn last line from a kill mid-write carries nothing we rely on
      }
      if (e.type === 'begin' && e.plan_hash !== this.hash) return undefined;
      if (e.type === 'started') state.inFlight = { index: e.index, snapshot: e.snapshot };
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

  begin(): void {
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    writePrivateFile(this.path, JSON.stringify({ type: 'begin', plan_hash: this.hash, steps: this.steps, at: new Date().toISOString() }) + '\n');
  }

  /**
   * One write per entry on a descriptor kept open for the run: a process killed right after it loses
   * nothing (the kernel has the bytes), and a run of N steps does not open and close the file 3N times.
   */
  private append(entry: Entry): void {
    this.fd ??= openPrivateAppend(this.path);
    writeSync(this.fd, JSON.stringify(redactValue(entry)) + '\n');
  }

  /** Closes the journal's descriptor at the end of a run (the next append would reopen it). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Before a step is sent; for a create, with the IDs its name already had (so a later process can tell ours). */
  started(index: number, snapshot?: string[]): void {
    this.append({ type: 'started', index, snapshot, at: new Date().toISOString() });
  }

  /** A create's response arrived: from here on the resource exists, whatever happens to the step. */
  created(index: number, data: unknown): void {
    this.append({ type: 'created', index, data, at: new Date().toISOString() });
  }

  /** `alternative`: which choice a create with alternatives made (engine/core/provider.ts AlternativeUsed). */
  stepDone(index: number, produced: Record<string, string>, httpStatus?: number, alternative?: unknown): void {
    this.append({ type: 'done', index, produced, http_status: httpStatus, alternative, at: new Date().toISOString() });
  }

  finish(): void {
    this.append({ type: 'finished', at: new Date().toISOString() });
  }
}
