// The Compute Engine price table the budget reads (engine/providers/cloud_b/prices.ts). Rewritten as a
// whole by `node scripts/refresh-prices.mjs cloud_b [--region R]…` from the Cloud Billing Catalog API;
// edit by hand only to add a type, and keep the date and source honest.
import type { PriceTable } from '../../core/kits/cli/pricing.js';

export const GCE_PRICES: PriceTable = {
  basis: 'Compute Engine on-demand, Linux, machine types with their bundled GPUs; `accelerator/…` per attached GPU (disks and external IPs are billed on top)',
  currency: 'usd',
  date: '2025-01-01',
  source: "hand-entered from Google Cloud's public on-demand price list",
  regions: {
    'us-central1': {
      'e2-micro': 0.008376,
      'e2-small': 0.016751,
      'e2-medium': 0.033503,
      'e2-standard-2': 0.067006,
      'e2-standard-4': 0.134012,
      'e2-standard-8': 0.268024,
      'e2-standard-16': 0.536048,
      'e2-highmem-2': 0.090381,
      'e2-highcpu-2': 0.049468,
      'n1-standard-1': 0.0475,
      'n1-standard-2': 0.095,
      'n1-standard-4': 0.19,
      'n1-standard-8': 0.38,
      'n1-standard-16': 0.76,
      'n1-highmem-2': 0.1184,
      'n1-highcpu-2': 0.0709,
      'n2-standard-2': 0.097118,
      'n2-standard-4': 0.194236,
      'n2-standard-8': 0.388472,
      'n2-standard-16': 0.776944,
      'n2d-standard-2': 0.084492,
      'n2d-standard-4': 0.168984,
      'c2-standard-4': 0.2088,
      'c2-standard-8': 0.4176,
      'c3-standard-4': 0.201608,
      'c3-standard-8': 0.403216,
      'g2-standard-4': 0.70683,
      'g2-standard-8': 0.85362,
      'a2-highgpu-1g': 3.673385,
      'a2-highgpu-2g': 7.34677,
      'a2-highgpu-4g': 14.69354,
      'a2-highgpu-8g': 29.38708,
      'a3-highgpu-8g': 88.2522,
      'accelerator/nvidia-tesla-t4': 0.35,
      'accelerator/nvidia-tesla-p4': 0.6,
      'accelerator/nvidia-tesla-p100': 1.46,
      'accelerator/nvidia-tesla-v100': 2.48,
    },
  },
};

/** The GKE cluster management fee, per cluster and hour (Standard edition). */
export const GKE_CLUSTER_HOURLY = 0.1;
