/**
 * gpucloud's maker capability: the catalogue a model (or the built-in planner) plans against — types,
 * locations, images, SSH keys, availability — and the current instances, clusters and volumes it
 * resolves names with, read in one read-only plan.
 */
import type { MakerCapability } from '../../core/capabilities.js';
import type { Plan } from '../../../schemas/plan.js';
import { findKind } from './catalogue.js';
import { listPlan } from './static-plans.js';
import { apiDefaultNotes } from './priced-defaults.js';

/** Catalogue name passed to the maker → catalogue kind read for it. */
const CONTEXT_KINDS: Record<string, string> = {
  instances: 'instances',
  clusters: 'clusters',
  volumes: 'volumes',
  instanceTypes: 'instance-types',
  locations: 'locations',
  images: 'images',
  clusterImages: 'cluster-images',
  clusterTypes: 'cluster-types',
  sshKeys: 'ssh-keys',
  availability: 'availability',
};

export const gpucloudMaker: MakerCapability = {
  async prepare(_request, { read, predefined, onPhase }) {
    onPhase?.('reading the gpucloud catalogue');
    const names = Object.keys(CONTEXT_KINDS);
    const plan: Plan = { version: 1, provider: 'gpucloud', commands: names.flatMap((n) => listPlan(findKind(CONTEXT_KINDS[n]!)!).commands) };
    const reads = await read(plan);
    const data = Object.fromEntries(names.map((n, i) => [n, Array.isArray(reads[i]) ? (reads[i] as unknown[]) : []]));
    return {
      catalogue: data,
      lookup: { instances: data.instances as never, clusters: data.clusters as never, volumes: data.volumes as never },
      defaults: predefined,
    };
  },
  statedDefaults: apiDefaultNotes,
};
