/**
 * What cloud_a (AWS) changes cost, for the dry run and the budget guard (issue 35 §2): every step is
 * priced from its parsed argv by one table of rows (engine/core/kits/cli/pricing.ts), and a change no
 * row names is `unpriced` (refused under a budget unless --allow-unpriced).
 *
 * - Priced from the EC2 table (price-table.ts, its region and date said): `ec2 run-instances` (every
 *   instance it may start: `--count min:max` counts max), `ec2 start-instances` (the stopped ones),
 *   Auto Scaling groups and EKS node groups on create and on every change of their size, and EKS
 *   clusters. A scale is priced as the difference: new − current, the current size read through the
 *   executor; a group an earlier step of the plan created or scaled gets no credit for its current size
 *   (the budget never counts lower). A step that sets a maximum is priced at it: the group may grow to it
 *   without asking again.
 * - Free: removals, stops, tags, network and firewall settings, IAM, empty buckets and data billed by
 *   use (objects, log events, DNS records), not by the hour.
 * - The region is the step's `--region`, else the one the steps run in (read once); a region the table
 *   has no prices for is unpriced, never priced at another region's rates.
 */
import { option, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { valuesAt } from '../../core/kits/cli/decode.js';
import { burnOf, countOf, free, hourlyPrice, machineLine, notInTable, previewCliSteps, priced, pricedLine, scalePrice, sumPrices, unpriced, type CliPricing, type Found, type PriceContext, type PricedStep, type PriceRule } from '../../core/kits/cli/pricing.js';
import type { Burn, ChangePrice, PricePreview, PreviewRead } from '../../core/provider.js';
import { AWS_SYNTAX } from './destroyer.js';
import { param } from './params.js';
import { groupSpecAsCommand, groupTypes, nodegroupTypes, readFor, stringList, templateRefs, templateType, typesGiven } from './launch-types.js';
import { EC2_PRICES } from './price-table.js';

/** The EKS control plane, per cluster and hour (standard support; extended support bills more). */
export const EKS_CLUSTER_HOURLY = 0.1;

/**
 * A NAT gateway per hour (data processed is billed by use on top), in the regions whose rate is known
 * here (aws.amazon.com/vpc/pricing, 2026); another region is unpriced, never priced at these rates.
 */
export const NAT_GATEWAY_HOURLY: Readonly<Record<string, number>> = { 'us-east-1': 0.045, 'us-east-2': 0.045, 'us-west-2': 0.045, 'eu-west-1': 0.048, 'eu-central-1': 0.052 };
/** A public IPv4 address (an Elastic IP), per hour, in every region. */
export const PUBLIC_IPV4_HOURLY = 0.005;

async function natGateway(ctx: PriceContext): Promise<ChangePrice> {
  const region = await regionOf(ctx);
  if ('unpriced' in region) return unpriced(region.unpriced);
  const each = NAT_GATEWAY_HOURLY[region.value];
  if (each === undefined) return unpriced(`no NAT gateway rate for ${region.value} (known: ${Object.keys(NAT_GATEWAY_HOURLY).join(', ')})`);
  return pricedLine(machineLine(ctx.step.index, 'nat gateway', 'NAT gateway', 1, each, undefined, region.value));
}

async function publicAddress(ctx: PriceContext): Promise<ChangePrice> {
  return pricedLine(machineLine(ctx.step.index, 'public ipv4', 'Elastic IP', 1, PUBLIC_IPV4_HOURLY));
}

/** The region the step runs in: its `--region`, else the one the provider's target uses (one read per plan). */
async function regionOf(ctx: PriceContext): Promise<Found<string>> {
  const given = option(ctx.cmd, '--region')?.at(-1);
  if (given !== undefined) return /<[A-Z]/.test(given) ? { unpriced: 'the region is only known at run time' } : { value: given.trim().toLowerCase() };
  const data = (await readFor(ctx, ['ec2', 'describe-availability-zones'])) as { AvailabilityZones?: { RegionName?: string }[] } | null;
  const region = data?.AvailabilityZones?.[0]?.RegionName;
  return region ? { value: region } : { unpriced: 'cannot tell which region the step runs in' };
}

/** The highest hourly price among `types` in the region (a group may launch any of them), or why not. */
function mostExpensive(types: readonly string[], region: string): Found<{ type: string; each: number }> {
  if (!types.length) return { unpriced: 'no instance type is known' };
  let best: { type: string; each: number } | undefined;
  for (const type of types) {
    const each = hourlyPrice(EC2_PRICES, region, type);
    if (each === undefined) return { unpriced: notInTable(EC2_PRICES, region, type) };
    if (!best || each > best.each) best = { type, each };
  }
  return { value: best! };
}

// --- price rows ----------------------------------------------------------------------------------

async function runInstances(ctx: PriceContext): Promise<ChangePrice> {
  const region = await regionOf(ctx);
  if ('unpriced' in region) return unpriced(region.unpriced);
  const given = typesGiven(ctx.cmd, '--instance-type', 'InstanceType');
  if ('unpriced' in given) return unpriced(given.unpriced);
  const types = [...given.value];
  if (!types.length) {
    // No type: the launch template's, else EC2's default (m1.small).
    const refs = param(ctx.cmd, '--launch-template', 'LaunchTemplate');
    if (refs.some((v) => v === undefined)) return unpriced('the launch template is only known at run time');
    for (const ref of refs.flatMap(templateRefs)) {
      const t = await templateType(ctx, ref);
      if ('unpriced' in t) return unpriced(t.unpriced);
      types.push(t.value);
    }
    if (!types.length) types.push('m1.small');
  }
  // aws-cli turns `--count N` or `--count min:max` into MinCount/MaxCount; the most it may start counts.
  const counts: unknown[] = [];
  for (const v of option(ctx.cmd, '--count') ?? []) counts.push(...(/<[A-Z]/.test(v) ? [undefined] : v.split(':').slice(-1)));
  counts.push(...param(ctx.cmd, '--max-count', 'MaxCount'), ...param(ctx.cmd, '--min-count', 'MinCount'));
  const count = countOf(counts);
  if (count.unknown) return unpriced(`the instance count: ${count.unknown}`);
  const most = mostExpensive(types, region.value);
  if ('unpriced' in most) return unpriced(most.unpriced);
  const n = count.count ?? 1;
  return pricedLine(machineLine(ctx.step.index, 'instance', most.value.type, n, most.value.each, n > 1 ? `${n} instances` : undefined, region.value));
}

async function startInstances(ctx: PriceContext): Promise<ChangePrice> {
  const ids = stringList(param(ctx.cmd, '--instance-ids', 'InstanceIds'), '--instance-ids');
  if ('unpriced' in ids || !ids.value.length) return unpriced('the instances are only known at run time');
  const region = await regionOf(ctx);
  if ('unpriced' in region) return unpriced(region.unpriced);
  const data = (await readFor(ctx, ['ec2', 'describe-instances', '--instance-ids', ...ids.value])) as { Reservations?: { Instances?: { InstanceId?: string; InstanceType?: string; State?: { Name?: string } }[] }[] } | null;
  const found = (data?.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  const prices: ChangePrice[] = [];
  for (const id of ids.value) {
    const i = found.find((x) => x.InstanceId === id);
    if (!i?.InstanceType) return unpriced(`instance ${id} not found`);
    if (['pending', 'running'].includes(i.State?.Name ?? '')) continue;
    const each = hourlyPrice(EC2_PRICES, region.value, i.InstanceType);
    if (each === undefined) return unpriced(notInTable(EC2_PRICES, region.value, i.InstanceType));
    prices.push(pricedLine(machineLine(ctx.step.index, 'instance', i.InstanceType, 1, each, `${id} started`, region.value)));
  }
  return prices.length ? sumPrices(prices) : { price: 'free', why: 'every instance named is already running' };
}

/** The values of a size option as counts, or why not. */
function sizeOf(cmd: ParsedCommand, opt: string, key: string): { count?: number; unknown?: string } {
  return countOf(param(cmd, opt, key));
}

/** An earlier step of the plan that created or scaled the same thing: no credit for what exists now. */
function touchedEarlier(ctx: PriceContext, same: (cmd: ParsedCommand) => boolean): boolean {
  return ctx.earlier.some((e) => same(e.cmd));
}

const GROUP_STEPS = new Set(['create-auto-scaling-group', 'set-desired-capacity', 'update-auto-scaling-group']);

/**
 * The one resource a step names (`--auto-scaling-group-name`, also in --cli-input-json). Named twice
 * differently, argv would win over the input JSON in the CLI while a price could be read for the other:
 * unpriced.
 */
function theName(cmd: ParsedCommand, opt: string, key: string, what: string): Found<string> {
  const names = param(cmd, opt, key);
  if (names.some((n) => typeof n !== 'string' || /<[A-Z]/.test(n))) return { unpriced: `the ${what} is only known at run time` };
  const distinct = [...new Set(names.map((n) => String(n).trim()))];
  if (distinct.length > 1) return { unpriced: `two ${what}s named (${distinct.join(', ')}): which one changes is not certain` };
  return distinct.length ? { value: distinct[0]! } : { unpriced: `no ${what} named` };
}

const groupName = (cmd: ParsedCommand) => theName(cmd, '--auto-scaling-group-name', 'AutoScalingGroupName', 'group');

/** A scale of an Auto Scaling group: create, set-desired-capacity, update-auto-scaling-group. */
async function autoScalingGroup(ctx: PriceContext): Promise<ChangePrice> {
  const op = ctx.cmd.words[1]!;
  const name = groupName(ctx.cmd);
  if ('unpriced' in name) return unpriced(name.unpriced);
  const region = await regionOf(ctx);
  if ('unpriced' in region) return unpriced(region.unpriced);
  const desired = sizeOf(ctx.cmd, '--desired-capacity', 'DesiredCapacity');
  const min = sizeOf(ctx.cmd, '--min-size', 'MinSize');
  const max = sizeOf(ctx.cmd, '--max-size', 'MaxSize');
  for (const [what, c] of [['--desired-capacity', desired], ['--min-size', min], ['--max-size', max]] as const) if (c.unknown) return unpriced(`${what}: ${c.unknown}`);
  // The current group, unless this step creates it.
  let current: { desired: number; types: string[] } | undefined;
  if (op !== 'create-auto-scaling-group') {
    const data = (await readFor(ctx, ['autoscaling', 'describe-auto-scaling-groups', '--auto-scaling-group-names', name.value])) as { AutoScalingGroups?: Record<string, unknown>[] } | null;
    const group = data?.AutoScalingGroups?.find((g) => g.AutoScalingGroupName === name.value);
    const created = ctx.earlier.find((e) => e.cmd.words[0] === 'autoscaling' && e.cmd.words[1] === 'create-auto-scaling-group' && param(e.cmd, '--auto-scaling-group-name', 'AutoScalingGroupName').includes(name.value));
    const spec = group ? await groupTypes(ctx, groupSpecAsCommand(group)) : created ? await groupTypes(ctx, created.cmd) : undefined;
    if (!spec) return unpriced(`group ${name.value} not found`);
    if ('unpriced' in spec) return unpriced(spec.unpriced);
    current = { desired: group ? Number(group.DesiredCapacity ?? 0) : 0, types: spec.value };
  }
  const changed = await groupTypes(ctx, ctx.cmd);
  if (changed && 'unpriced' in changed) return unpriced(changed.unpriced);
  const types = changed?.value ?? current?.types;
  if (!types?.length) return unpriced('what the group launches is not named');
  const most = mostExpensive(types, region.value);
  if ('unpriced' in most) return unpriced(most.unpriced);
  // After: the desired count (or the current one), at least the minimum, and a maximum this step sets (the group may grow to it).
  const after = Math.max(desired.count ?? current?.desired ?? min.count ?? 0, min.count ?? 0, max.count ?? 0);
  const again = touchedEarlier(ctx, (c) => c.words[0] === 'autoscaling' && GROUP_STEPS.has(c.words[1] ?? '') && param(c, '--auto-scaling-group-name', 'AutoScalingGroupName').includes(name.value));
  // Another launch template means new instances beside the old ones until they are replaced: no credit.
  const before = changed || again ? 0 : current?.desired ?? 0;
  return scalePrice({ step: ctx.step.index, kind: 'auto scaling group', type: most.value.type, each: most.value.each, before, after, location: region.value, what: `group ${name.value}` });
}

/** `scalingConfig` sizes (shorthand or JSON, also in --cli-input-json). */
function scaling(cmd: ParsedCommand): Found<{ desired?: number; min?: number; max?: number }> {
  const configs = param(cmd, '--scaling-config', 'scalingConfig');
  if (configs.some((v) => v === undefined || typeof v !== 'object')) return { unpriced: 'the scaling configuration is only known at run time or not readable' };
  const out: { desired?: number; min?: number; max?: number } = {};
  for (const [k, key] of [['desired', 'desiredSize'], ['min', 'minSize'], ['max', 'maxSize']] as const) {
    const c = countOf(configs.flatMap((v) => valuesAt(v, key)));
    if (c.unknown) return { unpriced: `${key}: ${c.unknown}` };
    if (c.count !== undefined) out[k] = c.count;
  }
  return { value: out };
}

function nodegroupName(cmd: ParsedCommand): Found<{ cluster: string; nodegroup: string }> {
  const cluster = theName(cmd, '--cluster-name', 'clusterName', 'cluster');
  const nodegroup = theName(cmd, '--nodegroup-name', 'nodegroupName', 'node group');
  if ('unpriced' in cluster) return cluster;
  if ('unpriced' in nodegroup) return nodegroup;
  return { value: { cluster: cluster.value, nodegroup: nodegroup.value } };
}

/** An EKS node group: create (its most nodes) or a change of its scaling configuration (the difference). */
async function eksNodegroup(ctx: PriceContext): Promise<ChangePrice> {
  const id = nodegroupName(ctx.cmd);
  if ('unpriced' in id) return unpriced(id.unpriced);
  const region = await regionOf(ctx);
  if ('unpriced' in region) return unpriced(region.unpriced);
  const sizes = scaling(ctx.cmd);
  if ('unpriced' in sizes) return unpriced(sizes.unpriced);
  const creates = ctx.cmd.words[1] === 'create-nodegroup';
  let types: Found<string[]>;
  let before = 0;
  let currentDesired: number | undefined;
  if (creates) types = await nodegroupTypes(ctx, ctx.cmd);
  else {
    const data = (await readFor(ctx, ['eks', 'describe-nodegroup', '--cluster-name', id.value.cluster, '--nodegroup-name', id.value.nodegroup])) as {
      nodegroup?: { scalingConfig?: { desiredSize?: number }; instanceTypes?: string[] | null; launchTemplate?: unknown };
    } | null;
    const ng = data?.nodegroup;
    if (!ng) return unpriced(`node group ${id.value.nodegroup} not found`);
    const asCmd: ParsedCommand = { args: [], rawWords: [], words: [], options: new Map(ng.launchTemplate && !ng.instanceTypes?.length ? [['--launch-template', [JSON.stringify(ng.launchTemplate)]]] : []), undecidable: [], abbreviates: false };
    types = ng.instanceTypes?.length ? { value: ng.instanceTypes } : await nodegroupTypes(ctx, asCmd);
    currentDesired = Number(ng.scalingConfig?.desiredSize ?? 0);
    const again = touchedEarlier(ctx, (c) => c.words[0] === 'eks' && ['create-nodegroup', 'update-nodegroup-config'].includes(c.words[1] ?? '') && param(c, '--nodegroup-name', 'nodegroupName').includes(id.value.nodegroup));
    before = again ? 0 : currentDesired;
  }
  if ('unpriced' in types) return unpriced(types.unpriced);
  const most = mostExpensive(types.value, region.value);
  if ('unpriced' in most) return unpriced(most.unpriced);
  // EKS's defaults for a new node group: 2 nodes (min, max and desired).
  const s = creates && sizes.value.desired === undefined && sizes.value.max === undefined ? { desired: 2, min: 2, max: 2 } : sizes.value;
  const after = Math.max(s.desired ?? currentDesired ?? 0, s.min ?? 0, s.max ?? 0);
  return scalePrice({ step: ctx.step.index, kind: 'node group', type: most.value.type, each: most.value.each, before, after, location: region.value, what: `node group ${id.value.nodegroup}` });
}

async function eksCluster(ctx: PriceContext): Promise<ChangePrice> {
  return pricedLine(machineLine(ctx.step.index, 'eks cluster', 'control plane', 1, EKS_CLUSTER_HOURLY));
}

/** What cloud_a prices, first match wins; a change no row names is unpriced. */
export const AWS_PRICE_RULES: readonly PriceRule[] = [
  priced('ec2 run-instances', 'every instance it may start (`--count` max, `MaxCount`) × the type (`--instance-type`, else the launch template\'s)', runInstances),
  priced('ec2 start-instances', 'each named instance that is not running × its type (read)', startInstances),
  priced('autoscaling create-auto-scaling-group|set-desired-capacity|update-auto-scaling-group', 'new − current size (read) × the most expensive type the group launches; a maximum the step sets counts as the new size', autoScalingGroup),
  priced('eks create-nodegroup|update-nodegroup-config', 'new − current nodes (read) × the most expensive instance type; a maximum the step sets counts', eksNodegroup),
  priced('eks create-cluster', `the control plane (${EKS_CLUSTER_HOURLY} USD/hour)`, eksCluster),
  priced('ec2 create-nat-gateway', 'a NAT gateway per hour in the region (data processed is billed by use)', natGateway),
  priced('ec2 allocate-address', `a public IPv4 address (${PUBLIC_IPV4_HOURLY} USD/hour)`, publicAddress),
  free('* delete-*|batch-delete-*|terminate-*|deregister-*|purge-*|release-*|cancel-*|disable-*|detach-*|disassociate-*|remove-*|revoke-*|untag-*|close-*|schedule-*-deletion|reject-*|leave-*', 'removes something'),
  free('ec2 stop-instances|reboot-instances', 'stops or reboots (nothing more runs)'),
  free('s3 rm|rb|mb|cp|sync|mv', 'buckets and objects: storage and requests are billed by use, not by the hour'),
  free('s3api create-bucket|put-object', 'buckets and objects: storage and requests are billed by use, not by the hour'),
  free('* tag-resource|tag-resources|add-tags|add-tags-to-resource|create-tags|create-or-update-tags', 'tags'),
  free(
    'ec2 create-security-group|authorize-security-group-ingress|authorize-security-group-egress|create-key-pair|import-key-pair|create-vpc|create-default-vpc|create-subnet|create-default-subnet|create-route-table|create-route|create-internet-gateway|create-egress-only-internet-gateway|create-network-acl|create-network-acl-entry|create-dhcp-options|create-placement-group|create-launch-template|create-launch-template-version|attach-volume|attach-internet-gateway',
    'network, firewall, key and template settings bill nothing by themselves',
  ),
  free('ec2 associate-route-table|modify-subnet-attribute|modify-vpc-attribute', 'routing and subnet settings bill nothing by themselves'),
  free('autoscaling create-launch-configuration', 'a launch configuration bills nothing by itself'),
  free('iam *', 'IAM bills nothing'),
  free('sts *', 'STS bills nothing'),
  free('ecs create-cluster|register-task-definition', 'an empty cluster or a task definition bills nothing'),
  free('eks update-kubeconfig|create-addon', 'a kubeconfig context; an add-on runs on nodes already counted'),
  free('logs create-log-group|create-log-stream|put-log-events', 'log data is billed by use, not by the hour'),
  free('cloudwatch put-metric-data', 'metric data is billed by use, not by the hour'),
  free('ssm put-parameter|add-tags-to-resource|label-parameter-version', 'standard parameters bill nothing (advanced ones by the month)'),
  free('secretsmanager put-secret-value', 'a new version of a secret already billed'),
  free('route53 change-resource-record-sets', 'DNS records bill nothing (queries are billed by use)'),
  free('lambda publish-version|publish-layer-version|put-function-concurrency', 'versions and reserved concurrency bill nothing by themselves'),
];

export const AWS_PRICING: CliPricing = { syntax: AWS_SYNTAX, rules: AWS_PRICE_RULES, table: EC2_PRICES };

/** cloud_a's share of a dry run and of the budget guard: every step priced in plan order. */
export const previewCloudA = (steps: readonly PricedStep[], read: PreviewRead): Promise<PricePreview> => previewCliSteps(AWS_PRICING, steps, read);

const RUNNING = 'Name=instance-state-name,Values=pending,running';

/** What the account's EC2 instances burn now (pending and running), priced from the same table in the region each runs in (its zone's). */
export async function burnCloudA(read: PreviewRead): Promise<Burn> {
  const data = (await read(['aws', 'ec2', 'describe-instances', '--filters', RUNNING])) as {
    Reservations?: { Instances?: { InstanceId?: string; InstanceType?: string; Placement?: { AvailabilityZone?: string } }[] }[];
  } | null;
  return burnOf(
    (data?.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => {
      // `us-east-1a` → `us-east-1`; a Local or Wavelength zone names no region of the table (unpriced).
      const region = (i.Placement?.AvailabilityZone ?? '').replace(/[a-z]$/, '');
      const price = hourlyPrice(EC2_PRICES, region, i.InstanceType ?? '');
      return { what: `instance ${i.InstanceId}`, each: price === undefined ? { unpriced: notInTable(EC2_PRICES, region || '(unknown)', i.InstanceType ?? '?') } : { value: price } };
    }),
  );
}
