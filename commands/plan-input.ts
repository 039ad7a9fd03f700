import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../engine/errors.js';
import type { CommandContext } from './context.js';

/** Reads a plan document from a file or, without one, from stdin; malformed JSON is exit 2 with the position. */
export async function readPlanInput(ctx: CommandContext, file: string | undefined): Promise<unknown> {
  let text: string;
  if (file && file !== '-') {
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new InvalidInputError('plan_not_found', `cannot read plan file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } else {
    if (ctx.io.stdinIsTTY) {
      throw new InvalidInputError('no_plan', 'no plan given', { hint: 'pass --plan-file <path> or pipe a plan on stdin (e.g. from ask --maker)' });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('invalid_plan', `${file && file !== '-' ? file : 'stdin'} is not valid JSON: ${(err as Error).message}`);
  }
}
