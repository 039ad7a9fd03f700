/**
 * The console's live page (issue 41 item 2): what a tenant's accounts run and burn now, read with the
 * credentials the backend holds for that tenant and env, through the same read plans and the one
 * executor as `assistant cost summary` (machines/apply/reads.ts readPlan: a read plan is checked to
 * read only, so nothing here can change a resource), and the availability matrix from the same reads
 * as `gpucloud list availability --matrix`.
 *
 * Which providers: those with live cost figures and stored credentials (the registry's capabilities;
 * no provider is named here). Whose credentials: only the signed-in tenant's, for the env shown: the
 * client of a read is built from that one record (ConnectOptions.stored) and lives for that one read.
 * The cloud's URL is the server's configuration, never the tenant's. Every read is bounded: a slow or
 * down cloud is an error on the page, not a hung page.
 */
import type { CostSummary } from '../../engine/core/capabilities.js';
import { DEFAULT_CREDENTIAL_NAME } from '../../engine/core/config/backend-store.js';
import { OperationError } from '../../engine/core/errors.js';
import { buildMatrix, matrixPlan, type AvailabilityMatrix } from '../../engine/producers/charts/availability-matrix.js';
import { providersWith } from '../../engine/providers/index.js';
import type { Plan } from '../../schemas/plan.js';
import { readPlan } from '../../machines/apply/reads.js';
import { readFailure, storedBackend, type ReachSettings } from './stored-backend.js';
import type { CredentialStore, Principal } from '../store.js';

/** How the console's reading pages (live, drift) reach the clouds, and how much the drift page may do. */
export interface LiveSettings extends ReachSettings {
  /** The most plans the drift page compares per request (./drift.ts, ASSISTANT_BACKEND_UI_DRIFT_PLANS). */
  driftPlans: number;
}

/** The bound on one provider's live read: ASSISTANT_BACKEND_UI_LIVE_TIMEOUT_S, 15 s by default (1–120). */
export function liveTimeoutMsFrom(env: Record<string, string | undefined>): number {
  const s = Number(env.ASSISTANT_BACKEND_UI_LIVE_TIMEOUT_S?.trim() || 15);
  return Math.round(Math.min(120, Math.max(1, Number.isFinite(s) ? s : 15)) * 1000);
}

export type ProviderLive =
  | { provider: string; state: 'read'; summary: CostSummary; matrix?: AvailabilityMatrix; matrixError?: string }
  | { provider: string; state: 'no_credentials'; what: string }
  | { provider: string; state: 'error'; code: string; message: string };

/** Reads and prices every account of the tenant's env that has live figures and stored credentials. */
export async function readLive(store: CredentialStore, who: Principal, env: string, address: string, s: LiveSettings): Promise<ProviderLive[]> {
  const providers = (await providersWith('cost')).filter((p) => p.capabilities.cost.live && p.capabilities.credentials?.fields?.length);
  return Promise.all(
    providers.map(async (p): Promise<ProviderLive> => {
      let record: Awaited<ReturnType<CredentialStore['get']>>;
      try {
        record = await store.get({ ...who, address }, { tenant: who.tenant, env, provider: p.name, name: DEFAULT_CREDENTIAL_NAME });
      } catch (err) {
        // A record this server cannot decrypt (a lost master key) is that provider's error box, not a broken page.
        return { provider: p.name, state: 'error', ...readFailure(err, false, s.timeoutMs) };
      }
      if (!record) return { provider: p.name, state: 'no_credentials', what: p.capabilities.credentials!.what ?? `${p.name} credentials` };
      const bound = AbortSignal.timeout(s.timeoutMs);
      // A plan of another provider would need that provider's credentials: not these.
      const fields = async (name: string) => {
        if (name !== p.name) throw new OperationError('not_allowed', `the live read of ${p.name} reached for ${name}`);
        return record!.fields;
      };
      const backend = storedBackend(fields, s, bound);
      const read = (plan: Plan) => readPlan(backend, plan, { signal: bound });
      try {
        const summary = await p.capabilities.cost.live!.price(read, Date.now());
        const plan = matrixPlan('availability');
        if (plan.provider !== p.name) return { provider: p.name, state: 'read', summary };
        try {
          return { provider: p.name, state: 'read', summary, matrix: buildMatrix('availability', await read(plan)) };
        } catch (err) {
          return { provider: p.name, state: 'read', summary, matrixError: Object.values(readFailure(err, bound.aborted, s.timeoutMs)).join(': ') };
        }
      } catch (err) {
        return { provider: p.name, state: 'error', ...readFailure(err, bound.aborted, s.timeoutMs) };
      } finally {
        await backend.close().catch(() => undefined);
      }
    }),
  );
}
