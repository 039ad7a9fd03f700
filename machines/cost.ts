/**
 * Reading what the account costs: the one function behind every `cost` command, the MCP cost tool and
 * the budget guard's view of the live burn. The reads are a plan (costReadPlan) run through the one
 * executor; engine/providers/gpucloud/cost prices them; each reading is recorded as a snapshot for `cost trend`.
 */
import type { Config } from '../schemas/config.js';
import { historyProject } from '../engine/producers/ai/history.js';
import { costSummary, type CostSummary } from '../engine/providers/gpucloud/cost.js';
import { requireKind } from '../engine/providers/gpucloud/lookup.js';
import { COST_READ_KINDS, costReadPlan } from '../engine/providers/gpucloud/static-plans.js';
import { recordSnapshot } from '../engine/producers/cost/snapshots.js';
import { readPlan } from './apply/reads.js';
import type { PlanBackend } from './run-plan.js';

export interface CostReadOptions {
  home: string;
  env: Record<string, string | undefined>;
  sandbox: boolean;
  signal?: AbortSignal;
}

/** Which account snapshots belong to: the sandbox, the gpucloud project, or the API it talks to. */
export function costAccount(config: Config, env: Record<string, string | undefined>, sandbox: boolean): string {
  return historyProject({ projectId: config.gpucloud?.default_project_id ?? env.GPUCLOUD_PROJECT_ID, baseUrl: config.gpucloud?.base_url ?? env.GPUCLOUD_BASE_URL, sandbox });
}

/** The cost read plan's responses, in COST_READ_KINDS order, as costSummary takes them. */
export async function readCostData(backend: PlanBackend, signal?: AbortSignal): Promise<Parameters<typeof costSummary>[0]> {
  const results = await readPlan(backend, costReadPlan(COST_READ_KINDS.map((k) => requireKind(k))), { signal });
  const [instances, volumes, clusters, balance, instanceTypes, volumeTypes, clusterTypes] = results;
  return { instances, volumes, clusters, balance, instanceTypes, volumeTypes, clusterTypes };
}

/**
 * Reads and prices the account now and records the snapshot. The history is a convenience: when it
 * cannot be written (a full disk, a folder in the file's place) the figures are still answered, with a warning.
 */
export async function readAccountCost(backend: PlanBackend & { config: Config }, o: CostReadOptions & { warn?: (message: string) => void }): Promise<CostSummary> {
  const s = costSummary(await readCostData(backend, o.signal), Date.now());
  await recordSnapshot(o.home, {
    at: s.as_of,
    provider: s.provider,
    account: costAccount(backend.config, o.env, o.sandbox),
    currency: s.currency,
    balance: s.balance,
    hourly_cost: s.hourly_cost,
    resources: s.resources.length,
  }).catch((err: NodeJS.ErrnoException) => o.warn?.(`the cost snapshot was not recorded (${err.code ?? err.message}); trend and anomalies miss this reading`));
  return s;
}
