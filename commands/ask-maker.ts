/**
 * `ask --maker "<request>"` for a command: its flags and context turned into the make use case's
 * (machines/make/make-plan.ts); the command renders the plan (only the plan JSON goes to stdout).
 */
import type { AskContext, AskBackend } from '../machines/ask/ask-flow.js';
import { makePlanFromQuestion as makePlan, type MakeOptions } from '../machines/make/make-plan.js';
import type { Plan } from '../schemas/plan.js';
import type { CommandContext } from './context.js';

/** The AI selection flags shared by `ask` and `ask --maker`. */
export interface AiFlags {
  aiProfile?: string;
  /** `--<provider>-model`, keyed by provider value. */
  modelOverrides?: Record<string, string>;
  /** `--<provider>-api-key`, keyed by provider value. */
  keyFlags?: Record<string, string>;
}

/** The maker's context for a command: its backend, home, env, signal and sandbox, and the AI flags (no call policy of its own). */
export function makerContext(ctx: Pick<CommandContext, 'env' | 'home' | 'signal' | 'globals'>, backend: AskBackend, ai: AiFlags): AskContext {
  return {
    backend,
    home: ctx.home,
    env: ctx.env,
    signal: ctx.signal,
    sandbox: ctx.globals.sandbox,
    ai: { profile: ai.aiProfile, modelOverrides: ai.modelOverrides, keyFlags: ai.keyFlags },
  };
}

export function makePlanFromQuestion(
  ctx: CommandContext,
  backend: AskBackend,
  question: string,
  opts: Omit<MakeOptions, 'providers' | 'onDebug'> & { providerFlags?: string[] } & AiFlags,
): Promise<Plan> {
  const { providerFlags, aiProfile, modelOverrides, keyFlags, ...make } = opts;
  return makePlan(makerContext(ctx, backend, { aiProfile, modelOverrides, keyFlags }), question, { ...make, providers: providerFlags, onDebug: ctx.debug.callback });
}
