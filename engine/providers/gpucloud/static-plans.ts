import type { Plan } from '../../../schemas/plan.js';
import { freezePlan } from '../../core/plan/frozen.js';
import { recordPath, type KindSpec } from './catalogue.js';

/** Producers for the static commands: each compiles to a plan and runs through the same executor as any plan. */

const plan = (commands: Plan['commands']): Plan => ({ version: 1, provider: 'gpucloud', commands });

const listPlans = new Map<KindSpec, Plan>();

/**
 * The list of one kind: one plan per kind, frozen, so that its check is made once (every MCP list call
 * and every `ask` context read runs it again; engine/core/plan/frozen.ts). Callers copy what they change.
 */
export function listPlan(spec: KindSpec): Plan {
  let made = listPlans.get(spec);
  if (!made) {
    const path = spec.listQuery ? `${spec.path}?${spec.listQuery}` : spec.path;
    made = freezePlan(plan([{ args: ['gpucloud-api', 'GET', path], reason: `list ${spec.kind}` }]));
    listPlans.set(spec, made);
  }
  return made;
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
