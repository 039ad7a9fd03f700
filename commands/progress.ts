import type { CompletedStep } from '../machines/run-plan.js';
import type { Io } from './context.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

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
  const live = io.stderrIsTTY;
  let timer: NodeJS.Timeout | undefined;
  let current = '';
  let startedAt = 0;
  let frame = 0;

  const paint = () => {
    const elapsed = ((performance.now() - startedAt) / 1000).toFixed(1);
    io.stderr.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${current}  ${elapsed}s`);
  };
  const clear = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    start(index, description, reason) {
      current = `[${index + 1}/${total}] ${description} — ${reason}`;
      startedAt = performance.now();
      if (!live) return void io.stderr.write(`${current}\n`);
      paint();
      timer = setInterval(paint, 100);
      timer.unref();
    },
    done(step) {
      const produced = Object.entries(step.produced).map(([k, v]) => ` ${k}=${v}`).join('');
      const dedupe = step.result.deduplicated ? ' (found the resource an earlier attempt created; not sent again)' : '';
      const detail = `HTTP ${step.result.status ?? '-'} in ${Math.round(step.durationMs)} ms${produced}${dedupe}`;
      if (!live) return void io.stderr.write(`      done: ${detail}\n`);
      clear();
      io.stderr.write(`\r\x1b[2K✓ ${current}  ${detail}\n`);
    },
    stop() {
      if (!live || !timer) return;
      clear();
      io.stderr.write(`\r\x1b[2K✗ ${current}\n`);
    },
  };
}

export interface PhaseSpinner {
  /** Shows what is being waited for now. */
  phase(text: string): void;
  /** Clears the line, before the answer or an error is printed. */
  stop(): void;
}

/**
 * One live status line for a wait without steps (`ask` before its first token). Only on a terminal;
 * elsewhere there is none (undefined) and callers print plain lines where they matter.
 */
export function createPhaseSpinner(io: Io): PhaseSpinner | undefined {
  if (!io.stderrIsTTY) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let text = '';
  let frame = 0;
  const paint = () => io.stderr.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text}`);
  return {
    phase(next) {
      text = next;
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
      io.stderr.write('\r\x1b[2K');
    },
  };
}
