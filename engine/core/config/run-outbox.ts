/**
 * Reporting runs to the team's backend without ever holding up or failing an apply (issue 41). Each
 * run is first written to a private queue, `~/.assistant/run-outbox/<run id>.json` (0600 in a 0700
 * directory), then the queue is sent within a short time budget. A run the backend did not take (it
 * is down, slow, or refused the key) stays queued and goes with the next report or `runs list`.
 *
 * Exactly once: the run id is the idempotency key. The server stores a (tenant, id) once and answers a
 * repeat with `created: false`; the file is removed only after the server answered, so a kill -9
 * anywhere between leaves at worst a file that is sent again and not stored again. Two processes
 * flushing one queue may both send a file: the same rule holds.
 *
 * A queued run belongs to the backend URL and env it was made for: it is never sent to another
 * backend (a laptop moved to another team's backend does not hand it the old team's runs).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { EnvSchema, RunRecordSchema, type RunRecord } from '../../../schemas/backend-api.js';
import { AssistantError } from '../errors.js';
import { ensurePrivateDir, writePrivateFile } from '../private-file.js';
import { maskSecretLooking } from '../redact.js';
import { BackendClient, type BackendSettings } from './backend-store.js';

/** Where a command hands the record of a run; never throws, never waits longer than its budget. */

import { REPORT_BUDGET_MS, type RunReporter } from '../plan/backend.js';

export { REPORT_BUDGET_MS, type RunReporter };
/** Queued runs kept at most; the oldest are dropped beyond (with a warning). */
export const MAX_QUEUED_RUNS = 1_000;

/** The backend's answers that mean this run will never be stored, however often it is sent. */
const NEVER_TAKEN = new Set(['invalid_request', 'body_too_large', 'unsupported_media_type', 'invalid_json', 'env_forbidden']);

const QueuedSchema = z.object({ url: z.string(), env: EnvSchema, id: z.string(), record: RunRecordSchema });
type Queued = z.infer<typeof QueuedSchema>;

export function outboxDir(home: string): string {
  return join(home, '.assistant', 'run-outbox');
}

/** A new run id: the idempotency key of one run, made once. */
export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, '')}`;
}

export interface OutboxOptions {
  home: string;
  settings: BackendSettings & { apiKey: string };
  /** Cancels sending (the command's deadline); the queue keeps what was not sent. */
  signal?: AbortSignal;
  warn?: (message: string) => void;
  debug?: (line: string) => void;
  budgetMs?: number;
}

export class RunOutbox implements RunReporter {
  private readonly dir: string;

  constructor(private readonly opts: OutboxOptions) {
    this.dir = outboxDir(opts.home);
  }

  async report(record: RunRecord): Promise<void> {
    try {
      this.enqueue(record);
    } catch (err) {
      this.opts.warn?.(`the run could not be queued for the backend: ${(err as Error).message}`);
      return;
    }
    await this.flush();
  }

  /** Writes the run to the queue, masked; returns its id. */
  enqueue(record: RunRecord, id = newRunId()): string {
    ensurePrivateDir(this.dir);
    const queued: Queued = { url: this.opts.settings.url, env: this.opts.settings.env, id, record: maskSecretLooking(record) };
    writePrivateFile(join(this.dir, `${id}.json`), JSON.stringify(queued));
    this.trim();
    return id;
  }

  /** Sends what is queued for this backend, oldest first, within the time budget; never throws. Returns how many were sent. */
  async flush(): Promise<{ sent: number; left: number }> {
    const budget = AbortSignal.timeout(this.opts.budgetMs ?? REPORT_BUDGET_MS);
    const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, budget]) : budget;
    const client = new BackendClient(this.opts.settings, { signal, timeoutMs: this.opts.budgetMs ?? REPORT_BUDGET_MS, debug: this.opts.debug });
    let sent = 0;
    const files = this.queued();
    let left = files.length;
    for (const file of files) {
      if (signal.aborted) break;
      const path = join(this.dir, file);
      const queued = readQueued(path);
      if (!queued) {
        rmSync(path, { force: true });
        left--;
        continue;
      }
      if (queued.url !== this.opts.settings.url || queued.env !== this.opts.settings.env) continue;
      try {
        await client.putRun(queued.id, queued.record, queued.env);
      } catch (err) {
        // A run the backend will never take (malformed, too large, an env the key may not use) is
        // dropped; anything else (down, slow, key refused, an insecure URL) waits for the next report.
        if (err instanceof AssistantError && NEVER_TAKEN.has(err.code)) {
          this.opts.warn?.(`the backend refused run ${queued.id} of the history, and it was dropped from the queue: ${err.message}`);
          rmSync(path, { force: true });
          left--;
          continue;
        }
        this.opts.debug?.(`run history: ${left} run(s) stay queued in ${this.dir}: ${(err as Error).message}`);
        break;
      }
      rmSync(path, { force: true });
      sent++;
      left--;
    }
    return { sent, left };
  }

  /** Queued files, oldest first. */
  private queued(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      return [];
    }
    const withTime = names.map((n) => {
      try {
        return { n, t: statSync(join(this.dir, n)).mtimeMs };
      } catch {
        return { n, t: 0 };
      }
    });
    return withTime.sort((a, b) => a.t - b.t || a.n.localeCompare(b.n)).map((x) => x.n);
  }

  private trim(): void {
    const files = this.queued();
    const extra = files.length - MAX_QUEUED_RUNS;
    if (extra <= 0) return;
    for (const f of files.slice(0, extra)) rmSync(join(this.dir, f), { force: true });
    this.opts.warn?.(`the run history queue held more than ${MAX_QUEUED_RUNS} runs the backend did not take; the ${extra} oldest were dropped`);
  }
}

function readQueued(path: string): Queued | undefined {
  try {
    return QueuedSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}
