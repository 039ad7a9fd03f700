/**
 * What cloud_c (Azure) changes cost, for the dry run and the budget guard (issue 35 §2), the same way
 * as cloud_a (engine/core/kits/cli/pricing.ts): one table of rows, a change no row names is `unpriced`.
 *
 * - Priced from the Azure VM table (price-table.ts): `vm create` (`--count` VMs × `--size`), scale sets
 *   on create (`--instance-count`, default 2) and on every change of capacity, whichever way it is
 *   written (`vmss scale --new-capacity`, `vmss update --set sku.capacity=`: new − current, read through
 *   the executor), AKS clusters and node pools (nodes, an autoscaler `--max-count` counting; the tier's
 *   control plane). A size left to az's default is unpriced: the default changes between az versions.
 * - The location is the step's `--location`, else the resource group's or the scale set's (read).
 */
import { option, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { decodeJson } from '../../core/kits/cli/decode.js';
import { burnOf, countOf, free, hourlyPrice, lastOption, machineLine, notInTable, previewCliSteps, priced, pricedLine, readWhereStepActs, scalePrice, sumPrices, unpriced, type CliPricing, type Found, type PriceContext, type PricedStep, type PriceRule } from '../../core/kits/cli/pricing.js';
import type { Burn, ChangePrice, CostLine, PricePreview, PreviewRead } from '../../core/provider.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { AZ_SYNTAX } from './destroyer.js';
import { AZURE_VM_PRICES } from './price-table.js';

/** The AKS control plane per cluster and hour, by tier (`--tier`; free is the default). */
export const AKS_TIER_HOURLY: Readonly<Record<string, number>> = { free: 0, standard: 0.1, premium: 0.6 };

/** A read in the step's own subscription (the provider adds its default only when a step names none). */
function readFor(ctx: PriceContext, args: string[]): Promise<unknown> {
  return readWhereStepActs(ctx, args, ['--subscription']);
}

/** `East US` and `eastus` are one location to az. */
const normalLocation = (l: string) => l.replace(/\s+/g, '').toLowerCase();

/** The step's `--location`, else its resource group's (read). */
async function locationOf(ctx: PriceContext): Promise<Found<string>> {
  const given = lastOption(ctx.cmd, '--location', '-l');
  if ('unpriced' in given) return given;
  if (given.value) return { value: normalLocation(given.value) };
  const group = lastOption(ctx.cmd, '--resource-group', '-g');
  if ('unpriced' in group) return group;
  if (!group.value) return { unpriced: 'no --location or --resource-group: the location (and its prices) is not known' };
  const created = ctx.earlier.find((e) => e.cmd.words[0] === 'group' && e.cmd.words[1] === 'create' && (option(e.cmd, '--name') ?? option(e.cmd, '-n') ?? []).includes(group.value!));
  const fromPlan = created ? (option(created.cmd, '--location') ?? option(created.cmd, '-l'))?.at(-1) : undefined;
  if (fromPlan && !hasPlaceholder(fromPlan)) return { value: normalLocation(fromPlan) };
  const data = (await readFor(ctx, ['az', 'group', 'show', '--name', group.value])) as { location?: string } | null;
  return data?.location ? { value: normalLocation(data.location) } : { unpriced: `resource group ${group.value} not found` };
}

function sizePrice(location: string, size: string): Found<number> {
  const each = hourlyPrice(AZURE_VM_PRICES, location, size.trim());
  return each === undefined ? { unpriced: notInTable(AZURE_VM_PRICES, location, size.trim()) } : { value: each };
}

const noDefault = (flag: string) => `no ${flag}: az picks a default size that changes between versions; name the size`;

async function vmCreate(ctx: PriceContext): Promise<ChangePrice> {
  const size = lastOption(ctx.cmd, '--size');
  if ('unpriced' in size) return unpriced(size.unpriced);
  if (!size.value) return unpriced(noDefault('--size'));
  const count = countOf(option(ctx.cmd, '--count') ?? []);
  if (count.unknown) return unpriced(`--count: ${count.unknown}`);
  const location = await locationOf(ctx);
  if ('unpriced' in location) return unpriced(location.unpriced);
  const each = sizePrice(location.value, size.value);
  if ('unpriced' in each) return unpriced(each.unpriced);
  const n = count.count ?? 1;
  return pricedLine(machineLine(ctx.step.index, 'vm', size.value, n, each.value, n > 1 ? `${n} VMs` : undefined, location.value));
}

async function vmssCreate(ctx: PriceContext): Promise<ChangePrice> {
  const size = lastOption(ctx.cmd, '--vm-sku');
  if ('unpriced' in size) return unpriced(size.unpriced);
  if (!size.value) return unpriced(noDefault('--vm-sku'));
  const count = countOf(option(ctx.cmd, '--instance-count') ?? []);
  if (count.unknown) return unpriced(`--instance-count: ${count.unknown}`);
  const location = await locationOf(ctx);
  if ('unpriced' in location) return unpriced(location.unpriced);
  const each = sizePrice(location.value, size.value);
  if ('unpriced' in each) return unpriced(each.unpriced);
  return scalePrice({ step: ctx.step.index, kind: 'scale set', type: size.value, each: each.value, before: 0, after: count.count ?? 2, location: location.value, what: 'new scale set' });
}

/**
 * The capacity `vmss update` sets, from its generic `--set` arguments: `sku.capacity=N` (any case, as
 * az matches property names) or `sku={"capacity": N, …}`. Anything else it changes that may cost (the
 * size, the priority, the image…) makes it unpriced; tags are free.
 */
export function vmssUpdateCapacity(cmd: ParsedCommand): Found<number | undefined> {
  let capacity: number | undefined;
  for (const [name, values] of cmd.options) {
    if (['--resource-group', '-g', '--name', '-n', '--ids', '--subscription', '--no-wait', '--output', '-o', '--query'].includes(name)) continue;
    if (name !== '--set') return { unpriced: `vmss update ${name}: the budget cannot price this change` };
    for (const v of values) {
      if (hasPlaceholder(v)) return { unpriced: '--set is only known at run time' };
      const eq = v.indexOf('=');
      const path = v.slice(0, eq).replace(/\s+/g, '').replace(/^["']|["']$/g, '').toLowerCase();
      const value = v.slice(eq + 1).trim();
      if (eq < 0) return { unpriced: `--set ${v}: not readable` };
      if (path.startsWith('tags.') || path === 'tags') continue;
      let n: number | undefined;
      if (path === 'sku.capacity') {
        const c = countOf([value]);
        if (c.unknown) return { unpriced: `sku.capacity: ${c.unknown}` };
        n = c.count;
      } else if (path === 'sku') {
        const d = decodeJson(value);
        const sku = 'value' in d && d.value && typeof d.value === 'object' ? (d.value as Record<string, unknown>) : undefined;
        const keys = Object.keys(sku ?? {}).map((k) => k.toLowerCase());
        if (!sku || keys.some((k) => k !== 'capacity')) return { unpriced: `--set ${v}: a change of the size or tier the budget cannot price` };
        const c = countOf([Object.entries(sku).find(([k]) => k.toLowerCase() === 'capacity')?.[1]]);
        if (c.unknown) return { unpriced: `sku.capacity: ${c.unknown}` };
        n = c.count;
      } else return { unpriced: `--set ${path}: the budget cannot price this change` };
      capacity = Math.max(capacity ?? 0, n ?? 0);
    }
  }
  return { value: capacity };
}

/** One scale set however a step names it (`-g rg -n name`, `--ids /subscriptions/…/virtualMachineScaleSets/name`), any case. */
function vmssKey(cmd: ParsedCommand): string {
  const id = option(cmd, '--ids')?.at(-1);
  const m = id ? /\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/([^/]+)/i.exec(id) : null;
  const [group, name] = m ? [m[1], m[2]] : [(option(cmd, '--resource-group') ?? option(cmd, '-g'))?.at(-1), (option(cmd, '--name') ?? option(cmd, '-n'))?.at(-1)];
  return `${group ?? '?'}/${name ?? '?'}`.toLowerCase();
}

/** `vmss scale --new-capacity N` or `vmss update --set sku.capacity=N`: new − current (read). */
async function vmssCapacity(ctx: PriceContext): Promise<ChangePrice> {
  let after: number | undefined;
  if (ctx.cmd.words[1] === 'scale') {
    const c = countOf(option(ctx.cmd, '--new-capacity') ?? []);
    if (c.unknown) return unpriced(`--new-capacity: ${c.unknown}`);
    after = c.count;
  } else {
    const c = vmssUpdateCapacity(ctx.cmd);
    if ('unpriced' in c) return unpriced(c.unpriced);
    if (c.value === undefined) return { price: 'free', why: 'tags only' };
    after = c.value;
  }
  if (after === undefined) return unpriced('no new capacity given');
  const ids = lastOption(ctx.cmd, '--ids');
  const group = lastOption(ctx.cmd, '--resource-group', '-g');
  const name = lastOption(ctx.cmd, '--name', '-n');
  for (const f of [ids, group, name]) if ('unpriced' in f) return unpriced(f.unpriced);
  const which = (ids as { value?: string }).value ? ['--ids', (ids as { value: string }).value] : ['--resource-group', String((group as { value?: string }).value), '--name', String((name as { value?: string }).value)];
  const data = (await readFor(ctx, ['az', 'vmss', 'show', ...which])) as { location?: string; sku?: { name?: string; capacity?: number } } | null;
  if (!data?.sku?.name || !data.location) return unpriced(`scale set ${which.at(-1)} not found`);
  const each = sizePrice(normalLocation(data.location), data.sku.name);
  if ('unpriced' in each) return unpriced(each.unpriced);
  const target = vmssKey(ctx.cmd);
  const again = ctx.earlier.some((e) => e.cmd.words[0] === 'vmss' && ['create', 'scale', 'update'].includes(e.cmd.words[1] ?? '') && vmssKey(e.cmd) === target);
  const before = again ? 0 : Number(data.sku.capacity ?? 0);
  return scalePrice({ step: ctx.step.index, kind: 'scale set', type: data.sku.name, each: each.value, before, after, location: normalLocation(data.location), what: `scale set ${which.at(-1)}` });
}

/** AKS nodes: `--node-count` (default 3), an autoscaler `--max-count` counting. */
function aksNodes(cmd: ParsedCommand): Found<number> {
  const count = countOf([...(option(cmd, '--node-count') ?? []), ...(option(cmd, '-c') ?? [])]);
  const max = countOf(option(cmd, '--max-count') ?? []);
  for (const c of [count, max]) if (c.unknown) return { unpriced: c.unknown };
  return { value: Math.max(count.count ?? 3, max.count ?? 0) };
}

/** An AKS cluster (its system node pool and the tier's control plane) or an added node pool. */
async function aks(ctx: PriceContext): Promise<ChangePrice> {
  const size = lastOption(ctx.cmd, '--node-vm-size', '-s');
  if ('unpriced' in size) return unpriced(size.unpriced);
  if (!size.value) return unpriced(noDefault('--node-vm-size'));
  const nodes = aksNodes(ctx.cmd);
  if ('unpriced' in nodes) return unpriced(nodes.unpriced);
  let location: Found<string>;
  const creates = ctx.cmd.words[1] === 'create';
  if (creates) location = await locationOf(ctx);
  else {
    const cluster = lastOption(ctx.cmd, '--cluster-name');
    const group = lastOption(ctx.cmd, '--resource-group', '-g');
    if ('unpriced' in cluster || 'unpriced' in group || !cluster.value || !group.value) return unpriced('the cluster is only known at run time');
    const data = (await readFor(ctx, ['az', 'aks', 'show', '--resource-group', group.value, '--name', cluster.value])) as { location?: string } | null;
    location = data?.location ? { value: normalLocation(data.location) } : { unpriced: `cluster ${cluster.value} not found` };
  }
  if ('unpriced' in location) return unpriced(location.unpriced);
  const each = sizePrice(location.value, size.value);
  if ('unpriced' in each) return unpriced(each.unpriced);
  const lines: CostLine[] = [machineLine(ctx.step.index, 'aks nodes', size.value, nodes.value, each.value, `${nodes.value} nodes`, location.value)];
  if (creates) {
    const tier = lastOption(ctx.cmd, '--tier');
    if ('unpriced' in tier) return unpriced(tier.unpriced);
    const fee = AKS_TIER_HOURLY[(tier.value ?? 'free').trim().toLowerCase()];
    if (fee === undefined) return unpriced(`--tier ${tier.value}: not a tier the budget knows`);
    if (fee > 0) lines.push(machineLine(ctx.step.index, 'aks cluster', `${tier.value} tier`, 1, fee, undefined, location.value));
  }
  return sumPrices(lines.map(pricedLine));
}

/** What cloud_c prices, first match wins; a change no row names is unpriced. */
export const AZ_PRICE_RULES: readonly PriceRule[] = [
  priced('vm create', '`--count` VMs (default 1) × `--size` (a size left to az\'s default is unpriced)', vmCreate),
  priced('vmss create', '`--instance-count` (default 2) × `--vm-sku`', vmssCreate),
  priced('vmss scale', 'new − current capacity (read) × the scale set\'s size', vmssCapacity),
  priced('vmss update', '`--set sku.capacity=N` (any spelling az reads) as new − current capacity (read); tags free; any other change unpriced', vmssCapacity),
  priced('aks create', 'nodes (`--node-count`, default 3; `--max-count` counts) × `--node-vm-size`, and the `--tier` control plane', aks),
  priced('aks nodepool add', 'nodes (`--node-count`, default 3; `--max-count` counts) × `--node-vm-size`', aks),
  free('** delete|delete-*|purge|remove|remove-*|revoke|revoke-*|deallocate', 'removes or deallocates something'),
  free('vm stop|restart', 'stops or restarts a VM (nothing more runs)'),
  free('** tag|add-tag|update-tags', 'tags'),
  free('role|ad|identity', 'identities and role assignments bill nothing'),
  free('group create', 'a resource group bills nothing'),
  free('network vnet|nsg|nic|route-table create', 'network settings bill nothing by themselves'),
  free('network vnet subnet create', 'a subnet bills nothing by itself'),
  free('network nsg rule create', 'a firewall rule bills nothing'),
  free('storage account|container|share|queue|table create', 'storage is billed by use, not by the hour'),
  free('storage blob upload|upload-batch|sync', 'storage is billed by use, not by the hour'),
  free('keyvault create', 'operations are billed by use'),
  free('keyvault secret set', 'operations are billed by use'),
  free('aks get-credentials', 'a kubeconfig context'),
];

export const AZ_PRICING: CliPricing = { syntax: AZ_SYNTAX, rules: AZ_PRICE_RULES, table: AZURE_VM_PRICES };

/** cloud_c's share of a dry run and of the budget guard: every step priced in plan order. */
export const previewCloudC = (steps: readonly PricedStep[], read: PreviewRead): Promise<PricePreview> => previewCliSteps(AZ_PRICING, steps, read);

/** What the subscription's VMs (unless deallocated) and scale sets burn now, from the same table. */
export async function burnCloudC(read: PreviewRead): Promise<Burn> {
  const vms = (await read(['az', 'vm', 'list', '--show-details'])) as { name?: string; location?: string; powerState?: string; hardwareProfile?: { vmSize?: string }; virtualMachineScaleSet?: unknown }[] | null;
  const sets = (await read(['az', 'vmss', 'list'])) as { name?: string; location?: string; sku?: { name?: string; capacity?: number } }[] | null;
  // A stopped VM that is still allocated bills; only a deallocated one does not.
  const billing = (Array.isArray(vms) ? vms : []).filter((vm) => !/deallocat/i.test(vm.powerState ?? '') && !vm.virtualMachineScaleSet);
  return burnOf([
    ...billing.map((vm) => ({ what: `vm ${vm.name}`, each: sizePrice(normalLocation(vm.location ?? ''), vm.hardwareProfile?.vmSize ?? '?') })),
    ...(Array.isArray(sets) ? sets : []).map((s) => ({ what: `scale set ${s.name}`, each: sizePrice(normalLocation(s.location ?? ''), s.sku?.name ?? '?'), count: Number(s.sku?.capacity ?? 0) })),
  ]);
}
