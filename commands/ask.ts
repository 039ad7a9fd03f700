/**
 * `assistant ask`: `--maker` writes a plan, `--apply` runs one (with `--dry-run`, `--resume`, `--fresh`).
 * Answering questions in natural language is not built yet and says so instead of pretending.
 */
import { stringify as toYaml } from 'yaml';
import { applyPlan, type ApplyMode } from '../engine/plan/apply.js';
import { dryRunPlan } from '../engine/plan/dry-run.js';
import { renderPreview } from '../engine/plan/preview.js';
import { ExitCode, OperationError, UsageError } from '../engine/errors.js';
import type { RunReport } from '../schemas/run-report.js';
import type { CommandContext } from './context.js';
import { readPlanInput } from './plan-input.js';
import { withSession } from './session.js';
import { createStepProgress } from './progress.js';
import { makePlanFromQuestion } from './ask-maker.js';
import { runGroup } from './group.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('ask', ['ask', ...argv], ctx, (cli, start) => {
    cli
      .command('ask [...question]', 'Write a plan for a request (--maker) or apply a plan document (--apply)')
      .option('--apply', 'Apply a plan read from --plan-file or stdin')
      .option('--plan-file <path>', 'Plan document to apply (default: stdin)')
      .option('--destroyer', 'Permit destructive steps in the plan')
      .option('--dry-run', 'Send only GET requests: show each step, the cost of what the plan creates, availability and the balance')
      .option('--resume', 'Continue an unfinished run of the same plan after its last completed step')
      .option('--fresh', 'Discard the journal of an unfinished run of this plan and start from the first step')
      .option('--maker', 'Write a plan for the request (JSON on stdout) instead of executing anything')
      .option('--ai-profile <name>', 'AI provider profile (ai.providers.<name>); "builtin" is the offline planner')
      .example('  assistant ask --apply --plan-file plan.json')
      .example('  cat plan.json | assistant ask --apply --destroyer')
      .example('  assistant ask --apply --dry-run --plan-file plan.json')
      .example('  assistant --sandbox ask --maker "create a 1V100.6V instance called train-1 in FIN-01" | assistant --sandbox ask --apply')
      .action((question: string[], opts: { apply?: boolean; planFile?: string; destroyer?: boolean; dryRun?: boolean; resume?: boolean; fresh?: boolean; maker?: boolean; aiProfile?: string }) =>
        start(() => {
          if (opts.apply && opts.dryRun) return dryRun(ctx, opts.planFile, Boolean(opts.destroyer));
          if (opts.apply) return apply(ctx, opts.planFile, Boolean(opts.destroyer), opts.resume ? 'resume' : opts.fresh ? 'fresh' : 'new');
          if (question.length === 0) throw new UsageError('no question given', { hint: "run 'assistant ask --help'" });
          if (opts.maker) return maker(ctx, question.join(' '), Boolean(opts.destroyer), opts.aiProfile);
          throw new OperationError('not_available', 'answering questions in natural language is not available in this build yet', {
            hint: 'list resources with `assistant gpucloud list <kind>`, or write a plan with `assistant ask --maker "<request>"`',
          });
        }),
      );
  });
}

async function apply(ctx: CommandContext, planFile: string | undefined, destroyer: boolean, mode: ApplyMode): Promise<number> {
  const input = await readPlanInput(ctx, planFile);
  return withSession(ctx, async (session) => {
    let progress: ReturnType<typeof createStepProgress> | undefined;
    const outcome = await applyPlan(input, {
      backend: session,
      home: ctx.home,
      destroyer,
      mode,
      onResume: (done) => ctx.io.stderr.write(`resuming after ${done} completed step(s)\n`),
      onBegin: (plan) => (progress = createStepProgress(ctx.io, plan.commands.length)),
      onStepStart: (index, description, reason) => progress?.start(index, description, reason),
      onStepDone: (step) => progress?.done(step),
    });
    progress?.stop();
    writeReport(ctx, outcome.report);
    if (outcome.report.status === 'succeeded') return ExitCode.ok;
    if (outcome.report.status === 'cancelled') {
      ctx.io.stderr.write('interrupted: the journal keeps the completed steps; continue with --resume\n');
      return ExitCode.interrupted;
    }
    const err = outcome.error as { exitCode?: number } | undefined;
    return err?.exitCode ?? ExitCode.failed;
  });
}

async function maker(ctx: CommandContext, question: string, destroyer: boolean, aiProfile?: string): Promise<number> {
  return withSession(ctx, async (session) => {
    const plan = await makePlanFromQuestion(ctx, session, question, { destroyer, aiProfile });
    ctx.io.stdout.write(JSON.stringify({ ...plan, question: plan.question ?? question, created_at: plan.created_at ?? new Date().toISOString() }, null, 2) + '\n');
    return ExitCode.ok;
  });
}

/** --dry-run: validate, then only GETs (prices, availability, balance) through the same executor. */
async function dryRun(ctx: CommandContext, planFile: string | undefined, destroyer: boolean): Promise<number> {
  const input = await readPlanInput(ctx, planFile);
  return withSession(ctx, async (session) => {
    const { preview, gated } = await dryRunPlan(session, input, { destroyer });
    if (ctx.globals.output === 'json') ctx.io.stdout.write(JSON.stringify(preview, null, 2) + '\n');
    else if (ctx.globals.output === 'yaml') ctx.io.stdout.write(toYaml(preview));
    else ctx.io.stdout.write(renderPreview(preview));
    for (const w of preview.warnings) ctx.io.stderr.write(`warning: ${w}\n`);
    if (gated) ctx.io.stderr.write('note: this plan has destructive steps; applying it needs --destroyer\n');
    return gated ? ExitCode.refused : ExitCode.ok;
  });
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
