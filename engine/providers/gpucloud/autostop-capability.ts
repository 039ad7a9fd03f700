/**
 * gpucloud's `autostop` capability (engine/core/capabilities.ts): the reads `autostop check` and
 * `autostop resume` run through the executor, the statuses of a hibernation (./hibernation.ts), and
 * the savings of the hibernations auto-stop recorded. A light module: the pricing (./cost.ts) loads
 * when `cost summary` prices them.
 */
import type { AutostopCapability } from '../../core/capabilities.js';
import { findKind } from './catalogue.js';
import { HIBERNATION_STATUSES } from './hibernation.js';
import { getByIdPlan, listPlan } from './static-plans.js';

const kind = (name: string) => findKind(name)!;

export const gpucloudAutostop: AutostopCapability = {
  reads: {
    instances: () => listPlan(kind('instances')),
    instance: (id) => getByIdPlan(kind('instances'), id),
    script: (id) => getByIdPlan(kind('scripts'), id),
    volumes: () => listPlan(kind('volumes')),
  },
  statuses: HIBERNATION_STATUSES,
  async savings(periods, instances, volumes, now) {
    const { hibernationSavings } = await import('./cost.js');
    return hibernationSavings(periods, instances, volumes, now);
  },
};
