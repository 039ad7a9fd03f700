import { gpucloudApi } from './gpucloud-api.js';
import { gpucloudWait } from './gpucloud-wait.js';
import type { StepExecutor } from './types.js';

/** Every step verb the engine can run; a plan using any other verb is invalid. */
export const EXECUTORS: ReadonlyMap<string, StepExecutor> = new Map([gpucloudApi, gpucloudWait].map((e) => [e.verb, e]));

export function executorFor(verb: string): StepExecutor | undefined {
  return EXECUTORS.get(verb);
}
