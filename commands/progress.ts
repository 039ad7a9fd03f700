import type { ClientEvent } from '../engine/gpucloud/types.js';
import type { CompletedStep } from '../machines/run-plan.js';
import type { Io } from './context.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

export interface PhaseSpinner {
  /** Shows what is being waited for now (a function is re-read at every repaint, e.g. for elapsed time). */
  phase(text: string | (() => string)): void;
  /** Clears the line, before the answer, an error or a final line is printed. */
  stop(): void;
}

/**
 * One live status line for a wait (`ask` before its first token, a running plan step). Only on a
 * terminal; elsewhere there is none (undefined) and callers print plain lines where they matter.
 */
export function createPhaseSpinner(io: Io): PhaseSpinner | undefined {
  if (!io.stderrIsTTY) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let text: () => string = () => '';
  let frame = 0;
  const paint = () => io.stderr.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${text()}`);
  return {
    phase(next) {
      text = typeof next === 'function' ? next : () => next;
      paint();
      if (!timer) {
        timer = setInterval(paint, 100);
        timer.unref();
      }
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      io.stderr.write(CLEAR_LINE);
    },
  };
}

export interface StepProgress {
  start(index: number, description: string, reason: string): void;
  done(step: CompletedStep): void;
  /** Ends a running spinner line (on failure or interrupt). */
  stop(): void;
}

/**
 * Progress of a plan run on stderr. On a terminal the running step shows a spinner and its elapsed
 * time, rewritten in place and finished with a mark; elsewhere (pipes, CI) one plain line per event.
 */
export function createStepProgress(io: Io, total: number): StepProgress {
  const spinner = createPhaseSpinner(io);
  let current = '';
  let running = false;

  return {
    start(index, description, reason) {
      current = `[${index + 1}/${total}] ${description} — ${reason}`;
      const startedAt = performance.now();
      if (!spinner) return void io.stderr.write(`${current}\n`);
      running = true;
      spinner.phase(() => `${current}  ${((performance.now() - startedAt) / 1000).toFixed(1)}s`);
    },
    done(step) {
      const produced = Object.entries(step.produced).map(([k, v]) => ` ${k}=${v}`).join('');
      const dedupe = step.result.deduplicated ? ' (found the resource an earlier attempt created; not sent again)' : '';
      const detail = `HTTP ${step.result.status ?? '-'} in ${Math.round(step.durationMs)} ms${produced}${dedupe}`;
      if (!spinner) return void io.stderr.write(`      done: ${detail}\n`);
      spinner.stop();
      running = false;
      io.stderr.write(`✓ ${current}  ${detail}\n`);
    },
    stop() {
      if (!spinner || !running) return;
      spinner.stop();
      running = false;
      io.stderr.write(`✗ ${current}\n`);
    },
  };
}

/** Waits shorter than this go unmentioned (a 250 ms retry is not worth a line). */
const NOTICE_MIN_WAIT_MS = 1000;
/** At most one line per kind of wait this often (a queue of 50 creates is one line, not 50). */
const NOTICE_EVERY_MS = 10_000;

const seconds = (ms: number) => `${Math.max(1, Math.ceil(ms / 1000))} s`;

/** The stderr line for a client event that means waiting, or undefined. */
export function waitLine(event: ClientEvent): string | undefined {
  switch (event.type) {
    case 'rate-limit-wait':
      return `waiting ${seconds(event.waitMs)} for the rate limit of ${event.method} ${event.path.split('?')[0]}`;
    case 'retry':
      return event.reason === 'rate_limit_exceeded'
        ? `waiting ${seconds(event.waitMs)} (Retry-After) for the rate limit of ${event.method} ${event.path.split('?')[0]}`
        : `waiting ${seconds(event.waitMs)} to retry ${event.method} ${event.path.split('?')[0]} (${event.reason})`;
    case 'create-lookup':
      return `the create of "${event.name}" got no answer; looking for it again in ${seconds(event.waitMs)} (${event.method} ${event.path.split('?')[0]})`;
    default:
      return undefined;
  }
}

export interface WaitNotices {
  /** A client event (only waits of a second or more are printed). */
  event(event: ClientEvent): void;
  /** A step's own wait (a gpucloud-wait poll). */
  notice(message: string): void;
}

/**
 * Says on stderr what the client is waiting for (rate-limit windows, Retry-After, retries, polls), so a
 * long pause is never silent; throttled per kind of wait. On a terminal the live spinner line is
 * cleared first and repaints itself below.
 */
export function createWaitNotices(io: Io, now: () => number = () => performance.now()): WaitNotices {
  const lastAt = new Map<string, number>();
  const print = (key: string, line: string) => {
    const t = now();
    const last = lastAt.get(key);
    if (last !== undefined && t - last < NOTICE_EVERY_MS) return;
    lastAt.set(key, t);
    io.stderr.write(`${io.stderrIsTTY ? CLEAR_LINE : ''}${line}\n`);
  };
  return {
    event(event) {
      if (!('waitMs' in event) || event.waitMs < NOTICE_MIN_WAIT_MS) return;
      const line = waitLine(event);
      if (line) print(`${event.type}:${event.method}:${event.path}`, line);
    },
    notice(message) {
      print(`notice:${message.split(' (')[0]}`, message);
    },
  };
}
