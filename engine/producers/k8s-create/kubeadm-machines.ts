/**
 * `k8s create kubeadm <name> --workers <n>`: the cluster's machines made by the plan itself (issue 39
 * item 3) — one gpucloud instance for the control plane and one per worker, each waited for until it
 * runs (its public IP produced as `<CP_IP>`, `<W1_IP>`, …), then the same SSH steps as for machines
 * you already have (kubeadm.ts kubeadmSteps: named templates, a fresh join token per worker, the
 * kubeconfig fetched and sanitised). The creates are ordinary gpucloud creates: priced in the dry run
 * and the confirmation, gated like any other step, on the one apply path.
 *
 * The catalogue is read at compile time so the type, image and location the plan names are available
 * now; a default the command chose that costs money is said in the plan's notes (issue 39 item 8).
 */
import { InvalidInputError, UsageError } from '../../core/errors.js';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { compatibleImages } from '../../providers/gpucloud/catalogue-check.js';
import { kubeadmSteps } from './kubeadm.js';
import { withNotes } from '../../core/plan/notes.js';
import { apiDefaultNotes } from '../../providers/gpucloud/priced-defaults.js';
import { planOf, positiveCount, requireClusterName, type CatalogueRead } from './common.js';

/** What kubeadm's preflight asks of every node: 2 CPUs and about 2 GB of memory. */
export const KUBEADM_MIN_CORES = 2;
export const KUBEADM_MIN_MEMORY_GB = 2;
/** The most workers one command makes (each is a billed machine). */
export const MAX_KUBEADM_WORKERS = 50;

export interface KubeadmMachinesOptions {
  name: string;
  /** `--workers <n>` as given. */
  workers: unknown;
  instanceType?: string;
  location?: string;
  /** gpucloud.default_location, when configured. */
  defaultLocation?: string;
  useContext?: boolean;
  version?: string;
}

type Rec = Record<string, unknown>;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((r): r is Rec => typeof r === 'object' && r !== null) : []);
const text = (r: Rec | undefined, k: string) => (r && typeof r[k] === 'string' ? (r[k] as string) : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const nested = (r: Rec, k: string, f: string) => num((r[k] as Rec | undefined)?.[f]);

/** Whether `--workers` is a count (make the machines) rather than host addresses. */
export const isWorkerCount = (v: unknown): boolean => typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v));

export async function compileKubeadmMachines(opts: KubeadmMachinesOptions, read: CatalogueRead): Promise<Plan> {
  const name = requireClusterName(opts.name, 'kubeadm');
  const workers = positiveCount(opts.workers, '--workers', 1, MAX_KUBEADM_WORKERS);
  const hostnames = { cp: `${name}-cp`, worker: (i: number) => `${name}-w${i}` };
  if (hostnames.worker(workers).length > 63) throw new UsageError(`"${name}" is too long to name its machines (${hostnames.worker(workers)} is over 63 characters)`, { hint: 'choose a shorter cluster name' });
  const [types, availability, images] = await Promise.all([
    read(['gpucloud-api', 'GET', '/v1/instance-types']).then(list),
    read(['gpucloud-api', 'GET', '/v1/instance-availability']).then(list),
    read(['gpucloud-api', 'GET', '/v1/images']).then(list),
  ]);
  const availableIn = new Map(availability.map((a) => [text(a, 'location_code') ?? '', new Set((Array.isArray(a.availabilities) ? a.availabilities : []).map(String))]));
  const fits = (t: Rec) => nested(t, 'gpu', 'number_of_gpus') === 0 && nested(t, 'cpu', 'number_of_cores') >= KUBEADM_MIN_CORES && nested(t, 'memory', 'size_in_gigabytes') >= KUBEADM_MIN_MEMORY_GB;
  const price = (t: Rec) => num(t.price_per_hour);
  const cheapestIn = (location: string) =>
    types.filter((t) => fits(t) && availableIn.get(location)?.has(text(t, 'instance_type') ?? '') && Number.isFinite(price(t))).sort((a, b) => price(a) - price(b) || (text(a, 'instance_type') ?? '').localeCompare(text(b, 'instance_type') ?? ''))[0];

  const known = types.map((t) => text(t, 'instance_type')).filter((t): t is string => Boolean(t));
  if (opts.instanceType && !known.includes(opts.instanceType)) throw new UsageError(`"${opts.instanceType}" is not an instance type`, { hint: `instance types: ${known.join(', ')}` });
  const wanted = opts.location ?? opts.defaultLocation;
  if (opts.location && !availableIn.has(opts.location)) throw new UsageError(`"${opts.location}" is not a location with instances`, { hint: `locations: ${[...availableIn.keys()].join(', ')}` });
  const location =
    wanted ??
    [...availableIn.keys()].find((l) => (opts.instanceType ? availableIn.get(l)!.has(opts.instanceType) : cheapestIn(l) !== undefined));
  if (!location) throw new InvalidInputError('not_available', `no ${opts.instanceType ?? 'CPU instance type that kubeadm can run on'} is available in any location now`, { hint: 'try again later, or name one with --instance-type' });
  const type = opts.instanceType ?? text(cheapestIn(location), 'instance_type');
  if (!type || !availableIn.get(location)?.has(type)) {
    throw new InvalidInputError('not_available', `${type ? `instance type ${type} is` : `no CPU instance type with ${KUBEADM_MIN_CORES} cores and ${KUBEADM_MIN_MEMORY_GB} GB is`} not available in ${location} now`, {
      hint: `available there: ${[...(availableIn.get(location) ?? [])].join(', ') || 'nothing'}; or pick another --location`,
    });
  }
  // The install script is for Ubuntu (apt, pkgs.k8s.io): an Ubuntu image that runs on the type.
  const image = compatibleImages(type, { instanceTypes: types, images }).find((i) => /^ubuntu-/i.test(i));
  if (!image) throw new InvalidInputError('unknown_image', `no Ubuntu OS image in the gpucloud catalogue runs on ${type}`, { hint: 'list them with: assistant gpucloud list images' });

  const machine = (hostname: string, id: string, ip: string, role: string): PlanCommand[] => [
    {
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: type, image, hostname, description: `kubeadm cluster ${name}: ${role} (assistant k8s create kubeadm)`, location_code: location, ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] })],
      reason: `create ${type} instance ${hostname} in ${location}, the ${role} of ${name}`,
      produces: { [id]: '$.id' },
    },
  ].concat([{ args: ['gpucloud-wait', 'instances', `<${id}>`, 'running'], reason: `wait until ${hostname} is running (its public IP)`, produces: { [ip]: '$.ip' } }]);
  const workerIps = Array.from({ length: workers }, (_, i) => `<W${i + 1}_IP>`);
  const commands: PlanCommand[] = [
    ...machine(hostnames.cp, 'CP_ID', 'CP_IP', 'control plane'),
    ...Array.from({ length: workers }, (_, i) => machine(hostnames.worker(i + 1), `W${i + 1}_ID`, `W${i + 1}_IP`, `worker ${i + 1}`)).flat(),
    ...kubeadmSteps(name, '<CP_IP>', workerIps, { ...opts, label: (h) => (h === '<CP_IP>' ? `${hostnames.cp} (${h})` : `${hostnames.worker(workerIps.indexOf(h) + 1)} (${h})`) }),
  ];
  const notes = [
    ...(opts.instanceType ? [] : [`default chosen: instance type ${type} for all ${workers + 1} machines, the cheapest CPU type available in ${location} with ${KUBEADM_MIN_CORES} cores and ${KUBEADM_MIN_MEMORY_GB} GB (kubeadm's minimum), because --instance-type was not given`]),
    ...(opts.location ? [] : [`default chosen: location ${location}${opts.defaultLocation ? ' (gpucloud.default_location)' : ', the first where the type is available'}, because --location was not given`]),
    `the machines bill until you delete them: assistant gpucloud action delete <id> (${hostnames.cp}, ${Array.from({ length: workers }, (_, i) => hostnames.worker(i + 1)).join(', ')})`,
  ];
  const plan = planOf(['gpucloud', 'ssh'], `kubeadm cluster ${name}: ${workers + 1} × ${type} in ${location} (control plane ${hostnames.cp}, ${workers} worker(s)), image ${image}; kubeconfig context ${name}`, commands, notes);
  // What the API makes unasked (the OS volume's size) is said too, as for every gpucloud create.
  return withNotes(plan, apiDefaultNotes(plan));
}
