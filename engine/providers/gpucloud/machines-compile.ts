/**
 * Machines as gpucloud instances (`k8s create kubeadm --workers <n>`, issue 39 item 3): one create per
 * machine and a wait until it runs (its public IP produced as `<CP_IP>`, `<W1_IP>`, …). The catalogue is
 * read at compile time so the type, image and location the plan names are available now; what the
 * compiler chose that costs money is said in the notes (issue 39 item 8), and so is what the API makes
 * unasked (the OS volume). gpucloud instances have no firewall: the request's openings are all open.
 */
import type { DeployContext, MachinesCompiled, MachinesRequest } from '../../core/capabilities.js';
import { InvalidInputError, UsageError } from '../../core/errors.js';
import type { PlanCommand } from '../../../schemas/plan.js';
import { compatibleImages } from './catalogue-check.js';
import { apiDefaultNotes } from './priced-defaults.js';

type Rec = Record<string, unknown>;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((r): r is Rec => typeof r === 'object' && r !== null) : []);
const text = (r: Rec | undefined, k: string) => (r && typeof r[k] === 'string' ? (r[k] as string) : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const nested = (r: Rec, k: string, f: string) => num((r[k] as Rec | undefined)?.[f]);
const read1 = (ctx: DeployContext, path: string) => ctx.read({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', path], reason: 'read the catalogue to compile the plan' }] }).then((r) => list(r[0]));

/** The placeholder names of machine `i` (0 is the first): `CP` for a control plane, `W<i>` after it. */
export const machineId = (i: number) => (i === 0 ? 'CP' : `W${i}`);

export async function compileGpucloudMachines(req: MachinesRequest, ctx: DeployContext): Promise<MachinesCompiled> {
  const [types, availability, images] = await Promise.all([read1(ctx, '/v1/instance-types'), read1(ctx, '/v1/instance-availability'), read1(ctx, '/v1/images')]);
  const availableIn = new Map(availability.map((a) => [text(a, 'location_code') ?? '', new Set((Array.isArray(a.availabilities) ? a.availabilities : []).map(String))]));
  const fits = (t: Rec) => nested(t, 'gpu', 'number_of_gpus') === 0 && nested(t, 'cpu', 'number_of_cores') >= req.minCores && nested(t, 'memory', 'size_in_gigabytes') >= req.minMemoryGb;
  const price = (t: Rec) => num(t.price_per_hour);
  const cheapestIn = (location: string) =>
    types.filter((t) => fits(t) && availableIn.get(location)?.has(text(t, 'instance_type') ?? '') && Number.isFinite(price(t))).sort((a, b) => price(a) - price(b) || (text(a, 'instance_type') ?? '').localeCompare(text(b, 'instance_type') ?? ''))[0];
  const size = `${req.minCores} cores and ${req.minMemoryGb} GB`;

  const known = types.map((t) => text(t, 'instance_type')).filter((t): t is string => Boolean(t));
  if (req.instanceType && !known.includes(req.instanceType)) throw new UsageError(`"${req.instanceType}" is not an instance type`, { hint: `instance types: ${known.join(', ')}` });
  const wanted = req.location ?? ctx.predefined.DEFAULT_LOCATION;
  if (req.location && !availableIn.has(req.location)) throw new UsageError(`"${req.location}" is not a location with instances`, { hint: `locations: ${[...availableIn.keys()].join(', ')}` });
  const location = wanted ?? [...availableIn.keys()].find((l) => (req.instanceType ? availableIn.get(l)!.has(req.instanceType) : cheapestIn(l) !== undefined));
  if (!location) throw new InvalidInputError('not_available', `no ${req.instanceType ?? `CPU instance type with ${size}`} is available in any location now`, { hint: 'try again later, or name one with --instance-type' });
  const type = req.instanceType ?? text(cheapestIn(location), 'instance_type');
  if (!type || !availableIn.get(location)?.has(type)) {
    throw new InvalidInputError('not_available', `${type ? `instance type ${type} is` : `no CPU instance type with ${size} is`} not available in ${location} now`, {
      hint: `available there: ${[...(availableIn.get(location) ?? [])].join(', ') || 'nothing'}; or pick another --location`,
    });
  }
  const ubuntu = compatibleImages(type, { instanceTypes: types, images }).filter((i) => /^ubuntu-/i.test(i));
  if (req.image && !ubuntu.includes(req.image)) throw new UsageError(`"${req.image}" is not an Ubuntu OS image that runs on ${type}`, { hint: `Ubuntu images for ${type}: ${ubuntu.join(', ') || 'none'}` });
  // The steps after the machines are written for Ubuntu (apt, pkgs.k8s.io): an Ubuntu image that runs on the type.
  const image = req.image ?? ubuntu[0];
  if (!image) throw new InvalidInputError('unknown_image', `no Ubuntu OS image in the gpucloud catalogue runs on ${type}`, { hint: 'list them with: assistant gpucloud list images' });

  const commands: PlanCommand[] = req.machines.flatMap(({ hostname, role }, i): PlanCommand[] => [
    {
      args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: type, image, hostname, description: `${req.purpose}: ${role}`, location_code: location, ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] })],
      reason: `create ${type} instance ${hostname} in ${location}, the ${role} of ${req.name}`,
      produces: { [`${machineId(i)}_ID`]: '$.id' },
    },
    { args: ['gpucloud-wait', 'instances', `<${machineId(i)}_ID>`, 'running'], reason: `wait until ${hostname} is running (its public IP)`, produces: { [`${machineId(i)}_IP`]: '$.ip' } },
  ]);
  const n = req.machines.length;
  const notes = [
    ...(req.instanceType ? [] : [`default chosen: instance type ${type} for all ${n} machines, the cheapest CPU type available in ${location} with ${size} (the minimum asked for), because --instance-type was not given`]),
    ...(req.location ? [] : [`default chosen: location ${location}${ctx.predefined.DEFAULT_LOCATION ? ' (gpucloud.default_location)' : ', the first where the type is available'}, because --location was not given`]),
    ...(req.image ? [] : [`default chosen: image ${image}, the first Ubuntu image that runs on ${type}, because --image was not given`]),
    ...(req.ingress.length ? [`gpucloud instances have no firewall: ${req.ingress.map((r) => r.why).join(', ')} and every other port are reachable from anywhere`] : []),
    `the machines bill until you delete them: assistant gpucloud action delete <id> (${req.machines.map((m) => m.hostname).join(', ')})`,
  ];
  // What the API makes unasked (the OS volume's size) is said too, as for every gpucloud create.
  notes.push(...apiDefaultNotes({ version: 1, provider: 'gpucloud', commands }));
  return { providers: ['gpucloud'], commands, ips: req.machines.map((_, i) => `<${machineId(i)}_IP>`), remarks: notes, chosen: `${n} × ${type} in ${location}, image ${image}` };
}
