/**
 * A command's side of a talk session (machines/talk/talk-engine.ts): its home, env, signal and switches,
 * its debug writer, and plan files read as every plan-reading command reads them.
 */
import type { TalkHost } from '../machines/talk/talk-engine.js';
import type { CommandContext } from './context.js';
import { readPlanInput } from './plan-input.js';

export function talkHost(ctx: CommandContext): TalkHost {
  return {
    home: ctx.home,
    env: ctx.env,
    signal: ctx.signal,
    sandbox: ctx.globals.sandbox,
    timeout: ctx.globals.timeout,
    configPath: ctx.globals.config,
    debug: ctx.debug.callback,
    readPlanFile: (path) => readPlanInput(ctx, path),
  };
}
