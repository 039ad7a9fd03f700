/**
 * The command-line face of the one apply module (machines/apply/): progress on stderr, the report on
 * stdout, the exit code the module decided. Every command that applies a plan (`ask --apply`, `deploy
 * --apply`, `k8s create|deploy|delete`, `gpucloud action`) comes through here; none decides apply
 * semantics (modes, budget, gate, exit codes) itself.
 */
import { applyMode, applyPlan, budgetLimit, dryRunPlan, type ApplyOutcome } from '../machines/apply/index.js';
import type { RunReport } from '../schemas/run-report.js';
import { ExitCode } from '../engine/core/errors.js';
import { renderPreview } from '../engine/core/plan/preview.js';
import type { Colors } from '../engine/core/render/color.js';
import { renderReport, renderReportError } from '../engine/core/render/report.js';
import { warn, type CommandContext } from './context.js';
import { createRunObserver } from './progress.js';
import { withSession, type Session } from './session.js';

/** The safety flags of every apply surface. */
export interface ApplyFlags {
  destroyer: boolean;
  resume?: boolean;
  fresh?: boolean;
  allowDuplicateNames?: boolean;
  /** `--max-hourly-cost`, over `budget.max_hourly`. */
  maxHourly?: number;
  /** `--allow-unpriced`: creates no price is known for do not make a budget refuse. */
  allowUnpriced?: boolean;
  /** `--profile`: the cloud_a environment (or aws profile) of the session's cloud_a steps. */
  profile?: string;
  /** `--region` (k8s: for the kubeconfig's exec credential plugin). */
  region?: string;
  /** `--files DIR`: the only directory plan steps may read local files from (`<FILES>/name`). */
  filesDir?: string;
  /** `--terraform-plan`, `--unsandboxed`: a plan's terraform plan reads may run the workspace's code, contained. */
  workspaceCode?: { plan?: boolean; unsandboxed?: boolean };
  /** Values the plan may use for this run only (a deploy's secrets): never in its report. */
  secretBindings?: Record<string, string>;
  /** What the command adds to the report (a deploy's URL), given the report of a succeeded run. */
  extra?: (report: RunReport) => Record<string, string> | undefined;
  /** The command to name in the "continue with --resume" line (`deploy … --apply`). */
  resumeWith?: string;
}

function limitOf(session: Session, flags: ApplyFlags) {
  return budgetLimit(flags.maxHourly === undefined ? undefined : { max: flags.maxHourly, from: '--max-hourly-cost' }, session.config.budget?.max_hourly, Boolean(flags.allowUnpriced));
}

/** Applies a plan document in a session of its own. */
export async function applyInput(ctx: CommandContext, input: unknown, flags: ApplyFlags): Promise<number> {
  return withSession(ctx, (session) => applyInSession(ctx, session, input, flags), { profile: flags.profile, region: flags.region, filesDir: flags.filesDir, workspaceCode: flags.workspaceCode });
}

/** Runs the apply module with the session's deadline, journal and budget; no output of its own. */
export async function applyWith(ctx: CommandContext, session: Session, input: unknown, flags: ApplyFlags, observer = session.observer): Promise<ApplyOutcome> {
  return applyPlan(input, {
    backend: session,
    home: ctx.home,
    destroyer: flags.destroyer,
    mode: applyMode(flags),
    allowDuplicateNames: Boolean(flags.allowDuplicateNames),
    budget: limitOf(session, flags),
    secretBindings: flags.secretBindings,
    observer,
  });
}

/** Applies a plan with progress on stderr and the report on stdout; returns the exit code. */
export async function applyInSession(ctx: CommandContext, session: Session, input: unknown, flags: ApplyFlags): Promise<number> {
  const observer = createRunObserver(ctx.io, { steps: true, debug: ctx.debug.callback });
  const outcome = await applyWith(ctx, session, input, flags, observer).finally(() => observer.stop());
  const extra = outcome.report.status === 'succeeded' ? flags.extra?.(outcome.report) : undefined;
  writeReport(ctx, outcome, extra);
  if (outcome.exitCode === ExitCode.interrupted) {
    ctx.io.stderr.write(`interrupted: the journal keeps the completed steps; continue with ${flags.resumeWith ?? 'assistant ask --apply'} --resume\n`);
  }
  return outcome.exitCode;
}

/** A dry run of a plan document in a session of its own. */
export async function dryRunInput(ctx: CommandContext, input: unknown, flags: ApplyFlags): Promise<number> {
  return withSession(ctx, (session) => dryRunInSession(ctx, session, input, flags), { profile: flags.profile, region: flags.region, filesDir: flags.filesDir, workspaceCode: flags.workspaceCode });
}

/** The dry run: only reads; the same prices and budget figures the apply would use. Exit 3 when applying would be refused. */
export async function dryRunInSession(ctx: CommandContext, session: Session, input: unknown, flags: ApplyFlags): Promise<number> {
  const backend = flags.secretBindings ? { ...session, predefined: { ...session.predefined, ...flags.secretBindings } } : session;
  const { preview, gated, duplicateNames, overBudget } = await dryRunPlan(backend, input, { destroyer: flags.destroyer, budget: limitOf(session, flags) });
  const doc = duplicateNames.length ? { ...preview, duplicate_names: duplicateNames } : preview;
  ctx.out.value(doc, { table: () => renderPreview(preview) });
  for (const w of preview.warnings) warn(ctx, w);
  if (gated) ctx.io.stderr.write('note: this plan has destructive steps; applying it needs --destroyer\n');
  return gated || overBudget || (duplicateNames.length && !flags.allowDuplicateNames) ? ExitCode.refused : ExitCode.ok;
}

function writeReport(ctx: CommandContext, { report, revealed }: ApplyOutcome, extra?: Record<string, string>): void {
  // Secrets of `reveal: true` steps go to stdout only, unredacted (masked everywhere else, never through MCP).
  const table = (colors: Colors) => [renderReport(report, colors), ...Object.entries(extra ?? {}).map(([k, v]) => `${k}: ${v}\n`)].join('');
  const shown = revealed
    ? { field: 'revealed', value: revealed, table: revealed.flatMap((r) => r.secrets.map((s) => `revealed: step ${r.step} ${s.path}: ${s.value}\n`)).join('') }
    : undefined;
  ctx.out.value({ ...report, ...extra }, { table, revealed: shown });
  ctx.io.stderr.write(renderReportError(report));
}
