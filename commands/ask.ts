/**
 * `assistant ask`. This landing wires `ask --apply [--plan-file f | stdin] [--destroyer]`; questions and
 * `--maker` arrive with the AI issue and say so clearly instead of pretending.
 */
import { stringify as toYaml } from 'yaml';
import { runPlan } from '../engine/plan/run.js';
import { ExitCode, OperationError, UsageError } from '../engine/errors.js';
import type { RunReport } from '../schemas/run-report.js';
import type { CommandContext } from './context.js';
import { readPlanInput } from './plan-input.js';
import { openSession } from './session.js';
import { runGroup } from './group.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('ask', ['ask', ...argv], ctx, (cli, start) => {
    cli
      .command('ask [...question]', 'Apply a plan document (--apply); natural-language questions and --maker come with the AI integration')
      .option('--apply', 'Apply a plan read from --plan-file or stdin')
      .option('--plan-file <path>', 'Plan document to apply (default: stdin)')
      .option('--destroyer', 'Permit destructive steps in the plan')
      .option('--maker', 'Emit a plan instead of executing (not available yet)')
      .example('  assistant ask --apply --plan-file plan.json')
      .example('  cat plan.json | assistant ask --apply --destroyer')
      .action((question: string[], opts: { apply?: boolean; planFile?: string; destroyer?: boolean; maker?: boolean }) =>
        start(() => {
          if (opts.apply) return apply(ctx, opts.planFile, Boolean(opts.destroyer));
          if (question.length === 0 && !opts.maker) throw new UsageError('nothing to do', { hint: "run 'assistant ask --help'" });
          throw new OperationError('not_available', 'natural-language ask and --maker are not available in this build yet', {
            hint: 'write or check in a plan document and run it with: assistant ask --apply --plan-file <path>',
          });
        }),
      );
  });
}

async function apply(ctx: CommandContext, planFile: string | undefined, destroyer: boolean): Promise<number> {
  const input = await readPlanInput(ctx, planFile);
  const session = await openSession(ctx);
  try {
    const total = Array.isArray((input as { commands?: unknown[] })?.commands) ? (input as { commands: unknown[] }).commands.length : 0;
    const outcome = await runPlan(input, {
      destroyer,
      predefined: session.predefined,
      executorContext: session.executorContext(),
      onStepStart: (index, description, reason) => ctx.io.stderr.write(`[${index + 1}/${total}] ${description} — ${reason}\n`),
      onStepDone: (step) => {
        const produced = Object.entries(step.produced).map(([k, v]) => ` ${k}=${v}`).join('');
        const dedupe = step.result.deduplicated ? ' (found the resource created by an earlier attempt; not sent again)' : '';
        ctx.io.stderr.write(`      done: HTTP ${step.result.status ?? '-'} in ${Math.round(step.durationMs)} ms${produced}${dedupe}\n`);
      },
    });
    writeReport(ctx, outcome.report);
    if (outcome.report.status === 'succeeded') return ExitCode.ok;
    if (outcome.report.status === 'cancelled') return ExitCode.interrupted;
    const err = outcome.error as { exitCode?: number } | undefined;
    return err?.exitCode ?? ExitCode.failed;
  } finally {
    await session.close();
  }
}

function writeReport(ctx: CommandContext, report: RunReport): void {
  if (ctx.globals.output === 'json') return void ctx.io.stdout.write(JSON.stringify(report, null, 2) + '\n');
  if (ctx.globals.output === 'yaml') return void ctx.io.stdout.write(toYaml(report));
  const done = report.steps.filter((s) => s.status === 'succeeded').length;
  const lines = [`${report.status}: ${done}/${report.steps.length} step(s) completed`];
  for (const s of report.steps) {
    const mark = s.status === 'succeeded' ? 'ok  ' : s.status === 'failed' ? 'FAIL' : '--  ';
    lines.push(`  ${mark} ${s.index}: ${s.request}  ${s.reason}${s.error ? `  (${s.error.code}: ${s.error.message})` : ''}`);
  }
  const bindings = Object.entries(report.bindings);
  if (bindings.length) lines.push('bindings:', ...bindings.map(([k, v]) => `  ${k}=${v}`));
  if (report.status === 'failed') {
    lines.push(done ? `already changed: steps 0..${done - 1} completed before the failure` : 'nothing was changed before the failure');
  }
  ctx.io.stdout.write(lines.join('\n') + '\n');
  if (report.error) ctx.io.stderr.write(`error: ${report.error.code}: ${report.error.message}\n${report.error.hint ? `hint: ${report.error.hint}\n` : ''}`);
}
