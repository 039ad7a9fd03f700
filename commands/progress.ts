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
