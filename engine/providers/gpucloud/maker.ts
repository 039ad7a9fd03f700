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

/** The catalogue gpucloud's maker reads (plain API records), by the names the model sees. */
export interface GpuCloudMakerCatalogue {
  instanceTypes?: unknown[];
  locations?: unknown[];
  images?: unknown[];
  sshKeys?: unknown[];
  availability?: unknown[];
  clusterImages?: unknown[];
  clusterTypes?: unknown[];
  [key: string]: unknown[] | undefined;
}

export interface LookupInstance {
  id: string;
  hostname: string;
  status?: string;
  location?: string;
  instance_type?: string;
}
export interface LookupCluster {
  id: string;
  hostname: string;
  status?: string;
}
export interface LookupVolume {
  id: string;
  name: string;
  location?: string;
  status?: string;
  instance_id?: string | null;
}

/** gpucloud's current records as its API lists them (MakerInput.lookup), which the built-in planner resolves names with. */
export interface GpuCloudLookup {
  instances?: LookupInstance[];
  clusters?: LookupCluster[];
  volumes?: LookupVolume[];
}

export const gpucloudMaker: MakerCapability = {
  // Its instances carry the auto-stop watcher (a startup script): the account's scripts are listed first.
  autostopScripts: () => listPlan(findKind('scripts')!),
  async prepare(_request, { read, predefined, onPhase }) {
    onPhase?.('reading the gpucloud catalogue');
    const names = Object.keys(CONTEXT_KINDS);
    const plan: Plan = { version: 1, provider: 'gpucloud', commands: names.flatMap((n) => listPlan(findKind(CONTEXT_KINDS[n]!)!).commands) };
    const reads = await read(plan);
    const data = Object.fromEntries(names.map((n, i) => [n, Array.isArray(reads[i]) ? (reads[i] as unknown[]) : []]));
    return {
      catalogue: data,
      lookup: { instances: data.instances, clusters: data.clusters, volumes: data.volumes },
      defaults: predefined,
    };
  },
  statedDefaults: apiDefaultNotes,
};
