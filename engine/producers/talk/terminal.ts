/**
 * The terminal side of `talk`: reading lines with editing and history recall (node:readline), and
 * Ctrl-C while an answer or a run is in progress.
 *
 * On a terminal, a readline interface exists only while a line is being read (the prompt, or a
 * question such as "type yes"). While a turn runs, stdin stays in raw mode and is read here directly:
 * Ctrl-C (byte 0x03) interrupts the turn, and nothing typed meanwhile is echoed into the answer or
 * kept (so a "yes" typed ahead can never answer a confirmation that was not shown yet). Raw mode also
 * means Ctrl-C is a key, not a SIGINT, so it stops the turn rather than the process.
 *
 * Without a terminal (a pipe, a file), lines are handed out in order with no prompt and no echo; the
 * end of input ends the session; a SIGINT stops the process as for any command.
 *
 * readline draws the line with escape sequences of its own, so `output` is the terminal itself, not a
 * guarded stream: what this writer shows that is not ours (a question naming what a plan destroys, an
 * agent's option, a pasted line echoed) is sanitised here first (engine/core/render/sanitise.ts).
 */
import { createInterface, type Interface } from 'node:readline';
import type { ReadStream } from 'node:tty';
import { stripControls } from '../../core/render/sanitise.js';

/** readline's Interface with the fields it has but @types/node does not declare. */
type LineInterface = Interface & { history?: string[]; line: string };

export type TalkInput =
  | { type: 'line'; text: string }
  /** Ctrl-C on a line being typed (it is discarded), or the first Ctrl-C on an empty one. */
  | { type: 'cancel' }
  /** Ctrl-D on an empty line, or the end of piped input. */
  | { type: 'eof' }
  /** The second Ctrl-C in a row on an empty line. */
  | { type: 'exit' };

export interface TalkTerminal {
  readonly interactive: boolean;
  /** The next input; `pending` says a continued (backslash) line is being collected. */
  next(prompt: string, opts?: { pending?: boolean }): Promise<TalkInput>;
  /** While a turn runs: Ctrl-C calls `onInterrupt`. Returns the function that ends busy mode. */
  busy(onInterrupt: () => void): () => void;
  /** One question on the terminal (not recorded in the history); undefined for Ctrl-C, Ctrl-D or an abort. */
  question(text: string, signal?: AbortSignal): Promise<string | undefined>;
  /** The typed lines, newest first (to save). */
  history(): string[];
  close(): void;
}

export interface TerminalOptions {
  input: NodeJS.ReadableStream;
  /** Where prompts and echo go (the terminal on stderr: stdout carries only answers and results); written to as it is. */
  output: NodeJS.WritableStream;
  interactive: boolean;
  /** Earlier lines, newest first. */
  history?: string[];
  historySize?: number;
  /** How a line is kept in the history (masked). */
  historyEntry?: (line: string) => string;
  /** Printed after the first Ctrl-C on an empty line. */
  exitHint?: string;
}

export function createTalkTerminal(opts: TerminalOptions): TalkTerminal {
  return opts.interactive ? new TtyTerminal(opts) : new PipedTerminal(opts.input);
}

class PipedTerminal implements TalkTerminal {
  readonly interactive = false;
  private readonly lines: string[] = [];
  private ended = false;
  private wake?: () => void;
  private readonly rl: Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.rl.on('line', (line) => {
      this.lines.push(line);
      this.wake?.();
    });
    this.rl.on('close', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  async next(): Promise<TalkInput> {
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) return { type: 'line', text: line };
      if (this.ended) return { type: 'eof' };
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  busy(): () => void {
    return () => undefined;
  }

  async question(): Promise<string | undefined> {
    return undefined;
  }

  history(): string[] {
    return [];
  }

  close(): void {
    this.rl.close();
  }
}

class TtyTerminal implements TalkTerminal {
  readonly interactive = true;
  private lines: string[];
  private readonly stdin: ReadStream;
  private emptyInterrupts = 0;
  /** Lines that arrived in the same chunk as the one returned (a paste), handed out next. */
  private readonly queued: string[] = [];
  /** Text typed after the last newline of a paste, put back on the next prompt. */
  private carry = '';
  private closed = false;
  private busyActive = false;

  constructor(private readonly opts: TerminalOptions) {
    this.stdin = opts.input as ReadStream;
    this.lines = [...(opts.history ?? [])];
  }

  private open(prompt: string, historySize: number): LineInterface {
    const rl = createInterface({
      input: this.stdin,
      output: this.opts.output,
      terminal: true,
      prompt,
      history: historySize ? this.lines : [],
      historySize,
      removeHistoryDuplicates: true,
    });
    return rl as LineInterface;
  }

  next(prompt: string, { pending = false } = {}): Promise<TalkInput> {
    if (this.closed) return Promise.resolve({ type: 'eof' });
    const queued = this.queued.shift();
    if (queued !== undefined) {
      this.opts.output.write(`${prompt}${stripControls(queued)}\n`);
      return Promise.resolve({ type: 'line', text: queued });
    }
    return new Promise((resolve) => {
      const rl = this.open(prompt, this.opts.historySize ?? 500);
      let settled = false;
      // Set when we close it ourselves (its own 'close' handlers must still run: they detach it from stdin).
      let closing = false;
      const finish = (input: TalkInput) => {
        if (settled) return;
        settled = true;
        // Lines of the same paste arrive synchronously after this one: collect them, then close.
        setImmediate(() => {
          this.carry = rl.line ?? '';
          this.lines = rl.history ? [...rl.history] : this.lines;
          closing = true;
          rl.close();
          resolve(input);
        });
      };
      rl.on('line', (line) => {
        if (settled) return void this.queued.push(line);
        this.emptyInterrupts = 0;
        // What Up brings back is what the history file keeps: the masked line.
        const entry = this.opts.historyEntry?.(line) ?? line;
        if (rl.history?.[0] === line) rl.history[0] = entry;
        finish({ type: 'line', text: line });
      });
      rl.on('SIGINT', () => {
        const typed = rl.line ?? '';
        if (typed || pending) {
          this.emptyInterrupts = 0;
          this.opts.output.write('^C\n');
          rl.line = '';
          return finish({ type: 'cancel' });
        }
        this.emptyInterrupts++;
        if (this.emptyInterrupts >= 2) {
          this.opts.output.write('\n');
          return finish({ type: 'exit' });
        }
        this.opts.output.write(`^C\n${this.opts.exitHint ?? ''}${this.opts.exitHint ? '\n' : ''}`);
        finish({ type: 'cancel' });
      });
      rl.on('close', () => {
        if (closing) return;
        // Ctrl-D on an empty line (readline closes itself).
        this.opts.output.write('\n');
        settled = true;
        this.closed = true;
        resolve({ type: 'eof' });
      });
      rl.prompt();
      if (this.carry) {
        rl.write(this.carry);
        this.carry = '';
      }
    });
  }

  busy(onInterrupt: () => void): () => void {
    if (this.closed) return () => undefined;
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.includes('\x03')) onInterrupt();
    };
    this.busyActive = true;
    this.stdin.setRawMode?.(true);
    this.stdin.on('data', onData);
    this.stdin.resume();
    return () => {
      this.busyActive = false;
      this.stdin.off('data', onData);
      this.stdin.pause();
      this.stdin.setRawMode?.(false);
    };
  }

  question(text: string, signal?: AbortSignal): Promise<string | undefined> {
    if (this.closed || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const rl = this.open('', 0);
      let done = false;
      const finish = (answer: string | undefined) => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', onAbort);
        rl.close();
        // Closing readline leaves cooked mode and pauses stdin; a turn still running needs its Ctrl-C back.
        if (this.busyActive) {
          this.stdin.setRawMode?.(true);
          this.stdin.resume();
        }
        resolve(answer);
      };
      const onAbort = () => {
        this.opts.output.write('\n');
        finish(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      rl.on('SIGINT', () => {
        this.opts.output.write('^C\n');
        finish(undefined);
      });
      rl.on('close', () => {
        if (done) return;
        this.opts.output.write('\n');
        finish(undefined);
      });
      rl.question(stripControls(text), (answer) => finish(answer));
    });
  }

  history(): string[] {
    return this.lines;
  }

  close(): void {
    this.closed = true;
    this.stdin.setRawMode?.(false);
    this.stdin.pause();
  }
}
