/**
 * What `box catalog` and `box manifest` read from gpucloud, as one read-only plan the caller runs
 * through the executor: the catalogue regions are computed from (locations, availability, container
 * types, serverless compute) and, for a manifest, the project's secrets and container deployments.
 */
import type { Plan } from '../../../schemas/plan.js';
import { findKind } from '../../providers/gpucloud/catalogue.js';
import { listPlan } from '../../providers/gpucloud/static-plans.js';
import { liveReadPlanOf, liveStateFrom } from '../../providers/gpucloud/deploy-live.js';
import type { LiveState } from '../../providers/gpucloud/deploy-compile.js';
import type { ManifestLive } from './manifest.js';

const CATALOGUE: (keyof LiveState)[] = ['availability', 'containerTypes', 'computeResources'];
const PROJECT: (keyof LiveState)[] = ['secrets', 'containers'];

export function boxReadPlan(withProject: boolean): Plan {
  const { plan } = liveReadPlanOf(withProject ? [...CATALOGUE, ...PROJECT] : CATALOGUE, 'box');
  const locations = { ...listPlan(findKind('locations')!).commands[0]!, reason: 'box: list locations' };
  return { ...plan, commands: [locations, ...plan.commands] };
}

export function boxLiveFrom(results: unknown[], withProject: boolean): ManifestLive {
  const [locations, ...rest] = results;
  const state = liveStateFrom(withProject ? [...CATALOGUE, ...PROJECT] : CATALOGUE, rest);
  return {
    locations: Array.isArray(locations) ? locations : [],
    availability: state.availability,
    containerTypes: state.containerTypes,
    computeResources: state.computeResources,
    secrets: state.secrets,
    containers: state.containers,
  };
}
