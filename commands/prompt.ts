import { Writable } from 'node:stream';
import { createInterface } from 'node:readline/promises';
import { SafetyRefusal } from '../engine/core/errors.js';
import type { CommandContext } from './context.js';
import { rawStream } from './terminal.js';
import { terminalText } from '../engine/core/render/sanitise.js';
import { redactText } from '../engine/core/redact.js';

/**
 * Confirmation before an irreversible action: the user types `expected` (like GitHub's repo delete).
 * --yes skips it; without a terminal and without --yes the action is refused (exit 3).
 */
export async function confirmByTyping(ctx: CommandContext, what: string, expected: string, consequence = 'This cannot be undone.'): Promise<void> {
  if (ctx.globals.yes) return;
  if (!ctx.io.stdinIsTTY) {
    throw new SafetyRefusal(`${what} needs confirmation and there is no terminal to ask on; nothing was sent`, {
      hint: 'rerun with --yes to confirm non-interactively',
    });
  }
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
  try {
    const answer = await rl.question(`${what}. ${consequence}\nType "${expected}" to confirm: `, { signal: ctx.signal });
    if (answer.trim() !== expected) throw new SafetyRefusal('confirmation did not match; nothing was sent');
  } finally {
    rl.close();
  }
}

/**
 * One question on the terminal (an unknown the command could not work out, e.g. deploy's port);
 * empty answers ask again. Callers check for a terminal first and refuse in a pipe.
 */
export async function askLine(ctx: CommandContext, question: string, valid: (answer: string) => string | undefined): Promise<string> {
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
  try {
    for (;;) {
      const answer = (await rl.question(`${question} `, { signal: ctx.signal })).trim();
      const problem = answer ? valid(answer) : 'an answer is needed';
      if (!problem) return answer;
      ctx.io.stderr.write(`${problem}\n`);
    }
  } finally {
    rl.close();
  }
}

/**
 * One line from the terminal; `hidden` echoes nothing (a secret). Callers check for a terminal first.
 * A visible question is readline's own prompt: in terminal mode readline redraws its line, and a
 * question written before it would be wiped by that redraw.
 */
export async function prompt(ctx: CommandContext, question: string, hidden: boolean): Promise<string> {
  if (hidden) ctx.io.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  // readline's line editing writes escape sequences of its own: to the terminal under the guard (it echoes only what is typed).
  const rl = createInterface({ input: ctx.io.stdin, output: hidden ? muted : rawStream(ctx.io.stderr), terminal: true });
  try {
    return await rl.question(hidden ? '' : terminalText(question, redactText), { signal: ctx.signal });
  } finally {
    rl.close();
    if (hidden) ctx.io.stderr.write('\n');
  }
}
