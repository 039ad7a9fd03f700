/**
 * The console's drift page (issue 41 item 2): each plan the team applied in an env — the plan stored with
 * its newest run that reached the cloud, "the same plan" being the same plan hash, as the run diff has it
 * (backend/runs.ts appliedPlans) — compared with what the tenant's accounts hold now, by the code of
 * `assistant plan diff` (engine/producers/drift/plan-diff.ts and each provider's `drift` hook), with the
 * credentials the backend stores for the tenant and env (./stored-backend.ts, as the live page reads).
 *
 * Read-only by construction: the stored plan is only validated and compared, never run; the only thing
 * that runs is the drift hooks' list reads, through the read-plan path (machines/apply/reads.ts), which
 * refuses any step that is not a read before anything is sent.
 *
 * Bounded per request: at most `driftPlans` plans (the newest applied; the page says when it cut), and
 * one deadline, `timeoutMs`, for all of the page's reads (the plans are compared one after another: a
 * deadline per read would let a hung cloud hold the page for one timeout per list). A list is read once
 * per page however many plans need it, and a failed read is not retried for the next plan.
 *
 * Per plan: in sync, drifted (the differences, masked by the one masker), or can't tell and why: no
 * credentials stored for a provider, a provider that cannot compare its resources, a read that failed,
 * or a stored plan this server cannot validate.
 */
import { DEFAULT_CREDENTIAL_NAME } from '../../engine/core/config/backend-store.js';
import type { DriftReport } from '../../engine/core/drift-types.js';
import { maskSecretLooking } from '../../engine/core/redact.js';
import { planDrift } from '../../engine/producers/drift/plan-diff.js';
import { readPlan } from '../../machines/apply/reads.js';
import type { RunDetail } from '../../schemas/backend-api.js';
import { PREDEFINED_BINDINGS, type Plan } from '../../schemas/plan.js';
import type { RunHistory } from '../runs.js';
import type { CredentialStore, Principal } from '../store.js';
import type { LiveSettings } from './live.js';
import { NoStoredCredentials, readFailure, storedBackend } from './stored-backend.js';

/** A list read of the page failed: its masked one-line error, shown on every plan that needed the list. */
class ReadFailed extends Error {
  constructor(readonly failure: { code: string; message: string }) {
    super(failure.message);
  }
}

/** The most plans the drift page checks per request: ASSISTANT_BACKEND_UI_DRIFT_PLANS, 20 by default (1–200). */
export function driftPlansFrom(env: Record<string, string | undefined>): number {
  const n = Number(env.ASSISTANT_BACKEND_UI_DRIFT_PLANS?.trim() || 20);
  return Math.round(Math.min(200, Math.max(1, Number.isFinite(n) ? n : 20)));
}

/**
 * The bindings a user's config predefines (DEFAULT_LOCATION…) are not known to the server: each stands
 * for itself, so the plan validates, and a field set from one still reads `<NAME>`, which the drift
 * hooks leave out of the comparison (as they do a name bound only at run time). `<FILES>` is not
 * predefined anywhere but the CLI's `--files`.
 */
const UNKNOWN_HERE: Record<string, string> = Object.fromEntries(PREDEFINED_BINDINGS.filter((n) => n !== 'FILES').map((n) => [n, `<${n}>`]));

export type CannotTell = 'no_credentials' | 'not_comparable' | 'read_failed' | 'invalid_plan';

export type PlanDrift = { run: RunDetail } & (
  | { state: 'in_sync'; report: DriftReport }
  | { state: 'drifted'; report: DriftReport }
  | { state: 'unknown'; why: CannotTell; code: string; message: string; report?: DriftReport; /** The provider without credentials. */ provider?: string }
);

export interface DriftView {
  plans: PlanDrift[];
  /** How many plans were applied in the env; more than `plans.length` when the page was cut. */
  applied: number;
  /** The cap that cut it (ASSISTANT_BACKEND_UI_DRIFT_PLANS). */
  cap: number;
}

/** Every applied plan of the tenant's env (up to the cap) against the live accounts. */
export async function readDrift(store: CredentialStore, runs: RunHistory, who: Principal, env: string, address: string, s: LiveSettings): Promise<DriftView> {
  const { plans: applied, runs: latest } = await runs.appliedPlans(who.tenant, env, s.driftPlans);
  if (!latest.length) return { plans: [], applied, cap: s.driftPlans };
  // Each provider's record is looked up (and decrypted, and audit-logged) once per page, when a read first needs it.
  const records = new Map<string, Promise<Record<string, string> | undefined>>();
  const fieldsOf = (provider: string) => {
    if (!records.has(provider)) records.set(provider, store.get({ ...who, address }, { tenant: who.tenant, env, provider, name: DEFAULT_CREDENTIAL_NAME }).then((r) => r?.fields));
    return records.get(provider)!;
  };
  const page = new AbortController();
  const backend = storedBackend(fieldsOf, s, page.signal, UNKNOWN_HERE);
  // One read per provider and list for the whole page, all under the page's one deadline; a failure is kept.
  const deadline = AbortSignal.timeout(s.timeoutMs);
  const reads = new Map<string, Promise<unknown>>();
  const read = (plan: Plan): Promise<unknown> => {
    const key = JSON.stringify([plan.provider, plan.commands.map((c) => c.args)]);
    if (!reads.has(key)) {
      const provider = String(plan.provider);
      const result = (async () => {
        // Past the page's deadline nothing is asked for: not even the record (a decryption and an audit entry
        // for a read that would not be sent).
        if (deadline.aborted) throw new ReadFailed(readFailure(undefined, true, s.timeoutMs));
        // Asked first, so nothing is read (no token fetched) for an account the backend holds no record of.
        // A record this server cannot decrypt (a lost master key) fails the read like a down cloud.
        const fields = await fieldsOf(provider).catch((err: unknown) => {
          throw new ReadFailed(readFailure(err, false, s.timeoutMs));
        });
        if (!fields) throw new NoStoredCredentials(provider);
        try {
          const results = await readPlan(backend, plan, { signal: deadline });
          return results[results.length - 1];
        } catch (err) {
          throw new ReadFailed(readFailure(err, deadline.aborted, s.timeoutMs));
        }
      })();
      result.catch(() => undefined);
      reads.set(key, result);
    }
    return reads.get(key)!;
  };
  try {
    const plans: PlanDrift[] = [];
    for (const run of latest) plans.push(await driftOf(run, backend, read));
    return { plans, applied, cap: s.driftPlans };
  } finally {
    page.abort();
    await backend.close().catch(() => undefined);
  }
}

async function driftOf(run: RunDetail, backend: Parameters<typeof planDrift>[0], read: (plan: Plan) => Promise<unknown>): Promise<PlanDrift> {
  let report: DriftReport;
  try {
    report = maskSecretLooking(await planDrift(backend, run.record.plan, { all: false, read }));
  } catch (err) {
    if (err instanceof NoStoredCredentials) {
      return { run, state: 'unknown', why: 'no_credentials', code: err.code, message: `no ${err.provider} credentials are stored for ${run.env}`, provider: err.provider };
    }
    if (err instanceof ReadFailed) return { run, state: 'unknown', why: 'read_failed', ...err.failure };
    // Not a read: the stored plan itself (a provider this server does not know, a plan that no longer validates).
    return { run, state: 'unknown', why: 'invalid_plan', ...readFailure(err, false, 0) };
  }
  if (report.drift) return { run, state: 'drifted', report };
  if (report.not_checked.length) {
    const names = report.not_checked.join(', ');
    return { run, state: 'unknown', why: 'not_comparable', code: 'no_drift', message: `${names} cannot compare ${report.not_checked.length > 1 ? 'their' : 'its'} resources with the plan`, report };
  }
  return { run, state: 'in_sync', report };
}
