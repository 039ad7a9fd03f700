/**
 * Static catalogue data: locations, instance types, images, availability, cluster and container types,
 * serverless compute, volume types and long-term periods. Never persisted: it is the same on every start.
 */
import { createHash } from 'node:crypto';

/** Deterministic UUID (v5-shaped) from a name, so catalogue ids are stable across runs. */
export function stableUuid(name: string): string {
  const h = createHash('sha1').update(`gpucloud-emulator:${name}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const LOCATIONS = [
  { code: 'FIN-01', name: 'Finland 1', country_code: 'FI' },
  { code: 'FIN-02', name: 'Finland 2', country_code: 'FI' },
  { code: 'FIN-03', name: 'Finland 3', country_code: 'FI' },
  { code: 'ICE-01', name: 'Iceland 1', country_code: 'IS' },
] as const;

export const LOCATION_CODES: string[] = LOCATIONS.map((l) => l.code);

/** USD → EUR factor for `?currency=eur`. */
const EUR_PER_USD = 0.92;

export function convertPrice(usd: number, currency: string): number {
  const v = currency === 'eur' ? usd * EUR_PER_USD : usd;
  return Math.round(v * 10000) / 10000;
}

export function priceString(usd: number, currency: string): string {
  return convertPrice(usd, currency).toFixed(usd < 0.1 ? 4 : 2);
}

export function normCurrency(q: string | null): 'usd' | 'eur' {
  return q?.toLowerCase() === 'eur' ? 'eur' : 'usd';
}

// ---------------------------------------------------------------- images

export interface ImageSpec {
  image_type: string;
  name: string;
  details: string[];
  is_default: boolean;
  is_cluster: boolean;
  category: string;
  /** GPU images do not run on CPU-only types. */
  gpuOnly: boolean;
}

export const IMAGES: ImageSpec[] = [
  {
    image_type: 'ubuntu-24.04-cuda-12.8-open-docker',
    name: 'Ubuntu 24.04 + CUDA 12.8 Open + Docker',
    details: ['Ubuntu 24.04', 'CUDA 12.8', 'Docker'],
    is_default: true,
    is_cluster: false,
    category: 'ubuntu',
    gpuOnly: true,
  },
  {
    image_type: 'ubuntu-24.04-cuda-13.0-open-docker',
    name: 'Ubuntu 24.04 + CUDA 13.0 Open + Docker',
    details: ['Ubuntu 24.04', 'CUDA 13.0', 'Docker'],
    is_default: false,
    is_cluster: false,
    category: 'ubuntu',
    gpuOnly: true,
  },
  {
    image_type: 'ubuntu-22.04-cuda-12.4-docker',
    name: 'Ubuntu 22.04 + CUDA 12.4 + Docker',
    details: ['Ubuntu 22.04', 'CUDA 12.4', 'Docker'],
    is_default: false,
    is_cluster: false,
    category: 'ubuntu',
    gpuOnly: true,
  },
  {
    image_type: 'ubuntu-24.04',
    name: 'Ubuntu 24.04',
    details: ['Ubuntu 24.04'],
    is_default: false,
    is_cluster: false,
    category: 'ubuntu',
    gpuOnly: false,
  },
  {
    image_type: 'ubuntu-22.04',
    name: 'Ubuntu 22.04',
    details: ['Ubuntu 22.04'],
    is_default: false,
    is_cluster: false,
    category: 'ubuntu',
    gpuOnly: false,
  },
];

export const CLUSTER_IMAGES: ImageSpec[] = [
  {
    image_type: 'ubuntu-24.04-cuda-13.0-cluster',
    name: 'Ubuntu 24.04 + CUDA 13.0 + Slurm',
    details: ['Ubuntu 24.04', 'CUDA 13.0', 'Slurm'],
    is_default: true,
    is_cluster: true,
    category: 'slurm',
    gpuOnly: true,
  },
  {
    image_type: 'ubuntu-24.04-cuda-13.0-cluster-k8s',
    name: 'Ubuntu 24.04 + CUDA 13.0 + Kubernetes',
    details: ['Ubuntu 24.04', 'CUDA 13.0', 'Kubernetes'],
    is_default: false,
    is_cluster: true,
    category: 'kubernetes',
    gpuOnly: true,
  },
  {
    image_type: 'ubuntu-22.04-cuda-12.8-cluster',
    name: 'Ubuntu 22.04 + CUDA 12.8 + Slurm',
    details: ['Ubuntu 22.04', 'CUDA 12.8', 'Slurm'],
    is_default: false,
    is_cluster: true,
    category: 'slurm',
    gpuOnly: true,
  },
];

export function imageWire(img: ImageSpec): Record<string, unknown> {
  return {
    id: stableUuid(`image:${img.image_type}`),
    image_type: img.image_type,
    name: img.name,
    details: img.details,
    is_default: img.is_default,
    is_cluster: img.is_cluster,
    category: img.category,
  };
}

/** Finds an instance image by image_type or id. */
export function findImage(ref: string, list: ImageSpec[] = IMAGES): ImageSpec | undefined {
  return list.find((i) => i.image_type === ref || stableUuid(`image:${i.image_type}`) === ref);
}

export function osName(imageType: string): string {
  const img = findImage(imageType, [...IMAGES, ...CLUSTER_IMAGES]);
  return img?.details[0] ?? 'Ubuntu 24.04';
}

// ---------------------------------------------------------------- instance types

export interface InstanceTypeSpec {
  instance_type: string;
  model: string;
  name: string;
  gpus: number;
  gpuName: string;
  gpuMemPerGpu: number;
  cores: number;
  ramGb: number;
  price: number;
  spot: number;
  p2p: string;
  bestFor: string[];
  deployWarning?: string;
}

export const INSTANCE_TYPES: InstanceTypeSpec[] = [
  { instance_type: '1V100.6V', model: 'V100', name: 'Tesla V100 16GB', gpus: 1, gpuName: 'Tesla V100 16GB', gpuMemPerGpu: 16, cores: 6, ramGb: 23, price: 0.39, spot: 0.14, p2p: '', bestFor: ['Development', 'Small model inference'] },
  { instance_type: '8V100.48V', model: 'V100', name: 'Tesla V100 16GB', gpus: 8, gpuName: 'Tesla V100 16GB', gpuMemPerGpu: 16, cores: 48, ramGb: 184, price: 3.12, spot: 1.12, p2p: '50 GB/s', bestFor: ['Multi-GPU training'] },
  { instance_type: '1A100.22V', model: 'A100', name: 'A100 SXM4 80GB', gpus: 1, gpuName: 'A100 SXM4 80GB', gpuMemPerGpu: 80, cores: 22, ramGb: 120, price: 1.29, spot: 0.6, p2p: '', bestFor: ['Fine-tuning', 'Inference'] },
  { instance_type: '8A100.176V', model: 'A100', name: 'A100 SXM4 80GB', gpus: 8, gpuName: 'A100 SXM4 80GB', gpuMemPerGpu: 80, cores: 176, ramGb: 960, price: 10.32, spot: 4.8, p2p: '600 GB/s', bestFor: ['Large model training'] },
  { instance_type: '1H100.80S.22V', model: 'H100', name: 'H100 SXM5 80GB', gpus: 1, gpuName: 'H100 SXM5 80GB', gpuMemPerGpu: 80, cores: 22, ramGb: 185, price: 2.19, spot: 1.1, p2p: '', bestFor: ['Fine-tuning', 'Inference'] },
  { instance_type: '8H100.80S.176V', model: 'H100', name: 'H100 SXM5 80GB', gpus: 8, gpuName: 'H100 SXM5 80GB', gpuMemPerGpu: 80, cores: 176, ramGb: 1480, price: 17.52, spot: 8.8, p2p: '900 GB/s', bestFor: ['Large model training'] },
  { instance_type: '1H200.141S.44V', model: 'H200', name: 'H200 SXM5 141GB', gpus: 1, gpuName: 'H200 SXM5 141GB', gpuMemPerGpu: 141, cores: 44, ramGb: 185, price: 3.59, spot: 1.49, p2p: '', bestFor: ['Large model inference'] },
  { instance_type: '8H200.141S.176V', model: 'H200', name: 'H200 SXM5 141GB', gpus: 8, gpuName: 'H200 SXM5 141GB', gpuMemPerGpu: 141, cores: 176, ramGb: 1450, price: 28.72, spot: 11.92, p2p: '900 GB/s', bestFor: ['Large model training'] },
  { instance_type: '1RTX6000ADA.10V', model: 'RTX6000ADA', name: 'RTX 6000 Ada 48GB', gpus: 1, gpuName: 'RTX 6000 Ada 48GB', gpuMemPerGpu: 48, cores: 10, ramGb: 60, price: 1.19, spot: 0.4, p2p: '', bestFor: ['Rendering', 'Inference'] },
  { instance_type: '1A6000.10V', model: 'A6000', name: 'RTX A6000 48GB', gpus: 1, gpuName: 'RTX A6000 48GB', gpuMemPerGpu: 48, cores: 10, ramGb: 60, price: 0.49, spot: 0.21, p2p: '', bestFor: ['Development', 'Inference'] },
  { instance_type: '1L40S.20V', model: 'L40S', name: 'L40S 48GB', gpus: 1, gpuName: 'L40S 48GB', gpuMemPerGpu: 48, cores: 20, ramGb: 60, price: 0.91, spot: 0.35, p2p: '', bestFor: ['Inference', 'Rendering'] },
  { instance_type: 'CPU.4V.16G', model: 'CPU Node', name: 'CPU Node', gpus: 0, gpuName: '', gpuMemPerGpu: 0, cores: 4, ramGb: 16, price: 0.0279, spot: 0.0112, p2p: '', bestFor: ['Web services', 'Jump hosts'] },
  { instance_type: 'CPU.8V.32G', model: 'CPU Node', name: 'CPU Node', gpus: 0, gpuName: '', gpuMemPerGpu: 0, cores: 8, ramGb: 32, price: 0.0558, spot: 0.0224, p2p: '', bestFor: ['Web services', 'Data preparation'] },
];

export function findInstanceType(name: string): InstanceTypeSpec | undefined {
  return INSTANCE_TYPES.find((t) => t.instance_type === name);
}

export function isCpuType(t: InstanceTypeSpec): boolean {
  return t.gpus === 0;
}

export function supportedImages(t: InstanceTypeSpec): ImageSpec[] {
  return IMAGES.filter((i) => !(i.gpuOnly && isCpuType(t)));
}

/** The hardware blocks shared by instance types and instance records. */
export function hardware(t: InstanceTypeSpec): Record<string, unknown> {
  const totalGpuMem = t.gpus * t.gpuMemPerGpu;
  return {
    cpu: { description: `${t.cores} CPU`, number_of_cores: t.cores },
    gpu: { description: t.gpus ? `${t.gpus}x ${t.gpuName}` : '', number_of_gpus: t.gpus },
    memory: { description: `${t.ramGb}GB RAM`, size_in_gigabytes: t.ramGb },
    gpu_memory: { description: t.gpus ? `${totalGpuMem}GB GPU RAM` : '', size_in_gigabytes: totalGpuMem },
    storage: { description: 'Dynamic' },
  };
}

export function instanceTypeWire(t: InstanceTypeSpec, currency: 'usd' | 'eur'): Record<string, unknown> {
  const hw = hardware(t);
  const display = t.gpus ? `${t.gpus}x ${t.gpuName}` : `${t.cores} vCPU, ${t.ramGb}GB RAM`;
  return {
    id: stableUuid(`instance-type:${t.instance_type}`),
    instance_type: t.instance_type,
    model: t.model,
    name: t.name,
    display_name: display,
    description: t.gpus ? `Dedicated ${display} instance` : `CPU-only instance (${display})`,
    manufacturer: t.gpus ? 'NVIDIA' : 'AMD',
    cpu: hw.cpu,
    gpu: hw.gpu,
    gpu_memory: hw.gpu_memory,
    memory: hw.memory,
    storage: hw.storage,
    price_per_hour: priceString(t.price, currency),
    spot_price: priceString(t.spot, currency),
    dynamic_price: priceString(t.price * 0.85, currency),
    max_dynamic_price: priceString(t.price * 1.2, currency),
    serverless_price: t.gpus ? priceString(t.price * 1.1, currency) : null,
    serverless_spot_price: t.gpus ? priceString(t.spot * 1.1, currency) : null,
    currency,
    best_for: t.bestFor,
    deploy_warning: t.deployWarning ?? null,
    p2p: t.p2p,
    supported_os: supportedImages(t).map((i) => i.image_type),
  };
}

/** On-demand availability by location. 8V100.48V is sold out everywhere; 8H100.80S.176V is only in FIN-03. */
export const AVAILABILITY: Record<string, string[]> = {
  'FIN-01': ['1V100.6V', '1A100.22V', '8A100.176V', '1RTX6000ADA.10V', '1A6000.10V', 'CPU.4V.16G', 'CPU.8V.32G'],
  'FIN-02': ['1A100.22V', '1H100.80S.22V', '1RTX6000ADA.10V', '1L40S.20V', 'CPU.4V.16G', 'CPU.8V.32G'],
  'FIN-03': ['1V100.6V', '1A100.22V', '8A100.176V', '1H100.80S.22V', '8H100.80S.176V', '1H200.141S.44V', '8H200.141S.176V', '1L40S.20V', 'CPU.4V.16G', 'CPU.8V.32G'],
  'ICE-01': ['1H100.80S.22V', '1H200.141S.44V', '8H200.141S.176V', 'CPU.4V.16G'],
};

export const SPOT_AVAILABILITY: Record<string, string[]> = {
  'FIN-01': ['1V100.6V', '1A100.22V', '1A6000.10V', 'CPU.4V.16G'],
  'FIN-02': ['1A100.22V', '1L40S.20V'],
  'FIN-03': ['1V100.6V', '1A100.22V', '1H100.80S.22V', '8H100.80S.176V', 'CPU.4V.16G'],
  'ICE-01': ['1H200.141S.44V'],
};

export function isAvailable(type: string, location: string, spot: boolean): boolean {
  return ((spot ? SPOT_AVAILABILITY : AVAILABILITY)[location] ?? []).includes(type);
}

// ---------------------------------------------------------------- clusters

export interface ClusterTypeSpec {
  cluster_type: string;
  model: string;
  nodes: number;
  gpusPerNode: number;
  gpuName: string;
  gpuMemPerGpu: number;
  coresPerNode: number;
  ramPerNodeGb: number;
  nodeInstanceType: string;
  price: number;
}

export const CLUSTER_TYPES: ClusterTypeSpec[] = [
  { cluster_type: '16H100', model: 'H100', nodes: 2, gpusPerNode: 8, gpuName: 'H100 SXM5 80GB', gpuMemPerGpu: 80, coresPerNode: 176, ramPerNodeGb: 1480, nodeInstanceType: '8H100.80S.176V', price: 30.24 },
  { cluster_type: '16H200', model: 'H200', nodes: 2, gpusPerNode: 8, gpuName: 'H200 SXM5 141GB', gpuMemPerGpu: 141, coresPerNode: 176, ramPerNodeGb: 1450, nodeInstanceType: '8H200.141S.176V', price: 47.84 },
  { cluster_type: '16B200', model: 'B200', nodes: 2, gpusPerNode: 8, gpuName: 'B200 SXM6 180GB', gpuMemPerGpu: 180, coresPerNode: 240, ramPerNodeGb: 1850, nodeInstanceType: '8B200.240V', price: 62.4 },
  { cluster_type: '32B200', model: 'B200', nodes: 4, gpusPerNode: 8, gpuName: 'B200 SXM6 180GB', gpuMemPerGpu: 180, coresPerNode: 240, ramPerNodeGb: 1850, nodeInstanceType: '8B200.240V', price: 124.8 },
];

export const CLUSTER_AVAILABILITY: Record<string, string[]> = {
  'FIN-01': ['16H100'],
  'FIN-02': [],
  'FIN-03': ['16H100', '16H200', '16B200'],
  'ICE-01': ['16H200'],
};

export function findClusterType(name: string): ClusterTypeSpec | undefined {
  return CLUSTER_TYPES.find((t) => t.cluster_type === name);
}

export function clusterHardware(t: ClusterTypeSpec): Record<string, unknown> {
  const gpus = t.nodes * t.gpusPerNode;
  return {
    cpu: { description: `${t.nodes * t.coresPerNode} CPU`, number_of_cores: t.nodes * t.coresPerNode },
    gpu: { description: `${gpus}x ${t.gpuName}`, number_of_gpus: gpus },
    gpu_memory: { description: `${gpus * t.gpuMemPerGpu}GB GPU RAM`, size_in_gigabytes: gpus * t.gpuMemPerGpu },
    memory: { description: `${t.nodes * t.ramPerNodeGb}GB RAM`, size_in_gigabytes: t.nodes * t.ramPerNodeGb },
  };
}

export function clusterTypeWire(t: ClusterTypeSpec, currency: 'usd' | 'eur'): Record<string, unknown> {
  return {
    id: stableUuid(`cluster-type:${t.cluster_type}`),
    model: t.model,
    name: `${t.nodes}x ${t.gpusPerNode}x ${t.gpuName} cluster`,
    cluster_type: t.cluster_type,
    ...clusterHardware(t),
    price_per_hour: priceString(t.price, currency),
    currency,
    manufacturer: 'NVIDIA',
    node_details: [
      {
        instance_type: t.nodeInstanceType,
        count: t.nodes,
        gpu: { description: `${t.gpusPerNode}x ${t.gpuName}`, number_of_gpus: t.gpusPerNode },
        cpu: { description: `${t.coresPerNode} CPU`, number_of_cores: t.coresPerNode },
        memory: { description: `${t.ramPerNodeGb}GB RAM`, size_in_gigabytes: t.ramPerNodeGb },
      },
    ],
    supported_os: CLUSTER_IMAGES.map((i) => i.image_type),
  };
}

// ---------------------------------------------------------------- serverless

export const CONTAINER_TYPES = [
  { model: 'H100', name: 'H100', instance_type: '1H100.80S.22V', cores: 22, ramGb: 185, gpuName: 'H100 SXM5 80GB', gpuMem: 80, price: 2.41, spot: 1.21 },
  { model: 'H200', name: 'H200', instance_type: '1H200.141S.44V', cores: 44, ramGb: 185, gpuName: 'H200 SXM5 141GB', gpuMem: 141, price: 3.95, spot: 1.64 },
  { model: 'A100', name: 'A100', instance_type: '1A100.22V', cores: 22, ramGb: 120, gpuName: 'A100 SXM4 80GB', gpuMem: 80, price: 1.42, spot: 0.66 },
  { model: 'L40S', name: 'L40S', instance_type: '1L40S.20V', cores: 20, ramGb: 60, gpuName: 'L40S 48GB', gpuMem: 48, price: 1.0, spot: 0.39 },
  { model: 'RTX4500Ada', name: 'RTX4500Ada', instance_type: '1RTX4500ADA.12V', cores: 12, ramGb: 48, gpuName: 'RTX 4500 Ada 24GB', gpuMem: 24, price: 0.46, spot: 0.19 },
  { model: 'CPU', name: 'General Compute', instance_type: 'CPU.4V.16G', cores: 4, ramGb: 16, gpuName: '', gpuMem: 0, price: 0.04, spot: 0.02 },
];

export function containerTypeWire(c: (typeof CONTAINER_TYPES)[number], currency: 'usd' | 'eur'): Record<string, unknown> {
  const gpus = c.gpuMem ? 1 : 0;
  return {
    id: stableUuid(`container-type:${c.name}`),
    model: c.model,
    name: c.name,
    instance_type: c.instance_type,
    cpu: { description: `${c.cores} CPU`, number_of_cores: c.cores },
    gpu: { description: gpus ? `1x ${c.gpuName}` : '', number_of_gpus: gpus },
    gpu_memory: { description: gpus ? `${c.gpuMem}GB GPU RAM` : '', size_in_gigabytes: c.gpuMem },
    memory: { description: `${c.ramGb}GB RAM`, size_in_gigabytes: c.ramGb },
    serverless_price: priceString(c.price, currency),
    serverless_spot_price: priceString(c.spot, currency),
    currency,
    manufacturer: gpus ? 'NVIDIA' : 'AMD',
  };
}

export const SERVERLESS_COMPUTE = [
  { name: 'H100', size: 1, is_available: true },
  { name: 'H100', size: 2, is_available: true },
  { name: 'H100', size: 4, is_available: true },
  { name: 'H100', size: 8, is_available: false },
  { name: 'H200', size: 1, is_available: true },
  { name: 'A100', size: 1, is_available: true },
  { name: 'A100', size: 2, is_available: true },
  { name: 'L40S', size: 1, is_available: true },
  { name: 'RTX4500Ada', size: 1, is_available: true },
  { name: 'General Compute', size: 1, is_available: true },
];

// ---------------------------------------------------------------- volumes

export const VOLUME_TYPES = [
  { type: 'NVMe', ppm: 0.2, shared: false, burst: 2000, continuous: 1000, iops: '100000' },
  { type: 'HDD', ppm: 0.05, shared: false, burst: 500, continuous: 250, iops: '2000' },
  { type: 'NVMe_Shared', ppm: 0.28, shared: true, burst: 4000, continuous: 2000, iops: '200000' },
  { type: 'HDD_Shared', ppm: 0.07, shared: true, burst: 1000, continuous: 500, iops: '5000' },
];

export function findVolumeType(type: string): (typeof VOLUME_TYPES)[number] | undefined {
  return VOLUME_TYPES.find((v) => v.type === type);
}

export function volumeTypeWire(v: (typeof VOLUME_TYPES)[number], currency: 'usd' | 'eur'): Record<string, unknown> {
  return {
    type: v.type,
    price: { price_per_month_per_gb: convertPrice(v.ppm, currency), cps_per_gb: 0, currency },
    is_shared_fs: v.shared,
    burst_bandwidth: v.burst,
    continuous_bandwidth: v.continuous,
    internal_network_speed: v.shared ? 100 : 0,
    throughput_gbps: v.shared ? 10 : 4,
    iops: v.iops,
  };
}

// ---------------------------------------------------------------- long-term

const period = (code: string, name: string, unit: string, value: number, discount: number, enabled = true) => ({
  code,
  name,
  is_enabled: enabled,
  unit_name: unit,
  unit_value: value,
  discount_percentage: discount,
});

export const LONG_TERM_PERIODS = {
  all: [
    period('1_MONTH', '1 month', 'month', 1, 5),
    period('3_MONTHS', '3 months', 'month', 3, 10),
    period('6_MONTHS', '6 months', 'month', 6, 15),
    period('1_YEAR', '1 year', 'year', 1, 20),
    period('2_YEARS', '2 years', 'year', 2, 25, false),
  ],
  instances: [
    period('1_MONTH', '1 month', 'month', 1, 5),
    period('3_MONTHS', '3 months', 'month', 3, 10),
    period('6_MONTHS', '6 months', 'month', 6, 15),
    period('1_YEAR', '1 year', 'year', 1, 20),
  ],
  clusters: [
    period('1_WEEK', '1 week', 'week', 1, 0),
    period('1_MONTH', '1 month', 'month', 1, 8),
    period('3_MONTHS', '3 months', 'month', 3, 12),
    period('1_YEAR', '1 year', 'year', 1, 22),
  ],
};
