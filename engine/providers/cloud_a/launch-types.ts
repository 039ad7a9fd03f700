/**
 * What a cloud_a change launches, for its price (prices.ts): the instance types named by a step, a launch
 * template (from an earlier step of the plan that creates it, else read through the executor), a launch
 * configuration, a mixed instances policy, or an existing Auto Scaling group or EKS node group. What
 * cannot be read with certainty (a placeholder, attribute-based selection, a template without a type)
 * is reported, and the step is unpriced.
 */
import type { ParsedCommand } from '../../core/kits/cli/argv.js';
import { valuesAt } from '../../core/kits/cli/decode.js';
import { readWhereStepActs, type Found, type PriceContext } from '../../core/kits/cli/pricing.js';
import { param } from './params.js';

/** A read in the step's own region and profile, so it looks where the step acts. */
export function readFor(ctx: PriceContext, args: string[]): Promise<unknown> {
  return readWhereStepActs(ctx, ['aws', ...args], ['--region', '--profile']);
}

/** Decoded values that must be strings or lists of strings (types, IDs), flattened; or why they cannot be read. */
export function stringList(values: readonly unknown[], what: string): Found<string[]> {
  const out: string[] = [];
  for (const v of values) {
    const list = Array.isArray(v) ? v : [v];
    for (const x of list) {
      if (typeof x !== 'string' || /<[A-Z]/.test(x)) return { unpriced: `${what} is only known at run time or not readable` };
      out.push(x.trim());
    }
  }
  return { value: out };
}

/** The strings at `key` (any depth) of decoded values, or why they cannot be read. */
function stringsAt(values: readonly unknown[], key: string): Found<string[]> {
  if (values.some((v) => v === undefined)) return { unpriced: `${key} is only known at run time` };
  return stringList(values.flatMap((v) => valuesAt(v, key)), key);
}

/** An option given in argv or input JSON whose values are types (`--instance-type`, `--instance-types`). */
export function typesGiven(cmd: ParsedCommand, opt: string, jsonKey: string): Found<string[]> {
  return stringList(param(cmd, opt, jsonKey), opt);
}

// --- launch templates and configurations -----------------------------------------------------------

interface TemplateRef {
  id?: string;
  name?: string;
  version?: string;
}

/** Every launch template a decoded value names (`LaunchTemplateName=web,Version=$Latest`, a MixedInstancesPolicy's specification). */
export function templateRefs(value: unknown): TemplateRef[] {
  const out: TemplateRef[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const entries = Object.entries(v);
    const get = (k: string) => entries.find(([key]) => key.toLowerCase() === k)?.[1];
    const id = get('launchtemplateid');
    const name = get('launchtemplatename');
    if (id !== undefined || name !== undefined) out.push({ id: id === undefined ? undefined : String(id), name: name === undefined ? undefined : String(name), version: get('version') === undefined ? undefined : String(get('version')) });
    for (const [, x] of entries) walk(x);
  };
  walk(value);
  return out;
}

/** Attribute-based instance selection: the types are chosen by AWS, so no price can be known. */
const selectsByAttributes = (value: unknown) => valuesAt(value, 'InstanceRequirements').length > 0;

/** The instance type a launch template (version) launches: from an earlier step that creates it, else read. */
export async function templateType(ctx: PriceContext, ref: TemplateRef): Promise<Found<string>> {
  for (const what of [ref.id, ref.name, ref.version]) if (what !== undefined && /<[A-Z]/.test(what)) return { unpriced: 'the launch template is only known at run time' };
  if (ref.name) {
    const created = ctx.earlier.find((e) => e.cmd.words[0] === 'ec2' && e.cmd.words[1] === 'create-launch-template' && param(e.cmd, '--launch-template-name', 'LaunchTemplateName').includes(ref.name));
    if (created) return typeFromTemplateData(param(created.cmd, '--launch-template-data', 'LaunchTemplateData'), `launch template ${ref.name}`);
  }
  const which = ref.id ? ['--launch-template-id', ref.id] : ['--launch-template-name', ref.name!];
  const data = (await readFor(ctx, ['ec2', 'describe-launch-template-versions', ...which, '--versions', ref.version ?? '$Default'])) as {
    LaunchTemplateVersions?: { LaunchTemplateData?: unknown }[];
  } | null;
  const lt = data?.LaunchTemplateVersions?.[0];
  if (!lt) return { unpriced: `launch template ${ref.id ?? ref.name} not found` };
  return typeFromTemplateData([lt.LaunchTemplateData], `launch template ${ref.id ?? ref.name}`);
}

function typeFromTemplateData(values: readonly unknown[], what: string): Found<string> {
  if (values.some((v) => v === undefined)) return { unpriced: `the data of ${what} is only known at run time` };
  if (values.some(selectsByAttributes)) return { unpriced: `${what} selects instance types by attributes` };
  const types = stringsAt(values, 'InstanceType');
  if ('unpriced' in types) return types;
  if (!types.value.length) return { unpriced: `${what} names no instance type` };
  return { value: types.value[types.value.length - 1]! };
}

/** The instance type of a launch configuration: from an earlier step that creates it, else read. */
async function configurationType(ctx: PriceContext, name: string): Promise<Found<string>> {
  if (/<[A-Z]/.test(name)) return { unpriced: 'the launch configuration is only known at run time' };
  const created = ctx.earlier.find((e) => e.cmd.words[0] === 'autoscaling' && e.cmd.words[1] === 'create-launch-configuration' && param(e.cmd, '--launch-configuration-name', 'LaunchConfigurationName').includes(name));
  if (created) {
    const t = typesGiven(created.cmd, '--instance-type', 'InstanceType');
    if ('unpriced' in t) return t;
    return t.value.length ? { value: t.value.at(-1)! } : { unpriced: `launch configuration ${name} names no instance type` };
  }
  const data = (await readFor(ctx, ['autoscaling', 'describe-launch-configurations', '--launch-configuration-names', name])) as { LaunchConfigurations?: { InstanceType?: string }[] } | null;
  const type = data?.LaunchConfigurations?.[0]?.InstanceType;
  return type ? { value: type } : { unpriced: `launch configuration ${name} not found` };
}

/** Every instance type a group spec may launch (`--launch-template`, `--launch-configuration-name`, `--mixed-instances-policy`, `--instance-id`). */
export async function groupTypes(ctx: PriceContext, cmd: ParsedCommand): Promise<Found<string[]> | undefined> {
  const templates = param(cmd, '--launch-template', 'LaunchTemplate');
  const policies = param(cmd, '--mixed-instances-policy', 'MixedInstancesPolicy');
  const configs = param(cmd, '--launch-configuration-name', 'LaunchConfigurationName');
  const instances = param(cmd, '--instance-id', 'InstanceId');
  if (![templates, policies, configs, instances].some((l) => l.length)) return undefined;
  if ([...templates, ...policies, ...configs, ...instances].some((v) => v === undefined)) return { unpriced: 'what the group launches is only known at run time' };
  if (policies.some(selectsByAttributes)) return { unpriced: 'the group selects instance types by attributes' };
  const types: string[] = [];
  const overrides = stringsAt(policies, 'InstanceType');
  if ('unpriced' in overrides) return overrides;
  types.push(...overrides.value);
  for (const ref of [...templates, ...policies].flatMap(templateRefs)) {
    const t = await templateType(ctx, ref);
    if ('unpriced' in t) return t;
    types.push(t.value);
  }
  for (const name of configs) {
    const t = await configurationType(ctx, String(name));
    if ('unpriced' in t) return t;
    types.push(t.value);
  }
  for (const id of instances) {
    const data = (await readFor(ctx, ['ec2', 'describe-instances', '--instance-ids', String(id)])) as { Reservations?: { Instances?: { InstanceType?: string }[] }[] } | null;
    const type = data?.Reservations?.[0]?.Instances?.[0]?.InstanceType;
    if (!type) return { unpriced: `instance ${id} not found` };
    types.push(type);
  }
  return { value: types };
}

/** A group as describe-auto-scaling-groups returns it, parsed like a create step, so one function reads what it launches. */
export function groupSpecAsCommand(group: Record<string, unknown>): ParsedCommand {
  const options = new Map<string, string[]>();
  if (group.LaunchTemplate) options.set('--launch-template', [JSON.stringify(group.LaunchTemplate)]);
  if (group.MixedInstancesPolicy) options.set('--mixed-instances-policy', [JSON.stringify(group.MixedInstancesPolicy)]);
  if (typeof group.LaunchConfigurationName === 'string') options.set('--launch-configuration-name', [group.LaunchConfigurationName]);
  return { args: [], rawWords: [], words: [], options, undecidable: [], abbreviates: false };
}

/** The node group's instance types: `--instance-types`, else its launch template's, else EKS's default (t3.medium). */
export async function nodegroupTypes(ctx: PriceContext, cmd: ParsedCommand, fallback?: string[]): Promise<Found<string[]>> {
  const given = typesGiven(cmd, '--instance-types', 'instanceTypes');
  if ('unpriced' in given) return given;
  if (given.value.length) return given;
  const templates = param(cmd, '--launch-template', 'launchTemplate');
  if (templates.some((v) => v === undefined)) return { unpriced: 'the launch template is only known at run time' };
  const refs = templates.flatMap((v) => templateRefs(renameKeys(v)));
  if (refs.length) {
    const types: string[] = [];
    for (const ref of refs) {
      const t = await templateType(ctx, ref);
      if ('unpriced' in t) return t;
      types.push(t.value);
    }
    return { value: types };
  }
  return { value: fallback ?? ['t3.medium'] };
}

/** EKS writes a launch template as `{id, name, version}`: the names templateRefs reads. */
function renameKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  return { LaunchTemplateId: o.id, LaunchTemplateName: o.name, Version: o.version };
}
