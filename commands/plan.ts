/**
 * `assistant plan validate [file]`: every problem with its command index and field; exit 0 valid, 2 invalid, 3 gated.
 * `assistant plan show [file] [--graph] [--format text|mermaid|dot]`: the steps, or the steps as a graph.
 * `assistant plan diff [file] [--all]`: the plan against the live cloud; exit 4 when anything drifted.
 * `assistant plan convert [file] [--body object|string]`: the plan in this tool's own form, on stdout.
 * Each takes the plan as the argument, `--plan-file`, or stdin (`-`), and reads the original tool's form
 * with a warning unless `--strict`.
 */
import { PREDEFINED_BINDINGS } from '../schemas/plan.js';
import { DRIFT_EXIT_CODE } from '../engine/core/drift-types.js';
import { formatProblems, validatePlan } from '../engine/core/plan/validate.js';
import { ExitCode, InvalidInputError, UsageError } from '../engine/core/errors.js';
import { planText, type BodyForm } from '../engine/core/plan/writer.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { readPlanInput, type PlanReadOptions } from './plan-input.js';
import { withSession } from './session.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { columnsOf } from '../engine/core/render/columns.js';

/** Where the plan is (every subcommand), and whether the original tool's form is read (all but convert). */
const PLAN_FILE = { planFile: flag.path().option('--plan-file <path>', 'The plan (or name it as the argument; stdin when neither, or -)') } satisfies FlagSpec;
const PLAN_FILE_STRICT = {
  ...PLAN_FILE,
  strict: flag.bool().option('--strict', "Refuse plans in the original tool's form (extra keys, no reason, vendor names) instead of reading them with a warning"),
} satisfies FlagSpec;

/** What each subcommand's flags are (in --help order); their options types are derived from it. */
const FLAGS = {
  validate: { ...PLAN_FILE_STRICT, destroyer: flag.bool().option('--destroyer', 'Allow destructive steps') },
  show: {
    ...PLAN_FILE_STRICT,
    graph: flag.bool().option('--graph', 'Draw the steps as a graph (text: box characters; see --format)'),
    format: { ...flag.oneOf(['text', 'mermaid', 'dot']).option('--format <format>', 'Graph format: text (default), mermaid or dot (implies --graph)'), hint: 'assistant plan show plan.json --format mermaid' },
    ascii: flag.bool().option('--ascii', 'Text graph in plain ASCII instead of box-drawing characters'),
  },
  diff: { ...PLAN_FILE_STRICT, all: flag.bool().option('--all', 'Also list resources in the project that no step of the plan makes or acts on (they count as drift)') },
  convert: {
    ...PLAN_FILE,
    body: {
      ...flag.oneOf(['object', 'string']).option('--body <form>', 'How request bodies are written: object (default: one field a line, reviewable in git) or string (JSON text inside args)'),
      hint: 'assistant plan convert plan.json --body object',
    },
  },
} satisfies Record<string, FlagSpec>;

/** What `assistant plan --help` says after the commands. */
const FOOTER =
  `Exit codes of plan diff: 0 in sync, ${DRIFT_EXIT_CODE} drift found, 1 a read failed, 2 invalid plan or usage.`;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('plan', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('validate [file]', 'Validate a plan document (stdin when no file) without sending anything'), FLAGS.validate)
      .example('  assistant plan validate examples/plans/instance.json')
      .example('  assistant ask --maker "…" | assistant plan validate')
      .example('  assistant plan validate --strict --plan-file infra/gpu.json     # CI: only this tool\'s own form')
      .action((file: string | undefined, opts: OptionsOf<typeof FLAGS.validate>) => start(() => validate(ctx, planFileOf(file, opts), Boolean(opts.destroyer), opts)));
    withFlags(cli.command('show [file]', 'Show a plan (stdin when no file): its steps, or with --graph the steps as a graph (bindings as edges, destructive steps marked)'), FLAGS.show)
      .example('  assistant plan show plan.json --graph')
      .example('  assistant plan show plan.json --format mermaid > plan.mmd')
      .example('  assistant plan show plan.json --format dot | dot -Tsvg > plan.svg')
      .example('  assistant plan show plan.json -o json        # steps and edges as JSON')
      .action((file: string | undefined, opts: ShowFlags) => start(() => show(ctx, planFileOf(file, opts), opts)));
    withFlags(cli.command('diff [file]', `Compare a plan with what exists now (only GETs are sent): per resource in sync, missing or different (type, location, size, image, status); exit ${DRIFT_EXIT_CODE} when anything drifted`), FLAGS.diff)
      .example('  assistant plan diff --plan-file infra/gpu.json')
      .example('  assistant plan diff infra/gpu.json --all -o json | jq .resources')
      .example(`  assistant plan diff infra/gpu.json || [ $? -eq ${DRIFT_EXIT_CODE} ] && echo "drift"     # CI: 0 in sync, ${DRIFT_EXIT_CODE} drift, 1/2 errors`)
      .action((file: string | undefined, opts: OptionsOf<typeof FLAGS.diff>) => start(() => diff(ctx, planFileOf(file, opts), Boolean(opts.all), opts)));
    withFlags(cli.command('convert [file]', "Write a plan (stdin when no file) in this tool's own form on stdout: the original tool's plans migrated, request bodies as JSON objects (or strings)"), FLAGS.convert)
      .example('  assistant plan convert old-plan.json > plan.json        # migrate a plan of the original tool')
      .example('  assistant plan convert plan.json --body string')
      .action((file: string | undefined, opts: OptionsOf<typeof FLAGS.convert>) => start(() => convert(ctx, planFileOf(file, opts), opts.body ?? 'object')));
  });
}

type PlanFileFlags = OptionsOf<typeof PLAN_FILE_STRICT>;
type ShowFlags = OptionsOf<typeof FLAGS.show>;

/** The plan file: the argument or --plan-file (not both: which one was meant?). */
function planFileOf(file: string | undefined, opts: PlanFileFlags): string | undefined {
  if (file !== undefined && opts.planFile !== undefined && file !== opts.planFile) {
    throw new UsageError(`two plans given: ${file} and --plan-file ${opts.planFile}`, { hint: 'name the plan once, as the argument or with --plan-file' });
  }
  return opts.planFile ?? file;
}

async function convert(ctx: CommandContext, file: string | undefined, body: BodyForm): Promise<number> {
  const input = await readPlanInput(ctx, file);
  const { providers, predefined } = await withSession(ctx, async (session) => ({ providers: await session.providers.forPlan(input), predefined: Object.keys(session.predefined) }));
  // Written only when it is a plan: converting must not turn an invalid file into a plausible-looking one.
  const v = validatePlan(input, { providers, destroyer: true, predefined: [...new Set([...predefined, ...PREDEFINED_BINDINGS])] });
  if (!v.ok) throw new InvalidInputError('invalid_plan', `the plan is invalid:\n${formatProblems(v.problems)}`, { hint: 'fix it; `assistant plan validate <file>` lists every problem' });
  // The plan's own key order and spelling: the converted plan keeps its hash (and its run journal).
  ctx.io.stdout.write(planText(v.plan!, { body, keys: 'kept' }));
  return ExitCode.ok;
}

async function diff(ctx: CommandContext, file: string | undefined, all: boolean, read: PlanReadOptions): Promise<number> {
  const input = await readPlanInput(ctx, file, read);
  const { planDrift } = await import('../engine/producers/drift/plan-diff.js');
  const { readResult } = await import('../machines/apply/reads.js');
  const report = await withSession(ctx, (session) => planDrift(session, input, { all, read: (plan) => readResult(session, plan, { signal: ctx.signal }) }));
  const { renderDrift } = await import('../engine/producers/drift/render.js');
  ctx.out.value(report, { table: () => renderDrift(report, ctx.out.table) });
  for (const p of report.not_checked) ctx.io.stderr.write(`note: provider ${p} cannot compare its resources; its steps were not checked\n`);
  return report.drift ? DRIFT_EXIT_CODE : ExitCode.ok;
}

async function show(ctx: CommandContext, file: string | undefined, opts: ShowFlags): Promise<number> {
  const format = opts.format ?? (opts.graph ? 'text' : undefined);
  const input = await readPlanInput(ctx, file, opts);
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
    const columns = columnsOf([['STEP', 'index', 10], ['EFFECT', 'effect', 9], ['REQUEST', 'request', 8], ['REASON', 'reason', 5], ['PRODUCES', 'produces', 6], ['USES', 'uses', 7]]);
    ctx.out.value(graph, { table: () => ctx.out.table(rows, columns, { keep: 'index' }) });
  }
  return ExitCode.ok;
}

async function validate(ctx: CommandContext, file: string | undefined, destroyer: boolean, read: PlanReadOptions): Promise<number> {
  const input = await readPlanInput(ctx, file, read);
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
