/**
 * `k8s create gpucloud <name>` as one plan (SPEC 4.3): create an Instant Cluster with the image labelled
 * for Kubernetes, wait until it runs, fetch its kubeconfig over SSH into a context named after it.
 * The catalogue is read at compile time (images, types, availability) so a wrong image, type or
 * location is refused before anything is sent, and the plan names exactly what it will create.
 */
import { InvalidInputError, UsageError } from '../../core/errors.js';
import { isKubernetesImage } from '../planner/builtin.js';
import { API_CLUSTER_SHARED_VOLUME_GB, SMALLEST_VOLUME_GB } from '../../providers/gpucloud/priced-defaults.js';
import type { Plan } from '../../../schemas/plan.js';
import { planOf, positiveCount, requireClusterName, type CatalogueRead } from './common.js';

/**
 * The cluster's shared file system (NVMe_Shared), in GB. The API creates one with every cluster, 30000 GB
 * when the request names no size, which costs more per hour than a small cluster itself. Kubernetes does
 * not need it, so the default is the smallest volume the API takes (40 GB, the minimum volume size);
 * --shared-volume <GB> asks for more.
 */
export const DEFAULT_SHARED_VOLUME_GB = SMALLEST_VOLUME_GB;
const MAX_SHARED_VOLUME_GB = 1_000_000;

export interface GpuCloudCreateOptions {
  name: string;
  clusterType?: string;
  location?: string;
  image?: string;
  useContext?: boolean;
  /** gpucloud.default_location, when configured. */
  defaultLocation?: string;
  /** `--shared-volume <GB>`; DEFAULT_SHARED_VOLUME_GB when not given. */
  sharedVolumeGb?: unknown;
  /** How long to wait for `running`, and how often to ask (seconds). */
  waitTimeoutS?: number;
  pollIntervalS?: number;
}

type Rec = Record<string, unknown>;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((r): r is Rec => typeof r === 'object' && r !== null) : []);
const text = (r: Rec, k: string) => (typeof r[k] === 'string' ? (r[k] as string) : undefined);

export async function compileGpuCloudCreate(opts: GpuCloudCreateOptions, read: CatalogueRead): Promise<Plan> {
  const name = requireClusterName(opts.name, 'gpucloud');
  const sharedGb = positiveCount(opts.sharedVolumeGb, '--shared-volume', DEFAULT_SHARED_VOLUME_GB, MAX_SHARED_VOLUME_GB);
  const [images, types, availability] = await Promise.all([
    read(['gpucloud-api', 'GET', '/v1/images/cluster']).then(list),
    read(['gpucloud-api', 'GET', '/v1/cluster-types']).then(list),
    read(['gpucloud-api', 'GET', '/v1/cluster-availability']).then(list),
  ]);
  const image = chooseImage(images, opts.image);
  const { clusterType, location } = chooseTypeAndLocation(types, availability, opts);
  const body = {
    cluster_type: clusterType,
    image,
    hostname: name,
    description: `Kubernetes cluster ${name} (assistant k8s create gpucloud)`,
    location_code: location,
    ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'],
    shared_volume: { name: `${name}-shared-volume`, size: sharedGb },
  };
  const wait = ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running', String(opts.waitTimeoutS ?? 1800), String(opts.pollIntervalS ?? 10)];
  const chosen = [
    ...(opts.clusterType ? [] : [`default chosen: cluster type ${clusterType}, the cheapest available in ${location}, because --cluster-type was not given`]),
    ...(opts.sharedVolumeGb === undefined
      ? [`default chosen: the shared volume (NVMe_Shared) is ${sharedGb} GB, the smallest the API makes, because --shared-volume was not given (without a size the API would make ${API_CLUSTER_SHARED_VOLUME_GB} GB)`]
      : []),
  ];
  return planOf(['gpucloud', 'ssh'], `Kubernetes on Instant Cluster ${name}: ${clusterType} in ${location}, image ${image}, shared volume ${sharedGb} GB; kubeconfig context ${name}`, [
    {
      args: ['gpucloud-api', 'POST', '/v1/clusters', JSON.stringify(body)],
      reason: `create Instant Cluster ${name} (${clusterType} in ${location}) with the Kubernetes image ${image}`,
      produces: { CLUSTER_ID: '$.id' },
    },
    { args: wait, reason: `wait until ${name} is running; its head node's public IP is the API server address`, produces: { CLUSTER_IP: '$.ip' } },
    {
      args: ['ssh-kubeconfig', '<CLUSTER_IP>', name, ...(opts.useContext ? ['--use-context'] : [])],
      reason: `fetch /root/.kube/config from the head node (host key pinned) and merge it as kubeconfig context ${name}${opts.useContext ? ', made current' : ''}`,
    },
  ], chosen);
}

/** `--image` when it is a cluster image; else the one labelled for Kubernetes (the default among several). */
function chooseImage(images: Rec[], wanted: string | undefined): string {
  const names = images.map((i) => text(i, 'image_type') ?? text(i, 'id') ?? '?');
  if (wanted) {
    const found = images.find((i) => text(i, 'image_type') === wanted || text(i, 'id') === wanted);
    if (!found) throw new UsageError(`"${wanted}" is not a cluster image`, { hint: `cluster images: ${names.join(', ')}` });
    return text(found, 'image_type') ?? wanted;
  }
  const k8s = images.filter(isKubernetesImage);
  const chosen = k8s.find((i) => i.is_default === true) ?? k8s[0];
  if (!chosen) {
    throw new InvalidInputError('no_kubernetes_image', 'no cluster image is labelled for Kubernetes', {
      hint: `pick one with --image (cluster images: ${names.join(', ') || 'none'})`,
    });
  }
  return text(chosen, 'image_type') ?? text(chosen, 'id')!;
}

/**
 * The type and location: as given, else the location from config, else where the type is available;
 * the type, when not given, is the cheapest one available in that location. A combination that is not
 * available now is refused here rather than by the API after the plan started.
 */
function chooseTypeAndLocation(types: Rec[], availability: Rec[], opts: GpuCloudCreateOptions): { clusterType: string; location: string } {
  const price = (t: string) => Number(types.find((x) => text(x, 'cluster_type') === t)?.price_per_hour ?? Number.POSITIVE_INFINITY);
  const availableIn = new Map(availability.map((a) => [text(a, 'location_code') ?? '', (Array.isArray(a.availabilities) ? a.availabilities : []).map(String)]));
  const known = types.map((t) => text(t, 'cluster_type')).filter((t): t is string => Boolean(t));
  if (opts.clusterType && !known.includes(opts.clusterType)) {
    throw new UsageError(`"${opts.clusterType}" is not a cluster type`, { hint: `cluster types: ${known.join(', ')}` });
  }
  const where = (t: string) => [...availableIn].filter(([, ts]) => ts.includes(t)).map(([l]) => l);
  let location = opts.location ?? opts.defaultLocation;
  if (!location && opts.clusterType) location = where(opts.clusterType)[0];
  if (!location) location = [...availableIn].find(([, ts]) => ts.length)?.[0];
  if (!location) throw new InvalidInputError('not_available', 'no cluster type is available in any location now', { hint: 'try again later' });
  if (!availableIn.has(location) && opts.location) {
    throw new UsageError(`"${location}" is not a location with clusters`, { hint: `locations: ${[...availableIn.keys()].join(', ')}` });
  }
  const here = availableIn.get(location) ?? [];
  const clusterType = opts.clusterType ?? [...here].sort((a, b) => price(a) - price(b) || a.localeCompare(b))[0];
  if (!clusterType || !here.includes(clusterType)) {
    const elsewhere = clusterType ? where(clusterType) : [];
    throw new InvalidInputError('not_available', `${clusterType ? `cluster type ${clusterType} is` : 'no cluster type is'} not available in ${location} now`, {
      hint: elsewhere.length ? `available in: ${elsewhere.join(', ')} (--location)` : `available here: ${here.join(', ') || 'none'}; see 'assistant gpucloud list cluster-availability'`,
    });
  }
  return { clusterType, location };
}
