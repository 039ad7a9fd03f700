import type { Plan } from '../../../schemas/plan.js';
import { recordPath, type KindSpec } from './catalogue.js';

/** Producers for the static commands: each compiles to a plan and runs through the same executor as any plan. */

const plan = (commands: Plan['commands']): Plan => ({ version: 1, provider: 'gpucloud', commands });

export function listPlan(spec: KindSpec): Plan {
  const path = spec.listQuery ? `${spec.path}?${spec.listQuery}` : spec.path;
  return plan([{ args: ['gpucloud-api', 'GET', path], reason: `list ${spec.kind}` }]);
}

export function getByIdPlan(spec: KindSpec, id: string): Plan {
  return plan([{ args: ['gpucloud-api', 'GET', recordPath(spec, id)], reason: `get ${spec.singular} ${id}` }]);
}

/** The instance actions of the wire reference (§5). */
export const INSTANCE_ACTIONS = [
  'boot', 'start', 'shutdown', 'force_shutdown', 'hibernate', 'restore', 'configure_spot', 'delete', 'discontinue', 'delete_stuck',
] as const;

export function instanceActionPlan(action: string, id: string, hostname: string): Plan {
  return plan([
    { args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action, id })], reason: `${action} instance ${hostname}` },
  ]);
}

/** The reads `cost` prices (engine/providers/gpucloud/cost.ts): the account's resources, its balance and the live price lists, in this order (the deployments and their prices are read after). */
export const COST_READ_KINDS = ['instances', 'volumes', 'clusters', 'balance', 'instance-types', 'volume-types', 'cluster-types'] as const;

export function costReadPlan(specs: readonly KindSpec[]): Plan {
  return plan(specs.map((spec) => listPlan(spec).commands[0]!).map((c) => ({ ...c, reason: `cost: ${c.reason}` })));
}
