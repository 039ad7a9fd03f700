/**
 * The reads a deploy plan is compiled from, as one read-only plan run through the executor by the
 * caller: the catalogue (types, availability, images, serverless compute) and what the project has
 * (instances, startup scripts, container deployments, secrets), so a redeploy becomes an update.
 */
import type { Plan } from '../../../schemas/plan.js';
import { findKind } from './catalogue.js';
import { listPlan } from './static-plans.js';
import type { Target } from '../../core/deploy-types.js';
import type { LiveState } from './deploy-compile.js';

const KINDS: Record<Exclude<keyof LiveState, 'computeResources'>, string> = {
  instanceTypes: 'instance-types',
  availability: 'availability',
  images: 'images',
  instances: 'instances',
  scripts: 'scripts',
  containers: 'containers',
  secrets: 'secrets',
  containerTypes: 'container-types',
};

const NEEDED: Record<Target, (keyof LiveState)[]> = {
  instance: ['instanceTypes', 'availability', 'images', 'instances', 'scripts'],
  container: ['containers', 'secrets', 'containerTypes', 'computeResources'],
};

export function liveReadPlan(target: Target): { plan: Plan; keys: (keyof LiveState)[] } {
  return liveReadPlanOf(NEEDED[target], 'deploy');
}

/** The read plan of some of the live state, each reason prefixed with who reads it (`box manifest` reads the container part). */
export function liveReadPlanOf(keys: (keyof LiveState)[], reader: string): { plan: Plan; keys: (keyof LiveState)[] } {
  const commands = keys.map((k) =>
    k === 'computeResources'
      ? { args: ['gpucloud-api', 'GET', '/v1/serverless-compute-resources'], reason: `${reader}: list serverless compute` }
      : { ...listPlan(findKind(KINDS[k])!).commands[0]!, reason: `${reader}: list ${KINDS[k]}` },
  );
  return { plan: { version: 1, provider: 'gpucloud', commands }, keys };
}

export function liveStateFrom(keys: (keyof LiveState)[], results: unknown[]): LiveState {
  const state: LiveState = { instanceTypes: [], availability: [], images: [], instances: [], scripts: [], containers: [], secrets: [], containerTypes: [], computeResources: [] };
  keys.forEach((k, i) => (state[k] = Array.isArray(results[i]) ? (results[i] as unknown[]) : []));
  return state;
}
