/** `assistant plan validate [file]`: every problem with its command index and field; exit 0 valid, 2 invalid, 3 gated. */
import { formatProblems, validatePlan } from '../engine/plan/validate.js';
import { ExitCode } from '../engine/errors.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { readPlanInput } from './plan-input.js';
import { withSession } from './session.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('plan', argv, ctx, (cli, start) => {
    cli
      .command('validate [file]', 'Validate a plan document (stdin when no file) without sending anything')
      .option('--destroyer', 'Allow destructive steps')
      .example('  assistant plan validate examples/plans/instance.json')
      .example('  assistant ask --maker "…" | assistant plan validate')
      .action((file: string | undefined, opts: { destroyer?: boolean }) => start(() => validate(ctx, file, Boolean(opts.destroyer))));
  });
}

async function validate(ctx: CommandContext, file: string | undefined, destroyer: boolean): Promise<number> {
  const input = await readPlanInput(ctx, file);
  // The session resolves predefined bindings (config, or sandbox defaults) without connecting anywhere.
  const { providers, predefined } = await withSession(ctx, async (session) => ({ providers: await session.providers.forPlan(input), predefined: Object.keys(session.predefined) }));
  const result = validatePlan(input, { providers, destroyer, predefined });
  const exitCode = result.ok
    ? ExitCode.ok
    : result.problems.some((p) => p.kind !== 'destructive')
      ? ExitCode.invalidInput
      : ExitCode.refused;
  if (ctx.globals.output === 'json' || ctx.globals.output === 'yaml') {
    const doc = { valid: result.ok, problems: result.problems, destructive_steps: result.destructive.flatMap((r, i) => (r.length ? [{ index: i, reasons: r }] : [])) };
    ctx.io.stdout.write(ctx.globals.output === 'json' ? JSON.stringify(doc, null, 2) + '\n' : (await import('yaml')).stringify(doc));
  } else if (result.ok) {
    const marked = result.destructive.filter((r) => r.length).length;
    ctx.io.stdout.write(`plan is valid: ${result.plan!.commands.length} command(s)${marked ? `, ${marked} destructive (allowed by --destroyer)` : ''}\n`);
  } else {
    ctx.io.stderr.write(formatProblems(result.problems) + '\n');
    ctx.io.stderr.write(exitCode === ExitCode.refused ? 'hint: the plan is otherwise valid; --destroyer allows its destructive steps\n' : 'hint: fix the problems above; nothing was sent\n');
  }
  return exitCode;
}
