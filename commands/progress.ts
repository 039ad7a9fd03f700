import type { RunEvent, RunObserver, WaitNotice } from '../engine/core/provider.js';
import { redactText } from '../engine/core/redact.js';
import { terminalText } from '../engine/core/render/sanitise.js';
import type { Io } from './context.js';
import type { Output } from './output.js';
import { rawStream } from './terminal.js';

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
 * Its line clearing is an escape sequence of ours, so it writes to the terminal under stderr's guard,
 * the text it shows sanitised and masked here (a step's description carries values from the plan).
 */
export function createPhaseSpinner(io: Io): PhaseSpinner | undefined {
  if (!io.stderrIsTTY) return undefined;
  const terminal = rawStream(io.stderr);
  let timer: NodeJS.Timeout | undefined;
  let text: () => string = () => '';
  let frame = 0;
  const paint = () => terminal.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${terminalText(text(), redactText).replace(/\n/g, ' ')}`);
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
      terminal.write(CLEAR_LINE);
    },
  };
}

export interface StepProgress {
  start(index: number, description: string, reason: string): void;
  done(step: Extract<RunEvent, { type: 'step-done' }>): void;
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
      // Descriptions carry substituted values and `produced` carries outputs: either may be a secret (a join token).
      current = redactText(`[${index + 1}/${total}] ${description} — ${reason}`);
      const startedAt = performance.now();
      if (!spinner) return void io.stderr.write(`${current}\n`);
      running = true;
      spinner.phase(() => `${current}  ${((performance.now() - startedAt) / 1000).toFixed(1)}s`);
    },
    done(step) {
      const produced = redactText(Object.entries(step.produced).map(([k, v]) => ` ${k}=${v}`).join(''));
      const dedupe = step.deduplicated ? ' (found the resource an earlier attempt created; not sent again)' : '';
      // Steps that are not HTTP calls (SSH, CLI tools) have no status to show.
      const detail = `${step.status === undefined ? '' : `HTTP ${step.status} `}in ${Math.round(step.durationMs)} ms${produced}${dedupe}`;
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

/**
 * Says on stderr what a run is waiting for (rate-limit windows, Retry-After, retries, polls, a lock), so
 * a long pause is never silent; throttled per kind of wait. On a terminal the live spinner line is
 * cleared first and repaints itself below.
 */
export function createWaitNotices(io: Io, now: () => number = () => performance.now()): (wait: WaitNotice) => void {
  const lastAt = new Map<string, number>();
  const say = (message: string) => {
    // The spinner's line is cleared with our own escape sequence, under the guard; the message goes through it.
    if (io.stderrIsTTY) rawStream(io.stderr).write(CLEAR_LINE);
    io.stderr.write(`${message}\n`);
  };
  return (wait) => {
    if (wait.reason !== 'poll' && wait.reason !== 'lock' && wait.reason !== 'failover' && wait.waitMs < NOTICE_MIN_WAIT_MS) return;
    // One key per kind of wait and what it is about: the message without its figures and current status.
    // Each failover is said: they are few, and each says which choice was passed over and why.
    if (wait.reason === 'failover') return say(wait.message);
    const key = `${wait.reason}:${wait.message.replace(/\(status [^)]*\)/, '').replace(/\d+(\.\d+)?/g, '#')}`;
    const t = now();
    const last = lastAt.get(key);
    if (last !== undefined && t - last < NOTICE_EVERY_MS) return;
    lastAt.set(key, t);
    say(wait.message);
  };
}

/**
 * The one observer of a CLI run: waits on stderr (throttled), with `steps` the progress of each step
 * (a live spinner on a terminal, one line per event elsewhere), and with `debug` every event as a
 * `debug:` line. `stop` ends a running spinner line.
 */
export function createRunObserver(io: Io, opts: { steps?: boolean; debug?: (line: string) => void } = {}): RunObserver & { stop(): void } {
  const waits = createWaitNotices(io);
  let progress: StepProgress | undefined;
  const observer = (event: RunEvent) => {
    if (opts.debug) opts.debug(debugLine(event));
    switch (event.type) {
      case 'waiting':
        return waits(event.wait);
      case 'resumed':
        return void io.stderr.write(`resuming after ${event.completed} completed step(s)\n`);
      case 'step-started':
        if (!opts.steps) return;
        progress ??= createStepProgress(io, event.total);
        return progress.start(event.index, event.description, event.reason);
      case 'step-done':
        return progress?.done(event);
      case 'step-failed':
        return progress?.stop();
    }
  };
  return Object.assign(observer, { stop: () => progress?.stop() });
}

function debugLine(event: RunEvent): string {
  switch (event.type) {
    case 'step-started':
      return `run: step ${event.index} started: ${event.description}`;
    case 'step-done':
      return `run: step ${event.index} done (status ${event.status ?? '-'}, ${Math.round(event.durationMs)} ms${event.deduplicated ? ', adopted' : ''})`;
    case 'step-failed':
      return `run: step ${event.index} failed: ${(event.error as Error)?.message ?? String(event.error)}`;
    case 'waiting':
      return `run: waiting (${event.wait.reason}, ${Math.round(event.wait.waitMs)} ms)${event.index === undefined ? '' : ` in step ${event.index}`}`;
    case 'resumed':
      return `run: resumed after ${event.completed} step(s)`;
  }
}

/**
 * An answer on stdout (`ask`, `k8s ask`): tokens as they stream, the whole answer when the provider did
 * not stream, and the line always ended — also before an error is printed.
 */
export interface AnswerPrinter {
  /** A streamed token (stops the spinner first, so the two never share the line). */
  token(text: string): void;
  /** Ends an open line (a stream cut short by an error or Ctrl-C, or before a trace line). */
  endLine(): void;
  /** After the flow: prints `answer` if nothing streamed, then ends the line. */
  finish(answer: string): void;
  /** What to give the AI call as its token callback: none with -o json|yaml, where the answer goes out whole in the document. */
  onToken: ((text: string) => void) | undefined;
}

export function createAnswerPrinter(out: Pick<Output, 'stream' | 'structured'>, spinner?: PhaseSpinner): AnswerPrinter {
  // Through the output sink's stream: redacted, a partial word held back until it is whole.
  const stream = out.stream();
  let streamed = false;
  const print = (text: string) => {
    stream.write(text);
    streamed = true;
  };
  const endLine = () => stream.end();
  const token = (text: string) => {
    spinner?.stop();
    if (text) print(text);
  };
  return {
    token,
    endLine,
    finish(answer) {
      if (!streamed && answer) print(answer);
      endLine();
    },
    onToken: out.structured ? undefined : token,
  };
}
