/**
 * `assistant plan validate [file]`: every problem with its command index and field; exit 0 valid, 2 invalid, 3 gated.
 * `assistant plan show [file] [--graph] [--format text|mermaid|dot]`: the steps, or the steps as a graph.
 * `assistant plan diff [file] [--all]`: the plan against the live cloud; exit 4 when anything drifted.
 */
import { PREDEFINED_BINDINGS } from '../schemas/plan.js';
import { DRIFT_EXIT_CODE } from '../engine/core/drift-types.js';
import { formatProblems, validatePlan } from '../engine/core/plan/validate.js';
import { ExitCode, InvalidInputError } from '../engine/core/errors.js';
import { renderTable } from '../engine/core/render/records.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { readPlanInput } from './plan-input.js';
import { withSession } from './session.js';
import { flag, type FlagSpec } from './flag-spec.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('plan', argv, ctx, (cli, start) => {
    cli
      .command('validate [file]', 'Validate a plan document (stdin when no file) without sending anything')
      .option('--destroyer', 'Allow destructive steps')
      .example('  assistant plan validate examples/plans/instance.json')
      .example('  assistant ask --maker "…" | assistant plan validate')
      .action((file: string | undefined, opts: { destroyer?: boolean }) => start(() => validate(ctx, file, Boolean(opts.destroyer))));
    cli
      .command('show [file]', 'Show a plan (stdin when no file): its steps, or with --graph the steps as a graph (bindings as edges, destructive steps marked)')
      .option('--graph', 'Draw the steps as a graph (text: box characters; see --format)')
      .option('--format <format>', 'Graph format: text (default), mermaid or dot (implies --graph)')
      .option('--ascii', 'Text graph in plain ASCII instead of box-drawing characters')
      .example('  assistant plan show plan.json --graph')
      .example('  assistant plan show plan.json --format mermaid > plan.mmd')
      .example('  assistant plan show plan.json --format dot | dot -Tsvg > plan.svg')
      .example('  assistant plan show plan.json -o json        # steps and edges as JSON')
      .action((file: string | undefined, opts: { graph?: boolean; format?: unknown; ascii?: boolean }) => start(() => show(ctx, file, opts)));
    cli
      .command('diff [file]', `Compare a plan with what exists now (only GETs are sent): per resource in sync, missing or different (type, location, size, image, status); exit ${DRIFT_EXIT_CODE} when anything drifted`)
      .option('--plan-file <path>', 'The plan (or give it as the argument; stdin when neither)')
      .option('--all', 'Also list resources in the project that no step of the plan makes or acts on (they count as drift)')
      .example('  assistant plan diff --plan-file infra/gpu.json')
      .example('  assistant plan diff infra/gpu.json --all -o json | jq .resources')
      .example(`  assistant plan diff infra/gpu.json || [ $? -eq ${DRIFT_EXIT_CODE} ] && echo "drift"     # CI: 0 in sync, ${DRIFT_EXIT_CODE} drift, 1/2 errors`)
      .action((file: string | undefined, opts: { planFile?: string; all?: boolean }) => start(() => diff(ctx, opts.planFile ?? file, Boolean(opts.all))));
  }, `Exit codes of plan diff: 0 in sync, ${DRIFT_EXIT_CODE} drift found, 1 a read failed, 2 invalid plan or usage.`, FLAGS);
}

/** What the flags are, coerced at the cac boundary (commands/flag-coerce.ts). */
const FLAGS: Record<string, FlagSpec> = { show: { format: { ...flag.oneOf(['text', 'mermaid', 'dot']), hint: 'assistant plan show plan.json --format mermaid' } } };

async function diff(ctx: CommandContext, file: string | undefined, all: boolean): Promise<number> {
  const input = await readPlanInput(ctx, file);
  const { planDrift } = await import('../engine/producers/drift/plan-diff.js');
  const { readResult } = await import('../machines/apply/reads.js');
  const report = await withSession(ctx, (session) => planDrift(session, input, { all, read: (plan) => readResult(session, plan, { signal: ctx.signal }) }));
  const { renderDrift } = await import('../engine/producers/drift/render.js');
  ctx.out.value(report, { table: (colors) => renderDrift(report, ctx.out.columns, colors) });
  for (const p of report.not_checked) ctx.io.stderr.write(`note: provider ${p} cannot compare its resources; its steps were not checked\n`);
  return report.drift ? DRIFT_EXIT_CODE : ExitCode.ok;
}

async function show(ctx: CommandContext, file: string | undefined, opts: { graph?: boolean; format?: unknown; ascii?: boolean }): Promise<number> {
  const format = opts.format === undefined ? (opts.graph ? 'text' : undefined) : String(opts.format);
  const input = await readPlanInput(ctx, file);
  const { providers, predefined } = await withSession(ctx, async (session) => ({ providers: await session.providers.forPlan(input), predefined: Object.keys(session.predefined) }));
  // Shown, not run: destructive steps are marked rather than refused, and config need not set the predefined bindings.
  const v = validatePlan(input, { providers, destroyer: true, predefined: [...new Set([...predefined, ...PREDEFINED_BINDINGS])] });
  if (!v.ok) {
    throw new InvalidInputError('invalid_plan', `the plan is invalid:\n${formatProblems(v.problems)}`, { hint: 'fix it; `assistant plan validate <file>` lists every problem' });
  }
  const { planGraph, toDot, toMermaid, toText } = await import('../engine/producers/charts/plan-graph.js');
  const graph = planGraph(v.plan!, v.classes, providers, PREDEFINED_BINDINGS);
  if (format === 'mermaid') ctx.out.value(graph, { table: toMermaid(graph) });
  else if (format === 'dot') ctx.out.value(graph, { table: toDot(graph) });
  else if (format === 'text') ctx.out.value(graph, { table: () => toText(graph, { ascii: Boolean(opts.ascii), color: ctx.out.colors }) });
  else {
    const rows = graph.nodes.map((n) => ({
      index: String(n.index),
      effect: n.destructive.length ? 'DESTROY' : n.effect,
      request: n.request,
      reason: n.reason,
      produces: n.produces.join(', '),
      uses: [...graph.edges.filter((e) => e.to === n.index).map((e) => `${e.binding} (step ${e.from})`), ...n.uses_config].join(', '),
    }));
    const columns = [
      { header: 'STEP', path: 'index', priority: 10 },
      { header: 'EFFECT', path: 'effect', priority: 9 },
      { header: 'REQUEST', path: 'request', priority: 8 },
      { header: 'REASON', path: 'reason', priority: 5 },
      { header: 'PRODUCES', path: 'produces', priority: 6 },
      { header: 'USES', path: 'uses', priority: 7 },
    ];
    ctx.out.value(graph, { table: (colors) => renderTable(rows, columns, ctx.out.columns, { keep: 'index', colors }) });
  }
  return ExitCode.ok;
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
  const doc = { valid: result.ok, problems: result.problems, destructive_steps: result.destructive.flatMap((r, i) => (r.length ? [{ index: i, reasons: r }] : [])) };
  ctx.out.value(doc, {
    table: () => {
      if (!result.ok) return '';
      const marked = result.destructive.filter((r) => r.length).length;
      return `plan is valid: ${result.plan!.commands.length} command(s)${marked ? `, ${marked} destructive (allowed by --destroyer)` : ''}\n`;
    },
    // An invalid plan is told on stderr, problem by problem: stdout stays empty.
    withTable: () => {
      if (result.ok) return;
      ctx.io.stderr.write(formatProblems(result.problems) + '\n');
      ctx.io.stderr.write(exitCode === ExitCode.refused ? 'hint: the plan is otherwise valid; --destroyer allows its destructive steps\n' : 'hint: fix the problems above; nothing was sent\n');
    },
  });
  return exitCode;
}
