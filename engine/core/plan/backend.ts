/** What a plan run needs from its surroundings: a producer hands a PlanBackend to the one apply path (machines/apply/). */
import type { ProviderSource, RunObserver } from '../provider.js';
import type { ReservationStore, RunReservations } from './reservations.js';
import type { RunRecord } from '../../../schemas/backend-api.js';

/** Where a run's steps get their providers' clients, and the signal that cancels the run. */
export interface RunContext {
  /** The client of a provider, built on first use (one per session). */
  client(provider: string): Promise<unknown>;
  signal: AbortSignal;
  /** The session's observer, used when a run is given none of its own (waits of static commands). */
  observer?: RunObserver;
}

/** What a producer needs to run a plan: the providers, the predefined bindings and a run context (a command's Session, the MCP server's backend). */
export interface PlanBackend {
  /** Loads the providers a plan needs (await `forPlan` before validating: engine/providers/index.ts). */
  providers: ProviderSource;
  predefined: Record<string, string>;
  runContext(): RunContext;
  /** Where creates reserve their names across processes (engine/core/plan/reservations.ts); none: not reserved. */
  reservations?: ReservationStore;
  /** The project or account names are unique in (reservation keys); SANDBOX_SCOPE under `--sandbox`. */
  scope?: string;
  /** Where the one apply path reports each run for the team's history (issue 41); none: not reported. */
  runHistory?: RunReporter;
}

/**
 * The scope of `--sandbox` runs. Their journals live apart, under the sandbox's own folder: a plan tried
 * in the sandbox must not count as applied (or be resumed) in the real cloud, and `sandbox reset` clears them.
 */
export const SANDBOX_SCOPE = 'sandbox';

/** How long one run report may spend sending the queue (the apply is over; this only delays the exit). */
export const REPORT_BUDGET_MS = 3_000;

/** Where a run is reported (the team's run history, engine/core/config/run-outbox.ts). */
export interface RunReporter {
  report(record: RunRecord): Promise<void>;
}

/**
 * A backend's name-reservation store that loads and opens the real one (reservations.ts: lock files, or
 * Redis) only when a run first reserves a name. Only creates reserve, so a read or a plan without creates
 * never loads the lock-file and Redis code (start-up is counted: test/core/startup.modules.test.ts). The
 * names one run reserves still share one holder (its RunReservations is made once, at its first reservation).
 */
export function reservationsOnFirstUse(open: () => Promise<ReservationStore>): ReservationStore {
  let store: Promise<ReservationStore> | undefined;
  return {
    forRun(run) {
      let reservations: Promise<RunReservations> | undefined;
      const opened = () => (reservations ??= (store ??= open()).then((s) => s.forRun(run)));
      return {
        async reserve(key, onWait) {
          return (await opened()).reserve(key, onWait);
        },
        async reserveMany(keys, onWait) {
          return (await opened()).reserveMany(keys, onWait);
        },
        async releaseAll() {
          // A run that reserved nothing has nothing to release (and loads nothing for it).
          if (reservations) await (await reservations).releaseAll();
        },
      };
    },
    async close() {
      // Nothing to close when no run reserved anything.
      const opened = await store?.catch(() => undefined);
      await opened?.close?.();
    },
  };
}
