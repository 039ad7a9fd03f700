/**
 * The record of one run for the team's history (issue 41): built here, at the one apply path, from what
 * the run really did — the checked plan's classes and canonical requests, the report's step outcomes,
 * the IDs created, the priced hourly change — and handed to the session's reporter (engine/core/config/
 * run-outbox.ts), which queues and sends it. Nothing here can fail or delay an apply beyond the
 * reporter's budget: every error is swallowed (the history is a view, the apply is the fact).
 *
 * Never a secret: the report's requests are already redacted; the record as a whole goes through the
 * one masker (engine/core/redact.ts) with the run's secret bindings registered first.
 */
import { ExitCode } from '../../engine/core/errors.js';
import type { CanonicalRequest, StepClass } from '../../engine/core/provider.js';
import { planHash } from '../../engine/core/plan/journal.js';
import type { PreviewablePlan } from '../../engine/core/plan/check.js';
import type { Preview } from '../../engine/core/plan/preview.js';
import { maskSecretLooking, registerSecret } from '../../engine/core/redact.js';
import type { Plan } from '../../schemas/plan.js';
import type { RunRecord } from '../../schemas/backend-api.js';
import type { RunReport } from '../../schemas/run-report.js';
import type { PlanBackend } from '../run/run-plan.js';
import type { PricedPlan } from './price.js';

/** What the apply learned on its way, for the record (filled as it goes; a refusal leaves some unset). */
export interface ApplyTrace {
  checked?: PreviewablePlan;
  /** The priced change of the hourly burn (the budget's figure, or priced for the record). */
  hourly?: { change: number; currency: string };
  /** The ID each create step made or adopted (engine/core/plan/names.ts RunCreates). */
  createdIds?: ReadonlyMap<number, string>;
  /** Each step's provider (from its verb). */
  providerOf?: readonly string[];
}

type Change = Exclude<StepClass['effect'], 'read'>;

/** The sum of the priced steps' hourly differences (a destroy or scale-down counts negative). */
export function hourlyChangeOf(priced: PricedPlan): { change: number; currency: string } | undefined {
  const lines = [...priced.prices.values()].map((p) => p.price).filter((p) => p.price === 'priced');
  if (!lines.length) return undefined;
  return { change: round(lines.reduce((s, p) => s + (p.price === 'priced' ? p.per_hour : 0), 0)), currency: priced.currency };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function canonicalOf(r: CanonicalRequest | undefined): RunRecord['steps'][number]['canonical'] {
  if (!r) return undefined;
  return { method: r.method, path: r.path, query: r.query.map(([k, v]) => [k, v] as [string, string]), ...(r.body !== undefined ? { body: r.body } : {}) };
}

function planOf(input: unknown): Plan | undefined {
  const p = input as Plan | undefined;
  return p && typeof p === 'object' && Array.isArray(p.commands) ? p : undefined;
}

function providersOf(plan: Plan | undefined): string[] {
  const p = plan?.provider;
  return (Array.isArray(p) ? p : typeof p === 'string' ? [p] : []).map(String).slice(0, 32);
}

function hashOf(plan: Plan | undefined, input: unknown): string {
  try {
    return planHash((plan ?? input) as Plan);
  } catch {
    return 'unhashable';
  }
}

/** The steps as run (from the report) or, for a refusal, as planned and not run. */
function stepsOf(checked: PreviewablePlan | undefined, report: RunReport | undefined): RunRecord['steps'] {
  if (!checked) return [];
  return checked.plan.commands.map((c, index) => {
    const s = report?.steps.find((x) => x.index === index);
    return {
      index,
      reason: c.reason,
      request: s?.request ?? c.args.join(' '),
      canonical: canonicalOf(checked.requests[index]),
      effect: checked.classes[index]?.effect ?? 'destroy',
      status: s?.status ?? 'not_run',
      ...(s?.http_status !== undefined ? { http_status: s.http_status } : {}),
      ...(s?.error ? { error: { code: s.error.code, message: s.error.message } } : {}),
    };
  });
}

/** What the run created or changed, with the IDs it learned (a create's response, or the ID the step acted on). */
function resourcesOf(checked: PreviewablePlan | undefined, report: RunReport | undefined, trace: ApplyTrace): RunRecord['resources'] {
  if (!checked || !report) return [];
  const out: RunRecord['resources'] = [];
  for (const s of report.steps) {
    const cls = checked.classes[s.index];
    if (!cls || cls.effect === 'read') continue;
    if (!(s.status === 'succeeded' || (s.status === 'failed' && s.changed === true))) continue;
    const provider = trace.providerOf?.[s.index] ?? checked.plan.commands[s.index]?.args[0] ?? '';
    const body = checked.requests[s.index]?.body as Record<string, unknown> | undefined;
    const acted = typeof body?.id === 'string' ? body.id : Array.isArray(body?.id) ? (body!.id as unknown[]).join(',') : undefined;
    const id = trace.createdIds?.get(s.index) ?? s.created ?? (cls.effect === 'create' ? Object.values(s.produced ?? {})[0] : undefined) ?? acted;
    out.push({ provider, effect: cls.effect as Change, ...(cls.kind ? { kind: cls.kind } : {}), ...(cls.name ? { name: cls.name } : {}), ...(id ? { id } : {}) });
  }
  return out;
}

const statusOfError = (err: unknown): { status: RunRecord['status']; exit: number; code: string; message: string } => {
  const e = err as { exitCode?: number; code?: string; message?: string };
  const exit = typeof e?.exitCode === 'number' ? e.exitCode : ExitCode.failed;
  const status = exit === ExitCode.refused ? 'refused' : exit === ExitCode.invalidInput ? 'invalid' : exit === ExitCode.interrupted ? 'cancelled' : 'failed';
  return { status, exit, code: e?.code ?? 'error', message: String(e?.message ?? err).slice(0, 4000) };
};

export interface ApplyRecordInput {
  input: unknown;
  startedAt: Date;
  trace: ApplyTrace;
  outcome?: { report: RunReport; exitCode: number };
  error?: unknown;
  secretBindings?: Record<string, string>;
}

export function applyRecord(r: ApplyRecordInput): RunRecord {
  const plan = r.trace.checked?.plan ?? planOf(r.input);
  const report = r.outcome?.report;
  const failure = r.error !== undefined ? statusOfError(r.error) : undefined;
  const status: RunRecord['status'] = failure?.status ?? (report!.status === 'succeeded' ? 'succeeded' : report!.status === 'cancelled' ? 'cancelled' : 'failed');
  const error = failure ? { code: failure.code, message: failure.message } : report?.error ? { code: report.error.code, message: report.error.message } : undefined;
  return finish(
    {
      kind: 'apply',
      status,
      exit_code: failure?.exit ?? r.outcome!.exitCode,
      started_at: r.startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      plan_hash: hashOf(plan, r.input),
      ...(plan?.summary ? { summary: String(plan.summary).slice(0, 2000) } : {}),
      providers: providersOf(plan),
      ...(r.trace.hourly ? { hourly_change: r.trace.hourly.change, currency: r.trace.hourly.currency } : {}),
      ...(error ? { error } : {}),
      steps: stepsOf(r.trace.checked, report),
      resources: resourcesOf(r.trace.checked, report, r.trace),
      ...(plan ? { plan } : {}),
    },
    r.secretBindings,
  );
}

export function dryRunRecord(previewable: PreviewablePlan, preview: Preview, startedAt: Date, refused: boolean): RunRecord {
  const { plan } = previewable;
  return finish(
    {
      kind: 'dry_run',
      status: 'previewed',
      exit_code: refused ? ExitCode.refused : ExitCode.ok,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      plan_hash: hashOf(plan, plan),
      ...(plan.summary ? { summary: String(plan.summary).slice(0, 2000) } : {}),
      providers: providersOf(plan),
      ...(preview.costs.length ? { hourly_change: round(preview.total_per_hour), currency: preview.balance?.currency ?? 'usd' } : {}),
      steps: stepsOf(previewable, undefined),
      resources: [],
      plan,
    },
    undefined,
  );
}

/** Masked by the one masker, with this run's secret bindings known to it. */
function finish(record: RunRecord, secretBindings?: Record<string, string>): RunRecord {
  for (const v of Object.values(secretBindings ?? {})) registerSecret(v);
  return maskSecretLooking(record);
}

/** Hands a record to the session's reporter, if it has one; never throws. */
export async function reportRun(backend: PlanBackend, build: () => RunRecord): Promise<void> {
  if (!backend.runHistory) return;
  try {
    await backend.runHistory.report(build());
  } catch {
    // The history is a view: a record that could not be built or sent never changes the apply's outcome.
  }
}
