import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../engine/core/errors.js';
import { readPlanDocument } from '../engine/core/plan/document.js';
import { decodeUtf8Strict, parseStrictJson } from '../engine/core/plan/strict-json.js';
import { formatProblems } from '../engine/core/plan/validate.js';
import { PROVIDERS } from '../engine/providers/index.js';
import type { CommandContext } from './context.js';

/** How a plan-reading command was asked to read: `--strict` refuses the original tool's form (CI). */
export interface PlanReadOptions {
  strict?: boolean;
}

/**
 * Reads a plan document from a file or, without one (or with `-`), from stdin, in the one form the engine
 * runs (engine/core/plan/document.ts: bodies written as objects, the original tool's plans unless
 * `strict`; what was read leniently is said in one warning on stderr). Malformed JSON, a key repeated in
 * one object and invalid UTF-8 are exit 2: each would let two readers see two different plans.
 */
export async function readPlanInput(ctx: CommandContext, file: string | undefined, opts: PlanReadOptions = {}): Promise<unknown> {
  const source = file && file !== '-' ? file : 'stdin';
  const doc = readPlanDocument(await readPlanJson(ctx, file), { strict: opts.strict, former: PROVIDERS.formerNames() });
  if (doc.problems.length) throw new InvalidInputError('invalid_plan', `${source}: the plan is invalid; nothing was sent:\n${formatProblems(doc.problems)}`);
  for (const w of doc.warnings) ctx.io.stderr.write(`warning: ${source}: ${w}\n`);
  return doc.plan;
}

/** The JSON of a plan file or stdin, read strictly (one reading for every reader). */
async function readPlanJson(ctx: CommandContext, file: string | undefined): Promise<unknown> {
  let bytes: Buffer;
  if (file && file !== '-') {
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new InvalidInputError('plan_not_found', `cannot read plan file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } else {
    if (ctx.io.stdinIsTTY) {
      throw new InvalidInputError('no_plan', 'no plan given', { hint: 'name the plan file (or --plan-file <path>), or pipe a plan on stdin (e.g. from ask --maker)' });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    bytes = Buffer.concat(chunks);
  }
  const source = file && file !== '-' ? file : 'stdin';
  const text = decodeUtf8Strict(bytes);
  if (typeof text !== 'string') throw new InvalidInputError('invalid_plan', `${source}: ${text.problem}`, { hint: 'save the plan as UTF-8' });
  const parsed = parseStrictJson(text);
  if ('problem' in parsed) {
    throw new InvalidInputError('invalid_plan', `${source} is ${parsed.problem.startsWith('not valid JSON') ? parsed.problem : `not a plan: ${parsed.problem}`}`);
  }
  return parsed.value;
}
