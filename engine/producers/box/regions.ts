/**
 * Where a box can run: the gpucloud locations that offer serverless containers, and what the container
 * sizes cost there. Computed from plain catalogue records (locations, instance availability, container
 * types, serverless compute resources) that the caller read through the executor.
 *
 * gpucloud's container deployments take no location: the platform places them. A location "offers" a
 * container size when the size's compute is available now and its machine type (the container type's
 * `instance_type`) is available in that location. The region a manifest names is checked against this
 * and recorded in the plan; it narrows the sizes to those offered there.
 */
import { findRow, num } from '../../providers/gpucloud/prices.js';

export interface ContainerSize {
  /** The serverless compute name (`General Compute`, `RTX4500Ada`, `H100`, …), what `compute.name` takes. */
  name: string;
  /** Compute units (GPUs) per replica; a box uses the smallest, 1. */
  size: number;
  gpus: number;
  gpu_memory_gb: number;
  cpu_cores?: number;
  memory_gb?: number;
  instance_type: string;
  per_hour: number;
  currency: string;
}

export interface Region {
  code: string;
  name: string;
  country?: string;
  /** Sizes offered there, cheapest first. */
  sizes: ContainerSize[];
}

/** The catalogue records regions are computed from. */
export interface RegionCatalogue {
  locations: unknown[];
  availability: unknown[];
  containerTypes: unknown[];
  computeResources: unknown[];
}

const str = (r: unknown, k: string): string | undefined => {
  const v = (r as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'string' ? v : undefined;
};

/** A size's name as typed on the command line: case and spaces/dashes/underscores do not matter. */
export const sizeKey = (name: string) => name.trim().toLowerCase().replace(/[\s_-]+/g, '-');

/** Single-unit serverless compute available now, with its container type's price; cheapest first. */
function containerSizes(cat: RegionCatalogue): ContainerSize[] {
  const out: ContainerSize[] = [];
  for (const c of cat.computeResources) {
    const name = str(c, 'name');
    if (!name || (c as { is_available?: unknown }).is_available !== true || num((c as { size?: unknown }).size) !== 1) continue;
    const type = findRow(cat.containerTypes, 'name', name);
    const perHour = num(type?.serverless_price);
    const instanceType = str(type, 'instance_type');
    if (!type || perHour === undefined || !instanceType) continue;
    out.push({
      name,
      size: 1,
      gpus: num(type.gpu?.number_of_gpus) ?? 0,
      gpu_memory_gb: num(type.gpu_memory?.size_in_gigabytes) ?? 0,
      cpu_cores: num(type.cpu?.number_of_cores),
      memory_gb: num(type.memory?.size_in_gigabytes),
      instance_type: instanceType,
      per_hour: perHour,
      currency: str(type, 'currency') ?? 'usd',
    });
  }
  return out.sort((a, b) => a.per_hour - b.per_hour || a.name.localeCompare(b.name));
}

/** Every location that offers at least one container size, in the catalogue's order. */
export function containerRegions(cat: RegionCatalogue): Region[] {
  const sizes = containerSizes(cat);
  const regions: Region[] = [];
  for (const loc of cat.locations) {
    const code = str(loc, 'code');
    if (!code) continue;
    const entry = cat.availability.find((a) => str(a, 'location_code') === code) as { availabilities?: unknown } | undefined;
    const available = new Set(Array.isArray(entry?.availabilities) ? entry.availabilities.map(String) : []);
    const offered = sizes.filter((s) => available.has(s.instance_type));
    if (offered.length) regions.push({ code, name: str(loc, 'name') ?? code, country: str(loc, 'country_code'), sizes: offered });
  }
  return regions;
}
