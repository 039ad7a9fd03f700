/**
 * What cloud_b (Google Cloud) changes cost, for the dry run and the budget guard (issue 35 §2), the
 * same way as cloud_a (engine/core/kits/cli/pricing.ts): one table of rows, a change no row names is
 * `unpriced`.
 *
 * - Priced from the Compute Engine table (price-table.ts): `compute instances create` (every NAME it
 *   creates × the machine type, attached GPUs added), managed instance groups on create and resize
 *   (new − current size, read through the executor), GKE clusters and node pools (nodes per zone × zones,
 *   an autoscaling maximum counting; the cluster fee).
 * - The region is the step's `--zone`/`--region`/`--location` (or the group's, read); without one it
 *   is unpriced: gcloud's own default is not visible to a plan.
 */
import { option, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { burnOf, countOf, free, hourlyPrice, lastOption, machineLine, notInTable, previewCliSteps, priced, pricedLine, readWhereStepActs, scalePrice, sumPrices, unpriced, type CliPricing, type Found, type PriceContext, type PricedStep, type PriceRule } from '../../core/kits/cli/pricing.js';
import type { Burn, ChangePrice, CostLine, PricePreview, PreviewRead } from '../../core/provider.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { GCLOUD_SYNTAX } from './destroyer.js';
import { GCE_PRICES } from './price-table.js';

/** The GKE cluster management fee, per cluster and hour (Standard edition). */
export const GKE_CLUSTER_HOURLY = 0.1;

/** A read in the step's own project (the provider adds its default only when a step names none). */
function readFor(ctx: PriceContext, args: string[]): Promise<unknown> {
  return readWhereStepActs(ctx, args, ['--project']);
}

/** `us-central1-a` → `us-central1`; a region stays itself. */
export function regionOfLocation(location: string): string {
  const l = location.trim().toLowerCase();
  return /^[a-z]+-[a-z]+\d+-[a-z]$/.test(l) ? l.slice(0, -2) : l;
}

const isZone = (location: string) => /^[a-z]+-[a-z]+\d+-[a-z]$/.test(location.trim().toLowerCase());

/** Where the step acts: `--zone`, `--region` or `--location`. */
function whereOf(cmd: ParsedCommand): Found<{ flag: string; value: string; region: string; zonal: boolean }> {
  for (const flag of ['--zone', '--region', '--location']) {
    const v = lastOption(cmd, flag);
    if ('unpriced' in v) return v;
    if (v.value !== undefined) return { value: { flag, value: v.value, region: regionOfLocation(v.value), zonal: isZone(v.value) } };
  }
  return { unpriced: 'no --zone or --region: the region (and its prices) is not known to the plan' };
}

/** `--accelerator type=nvidia-tesla-t4,count=2`: the GPUs each machine gets. */
function accelerators(cmd: ParsedCommand): Found<{ type: string; count: number }[]> {
  const out: { type: string; count: number }[] = [];
  for (const v of option(cmd, '--accelerator') ?? []) {
    if (hasPlaceholder(v)) return { unpriced: '--accelerator is only known at run time' };
    const fields = Object.fromEntries(v.split(',').map((kv) => kv.split('=').map((x) => x.trim().toLowerCase()) as [string, string]));
    const count = countOf([fields.count ?? '1']);
    if (!fields.type || count.unknown) return { unpriced: `--accelerator ${v}: not readable` };
    out.push({ type: fields.type, count: count.count! });
  }
  return { value: out };
}

/** The hourly price of one machine with its GPUs, or why not. */
function machinePrice(region: string, machineType: string, gpus: readonly { type: string; count: number }[]): Found<number> {
  if (/^custom-|-custom-/.test(machineType)) return { unpriced: `${machineType}: custom machine types are not in the price table` };
  let each = hourlyPrice(GCE_PRICES, region, machineType);
  if (each === undefined) return { unpriced: notInTable(GCE_PRICES, region, machineType) };
  for (const g of gpus) {
    const gpu = hourlyPrice(GCE_PRICES, region, `accelerator/${g.type}`);
    if (gpu === undefined) return { unpriced: notInTable(GCE_PRICES, region, `accelerator/${g.type}`) };
    each += gpu * g.count;
  }
  return { value: each };
}

/** A resource URL or name → its last segment (`…/machineTypes/n1-standard-1` → `n1-standard-1`). */
const baseName = (v: string) => v.split('/').filter(Boolean).at(-1) ?? v;

/** What an instance template launches: from an earlier step that creates it, else read. */
async function templateMachine(ctx: PriceContext, template: string): Promise<Found<{ type: string; gpus: { type: string; count: number }[] }>> {
  if (hasPlaceholder(template)) return { unpriced: 'the instance template is only known at run time' };
  const name = baseName(template);
  const created = ctx.earlier.find((e) => e.cmd.words.join(' ') === 'compute instance-templates create' && e.cmd.rawWords[3] === name);
  if (created) {
    const type = lastOption(created.cmd, '--machine-type');
    if ('unpriced' in type) return type;
    const gpus = accelerators(created.cmd);
    if ('unpriced' in gpus) return gpus;
    return { value: { type: type.value ?? 'n1-standard-1', gpus: gpus.value } };
  }
  const region = /\/regions\/([^/]+)\//.exec(template)?.[1];
  const data = (await readFor(ctx, ['gcloud', 'compute', 'instance-templates', 'describe', name, ...(region ? ['--region', region] : [])])) as {
    properties?: { machineType?: string; guestAccelerators?: { acceleratorType?: string; acceleratorCount?: number }[] };
  } | null;
  const machineType = data?.properties?.machineType;
  if (!machineType) return { unpriced: `instance template ${name} not found` };
  const gpus = (data?.properties?.guestAccelerators ?? []).map((g) => ({ type: baseName(g.acceleratorType ?? '?'), count: Number(g.acceleratorCount ?? 1) }));
  return { value: { type: baseName(machineType), gpus } };
}

/** Flags of `compute instances create` that take a value: any other token after the verb may be a NAME (counted: never lower). */
const INSTANCE_VALUE_FLAGS = new Set(
  `--zone --machine-type --image --image-family --image-project --boot-disk-size --boot-disk-type --boot-disk-device-name --network --subnet --tags --labels
--metadata --metadata-from-file --accelerator --maintenance-policy --provisioning-model --scopes --service-account --source-instance-template --custom-cpu
--custom-memory --project --format --min-cpu-platform --network-tier --address --private-network-ip --description --hostname --instance-termination-action
--max-run-duration --reservation-affinity --reservation --create-disk --disk --local-ssd --network-interface --verbosity --account --billing-project`.split(/\s+/),
);

/** The names a `compute instances create` makes: every token after the verb that is not an option or the value of a known one. */
function instanceNames(cmd: ParsedCommand): string[] {
  const args = cmd.args;
  const at = args.findIndex((a) => a.toLowerCase() === 'create');
  const names: string[] = [];
  for (let i = at + 1; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-')) {
      if (!a.includes('=') && INSTANCE_VALUE_FLAGS.has(a.toLowerCase())) i++;
      continue;
    }
    names.push(a);
  }
  return names;
}

async function instancesCreate(ctx: PriceContext): Promise<ChangePrice> {
  const where = whereOf(ctx.cmd);
  if ('unpriced' in where) return unpriced(where.unpriced);
  const names = instanceNames(ctx.cmd);
  const count = Math.max(1, names.length);
  if (option(ctx.cmd, '--custom-cpu') || option(ctx.cmd, '--custom-memory')) return unpriced('custom machine types are not in the price table');
  const type = lastOption(ctx.cmd, '--machine-type');
  if ('unpriced' in type) return unpriced(type.unpriced);
  const gpus = accelerators(ctx.cmd);
  if ('unpriced' in gpus) return unpriced(gpus.unpriced);
  let machine = { type: type.value, gpus: gpus.value };
  const template = lastOption(ctx.cmd, '--source-instance-template');
  if ('unpriced' in template) return unpriced(template.unpriced);
  if (template.value && (!machine.type || !machine.gpus.length)) {
    const t = await templateMachine(ctx, template.value);
    if ('unpriced' in t) return unpriced(t.unpriced);
    machine = { type: machine.type ?? t.value.type, gpus: machine.gpus.length ? machine.gpus : t.value.gpus };
  }
  const machineType = baseName(machine.type ?? 'n1-standard-1');
  const each = machinePrice(where.value.region, machineType, machine.gpus);
  if ('unpriced' in each) return unpriced(each.unpriced);
  return pricedLine(machineLine(ctx.step.index, 'instance', machineType, count, each.value, count > 1 ? `${count} instances` : undefined, where.value.region));
}

/** A managed instance group: create (`--size`) or resize (new − current, read). */
async function managedGroup(ctx: PriceContext): Promise<ChangePrice> {
  const name = ctx.cmd.rawWords[4];
  if (!name || hasPlaceholder(name)) return unpriced('the group is only known at run time');
  const where = whereOf(ctx.cmd);
  if ('unpriced' in where) return unpriced(where.unpriced);
  const size = countOf(option(ctx.cmd, '--size') ?? []);
  if (size.unknown) return unpriced(`--size: ${size.unknown}`);
  if (size.count === undefined) return unpriced('no --size');
  let before = 0;
  let templates: string[];
  if (ctx.cmd.words[3] === 'create') {
    const t = lastOption(ctx.cmd, '--template');
    if ('unpriced' in t) return unpriced(t.unpriced);
    if (!t.value) return unpriced('no --template');
    templates = [t.value];
  } else {
    const data = (await readFor(ctx, ['gcloud', 'compute', 'instance-groups', 'managed', 'describe', name, where.value.flag, where.value.value])) as {
      targetSize?: number;
      instanceTemplate?: string;
      versions?: { instanceTemplate?: string }[];
    } | null;
    if (!data) return unpriced(`group ${name} not found`);
    templates = [data.instanceTemplate, ...(data.versions ?? []).map((v) => v.instanceTemplate)].filter((t): t is string => typeof t === 'string');
    const again = ctx.earlier.some((e) => e.cmd.words.slice(0, 3).join(' ') === 'compute instance-groups managed' && ['create', 'resize'].includes(e.cmd.words[3] ?? '') && e.cmd.rawWords[4] === name);
    before = again ? 0 : Number(data.targetSize ?? 0);
  }
  let most: { type: string; each: number } | undefined;
  for (const template of templates) {
    const m = await templateMachine(ctx, template);
    if ('unpriced' in m) return unpriced(m.unpriced);
    const each = machinePrice(where.value.region, m.value.type, m.value.gpus);
    if ('unpriced' in each) return unpriced(each.unpriced);
    if (!most || each.value > most.each) most = { type: m.value.type, each: each.value };
  }
  if (!most) return unpriced(`group ${name}: no instance template known`);
  return scalePrice({ step: ctx.step.index, kind: 'instance group', type: most.type, each: most.each, before, after: size.count, location: where.value.region, what: `group ${name}` });
}

/** GKE nodes: per zone × zones (`--node-locations`, else 3 for a regional cluster), an autoscaling maximum counting. */
function gkeNodes(ctx: PriceContext, where: { zonal: boolean }): Found<number> {
  const perZone = countOf(option(ctx.cmd, '--num-nodes') ?? []);
  const maxPerZone = countOf(option(ctx.cmd, '--max-nodes') ?? []);
  const totalMax = countOf(option(ctx.cmd, '--total-max-nodes') ?? []);
  for (const c of [perZone, maxPerZone, totalMax]) if (c.unknown) return { unpriced: c.unknown };
  const locations = option(ctx.cmd, '--node-locations')?.at(-1);
  if (locations !== undefined && hasPlaceholder(locations)) return { unpriced: '--node-locations is only known at run time' };
  const zones = locations ? locations.split(',').filter(Boolean).length : where.zonal ? 1 : 3;
  return { value: Math.max((perZone.count ?? 3) * zones, (maxPerZone.count ?? 0) * zones, totalMax.count ?? 0) };
}

/** A GKE cluster (its default node pool and the cluster fee) or node pool. */
async function gke(ctx: PriceContext): Promise<ChangePrice> {
  const where = whereOf(ctx.cmd);
  if ('unpriced' in where) return unpriced(where.unpriced);
  const nodes = gkeNodes(ctx, where.value);
  if ('unpriced' in nodes) return unpriced(nodes.unpriced);
  const type = lastOption(ctx.cmd, '--machine-type');
  if ('unpriced' in type) return unpriced(type.unpriced);
  const gpus = accelerators(ctx.cmd);
  if ('unpriced' in gpus) return unpriced(gpus.unpriced);
  const machineType = type.value ?? 'e2-medium';
  const each = machinePrice(where.value.region, machineType, gpus.value);
  if ('unpriced' in each) return unpriced(each.unpriced);
  const lines: CostLine[] = [machineLine(ctx.step.index, 'gke nodes', machineType, nodes.value, each.value, `${nodes.value} nodes`, where.value.region)];
  if (ctx.cmd.words[1] === 'clusters') lines.push(machineLine(ctx.step.index, 'gke cluster', 'cluster fee', 1, GKE_CLUSTER_HOURLY, undefined, where.value.region));
  return sumPrices(lines.map(pricedLine));
}

/** What cloud_b prices, first match wins; a change no row names is unpriced. */
export const GCLOUD_PRICE_RULES: readonly PriceRule[] = [
  priced('compute instances create', 'every NAME × the machine type (`--machine-type`, the template\'s, else n1-standard-1) with its `--accelerator` GPUs', instancesCreate),
  priced('compute instance-groups managed create|resize', 'new − current size (read) × the template\'s machine type', managedGroup),
  priced('container clusters create', 'nodes per zone × zones (an autoscaling maximum counts) × the machine type (else e2-medium), and the cluster fee', gke),
  priced('container node-pools create', 'nodes per zone × zones (an autoscaling maximum counts) × the machine type (else e2-medium)', gke),
  free('** delete|delete-*|remove-*|detach-*|cancel|abandon-instances|rm|rb|disable|unlink|revoke|purge', 'removes something'),
  free('compute instances stop|suspend', 'stops a VM'),
  free('** add-labels|update-labels|remove-labels|add-tags|add-metadata', 'labels, tags and metadata'),
  free('** set-iam-policy|add-iam-policy-binding|remove-iam-policy-binding', 'IAM bills nothing'),
  free('iam', 'IAM bills nothing'),
  free('compute networks|firewall-rules|routers|health-checks|instance-templates|ssl-certificates|ssl-policies|url-maps|target-http-proxies|target-https-proxies|backend-services create', 'network, firewall and template settings bill nothing by themselves'),
  free('compute networks subnets create', 'a subnet bills nothing by itself'),
  free('storage buckets create', 'buckets and objects: storage and requests are billed by use, not by the hour'),
  free('storage cp|rsync', 'buckets and objects: storage and requests are billed by use, not by the hour'),
  free('pubsub topics create', 'messages are billed by use'),
  free('dns record-sets create', 'records bill nothing (queries are billed by use)'),
  free('kms keyrings create', 'a key ring bills nothing'),
  free('artifacts repositories create', 'storage is billed by use'),
  free('services enable', 'enabling an API bills nothing by itself'),
  free('container clusters get-credentials', 'a kubeconfig context'),
];

export const GCLOUD_PRICING: CliPricing = { syntax: GCLOUD_SYNTAX, rules: GCLOUD_PRICE_RULES, table: GCE_PRICES };

/** cloud_b's share of a dry run and of the budget guard: every step priced in plan order. */
export const previewCloudB = (steps: readonly PricedStep[], read: PreviewRead): Promise<PricePreview> => previewCliSteps(GCLOUD_PRICING, steps, read);

const BILLING = new Set(['PROVISIONING', 'STAGING', 'RUNNING', 'REPAIRING']);

/** What the project's Compute Engine VMs burn now (provisioning or running), with their GPUs, from the same table. */
export async function burnCloudB(read: PreviewRead): Promise<Burn> {
  const data = (await read(['gcloud', 'compute', 'instances', 'list'])) as
    | { name?: string; status?: string; zone?: string; machineType?: string; guestAccelerators?: { acceleratorType?: string; acceleratorCount?: number }[] }[]
    | null;
  const billing = (Array.isArray(data) ? data : []).filter((i) => BILLING.has(i.status ?? ''));
  return burnOf(
    billing.map((i) => {
      const gpus = (i.guestAccelerators ?? []).map((g) => ({ type: baseName(g.acceleratorType ?? '?'), count: Number(g.acceleratorCount ?? 1) }));
      return { what: `instance ${i.name}`, each: machinePrice(regionOfLocation(baseName(i.zone ?? '')), baseName(i.machineType ?? '?'), gpus) };
    }),
  );
}
