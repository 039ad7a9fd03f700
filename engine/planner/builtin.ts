/**
 * The built-in planner (AI provider value `builtin`): deterministic, offline and instant. It turns
 * common gpucloud requests (grammar.ts) into plan documents (SPEC 2.4). Plans cannot filter, so a
 * request that names an instance, cluster or volume by name needs the current records passed in as
 * `lookup`; `builtinNeeds(question)` tells the caller which ones to fetch first.
 * Anything outside the grammar fails with a hint on configuring an AI provider.
 */
import { KINDS, findKind, looksLikeId } from '../gpucloud/catalogue.js';
import { InvalidInputError } from '../errors.js';
import { configHint } from '../ai/hints.js';
import type { Plan, PlanCommand } from '../../schemas/plan.js';
import { containsTerm } from '../routing/match.js';
import { parseIntent, type Intent } from './grammar.js';

export { parseIntent, type Intent };

export const DEFAULT_INSTANCE_IMAGE = 'ubuntu-24.04-cuda-12.8-open-docker';
/** GPU images do not run on CPU-only types; they get the plain OS image. */
export const DEFAULT_CPU_IMAGE = 'ubuntu-24.04';
export const DEFAULT_VOLUME_SIZE_GB = 100;
export const CLUSTER_SHARED_VOLUME_GB = 30000;
const DEFAULT_SSH_KEYS = ['<DEFAULT_SSH_KEY_ID>'];
const DEFAULT_LOCATION = '<DEFAULT_LOCATION>';

export interface LookupInstance {
  id: string;
  hostname: string;
  status?: string;
  location?: string;
  instance_type?: string;
}
export interface LookupCluster {
  id: string;
  hostname: string;
  status?: string;
}
export interface LookupVolume {
  id: string;
  name: string;
  location?: string;
  status?: string;
  instance_id?: string | null;
}

/** Current records, as the API lists them, used to resolve names to ids. */
export interface BuiltinLookup {
  instances?: LookupInstance[];
  clusters?: LookupCluster[];
  volumes?: LookupVolume[];
}

export interface BuiltinCatalogue {
  clusterImages?: unknown[];
  instanceTypes?: unknown[];
  images?: unknown[];
  [key: string]: unknown[] | undefined;
}

export interface BuiltinContext {
  lookup?: BuiltinLookup;
  catalogue?: BuiltinCatalogue;
  /** Predefined binding values (not inlined: plans keep the placeholders). */
  defaults?: Record<string, string>;
}

/** What the caller has to fetch before planning this question. */
export interface BuiltinNeeds {
  instances: boolean;
  clusters: boolean;
  volumes: boolean;
  clusterImages: boolean;
  instanceTypes: boolean;
}

function unsupported(question: string, reason: string): InvalidInputError {
  return new InvalidInputError('builtin_unsupported', `the built-in planner cannot plan "${question}": ${reason}`, { hint: configHint('builtin') });
}

function needData(what: string, command: string): InvalidInputError {
  return new InvalidInputError('builtin_needs_data', `the built-in planner needs the current ${what} to resolve names to ids`, {
    hint: `list them first (assistant gpucloud list ${command}) or pass ids instead of names`,
  });
}

export function builtinNeeds(question: string): BuiltinNeeds {
  const intent = parseIntent(question);
  const needs: BuiltinNeeds = { instances: false, clusters: false, volumes: false, clusterImages: false, instanceTypes: false };
  switch (intent.type) {
    case 'instance-action':
      needs.instances = intent.all || intent.names.some((n) => !looksLikeId(n));
      break;
    case 'discontinue-cluster':
      needs.clusters = intent.names.some((n) => !looksLikeId(n));
      break;
    case 'create-cluster':
      needs.clusterImages = true;
      needs.clusters = !intent.hostname;
      break;
    case 'create-instance':
      needs.instances = !intent.hostname;
      needs.instanceTypes = !intent.instanceType;
      break;
    case 'create-volume':
      needs.instances = Boolean(intent.attachTo && !looksLikeId(intent.attachTo));
      break;
    case 'volume-action':
      needs.volumes = Boolean(intent.volume && !looksLikeId(intent.volume));
      needs.instances = Boolean(intent.instance && !looksLikeId(intent.instance));
      break;
    case 'list':
      needs.instances = intent.names.length > 0 && intent.kinds.includes('instances');
      needs.clusters = intent.names.length > 0 && intent.kinds.includes('clusters');
      needs.volumes = intent.names.length > 0 && intent.kinds.includes('volumes');
      break;
    default:
      break;
  }
  return needs;
}

function api(method: string, path: string, body?: unknown): string[] {
  return body === undefined ? ['gpucloud-api', method, path] : ['gpucloud-api', method, path, JSON.stringify(body)];
}

function byName<T extends { id: string }>(records: T[] | undefined, name: string, field: (r: T) => string, what: string, command: string): T {
  if (looksLikeId(name)) {
    const found = records?.find((r) => r.id.toLowerCase() === name.toLowerCase());
    return found ?? ({ id: name } as T);
  }
  if (!records) throw needData(what, command);
  const exact = records.filter((r) => field(r) === name);
  const folded = exact.length ? exact : records.filter((r) => field(r).toLowerCase() === name.toLowerCase());
  if (folded.length === 1) return folded[0]!;
  if (folded.length > 1) {
    throw new InvalidInputError('builtin_ambiguous_target', `${folded.length} ${what} are named '${name}'`, { hint: `use the id instead: ${folded.map((r) => r.id).join(', ')}` });
  }
  const known = records.map(field).slice(0, 20);
  throw new InvalidInputError('builtin_unknown_target', `no ${what.replace(/s$/, '')} named '${name}'`, {
    hint: known.length ? `known: ${known.join(', ')}` : `there are no ${what}; list them with: assistant gpucloud list ${command}`,
  });
}

/** Names from the lookup that occur as whole words in the question, longest first. */
function namesInQuestion(question: string, names: string[]): string[] {
  return [...new Set(names)].filter((n) => n && containsTerm(question, n)).sort((a, b) => b.length - a.length);
}

function uniqueHostname(base: string, taken: string[]): string {
  const used = new Set(taken.map((t) => t.toLowerCase()));
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}-${i}`)) return `${base}-${i}`;
}

function str(record: unknown, key: string): string | undefined {
  const v = record && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** A cluster image labelled for Kubernetes (category, name, details or id mention it). */
export function isKubernetesImage(image: unknown): boolean {
  const text = [str(image, 'category'), str(image, 'name'), str(image, 'image_type'), ...(((image as { details?: unknown })?.details as unknown[]) ?? []).map(String)]
    .filter(Boolean)
    .join(' ');
  return /\b(kubernetes|k8s)\b/i.test(text);
}

function instanceTypeFromGpu(intent: Extract<Intent, { type: 'create-instance' }>, catalogue?: BuiltinCatalogue): string | undefined {
  if (!intent.gpuModel || !catalogue?.instanceTypes) return undefined;
  const count = intent.gpuCount ?? 1;
  const codes = catalogue.instanceTypes.map((t) => str(t, 'instance_type')).filter((c): c is string => Boolean(c));
  const re = new RegExp(`^${count}${intent.gpuModel.replace(/[^A-Z0-9]/g, '')}(?:[A-Z0-9]*)\\.`, 'i');
  return codes.find((c) => re.test(c));
}

function plan(question: string, summary: string, commands: PlanCommand[]): Plan {
  return { version: 1, provider: 'gpucloud', question, summary, commands };
}

/** Builds the plan for a request, or throws InvalidInputError (exit 2) with a hint. */
export function planBuiltin(question: string, ctx: BuiltinContext = {}): Plan {
  const intent = parseIntent(question);
  const lookup = ctx.lookup ?? {};
  switch (intent.type) {
    case 'unsupported':
      throw unsupported(question, intent.reason);

    case 'list': {
      const commands: PlanCommand[] = [];
      for (const kind of intent.kinds) {
        const spec = findKind(kind)!;
        const records = kind === 'instances' ? lookup.instances : kind === 'clusters' ? lookup.clusters : undefined;
        const nameOf = (r: unknown) => str(r, 'hostname') ?? str(r, 'name') ?? '';
        const pool = kind === 'volumes' ? lookup.volumes : records;
        const target = pool && spec.getPath ? pool.find((r) => intent.names.some((n) => n === r.id || nameOf(r).toLowerCase() === n.toLowerCase())) : undefined;
        if (target && spec.getPath) {
          commands.push({ args: api('GET', spec.getPath.replace('{id}', encodeURIComponent(target.id))), reason: `show ${spec.singular} ${nameOf(target) || target.id}` });
          continue;
        }
        const query = [spec.listQuery, (kind === 'availability' || kind === 'cluster-availability') && intent.location ? `location_code=${encodeURIComponent(intent.location)}` : undefined]
          .filter(Boolean)
          .join('&');
        commands.push({ args: api('GET', `${spec.path}${query ? `?${query}` : ''}`), reason: spec.shape === 'object' ? `show the ${spec.singular}` : `list ${spec.kind}` });
      }
      return plan(question, `read ${intent.kinds.join(', ')}`, commands);
    }

    case 'create-instance': {
      const instanceType = intent.instanceType ?? instanceTypeFromGpu(intent, ctx.catalogue);
      if (!instanceType) {
        throw new InvalidInputError('builtin_missing_value', 'say which instance type to create, e.g. "create a 1V100.6V instance called train-1"', {
          hint: 'list the types with: assistant gpucloud list instance-types',
        });
      }
      const known = ctx.catalogue?.instanceTypes?.map((t) => str(t, 'instance_type')).filter(Boolean) as string[] | undefined;
      if (known?.length && !known.includes(instanceType)) {
        throw new InvalidInputError('builtin_unknown_value', `unknown instance type ${instanceType}`, { hint: `known types: ${known.join(', ')}` });
      }
      const base = instanceType.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      const hostname = intent.hostname ?? uniqueHostname(base, (lookup.instances ?? []).map((i) => i.hostname));
      const image = intent.image ?? (instanceType.startsWith('CPU.') ? DEFAULT_CPU_IMAGE : DEFAULT_INSTANCE_IMAGE);
      const body: Record<string, unknown> = {
        instance_type: instanceType,
        image,
        hostname,
        description: '',
        location_code: intent.location ?? DEFAULT_LOCATION,
        ssh_key_ids: DEFAULT_SSH_KEYS,
      };
      if (intent.spot) body.is_spot = true;
      return plan(question, `create ${intent.spot ? 'spot ' : ''}instance ${hostname} (${instanceType})`, [
        { args: api('POST', '/v1/instances', body), reason: `create ${instanceType} instance ${hostname}`, produces: { INSTANCE_ID: '$.id' } },
      ]);
    }

    case 'instance-action': {
      const instances = lookup.instances;
      let targets: LookupInstance[];
      if (intent.all) {
        if (!instances) throw needData('instances', 'instances');
        targets = instances.filter((i) => !intent.status || i.status === intent.status);
      } else {
        let names = [...intent.ids, ...intent.names.filter((n) => !intent.ids.includes(n.toLowerCase()))];
        if (instances) {
          const mentioned = namesInQuestion(question, instances.map((i) => i.hostname));
          if (mentioned.length) names = [...intent.ids, ...mentioned];
        }
        if (!names.length) {
          throw new InvalidInputError('builtin_missing_value', `say which instance to ${intent.action.replace('_', ' ')}, e.g. "${intent.action.replace('_', ' ')} train-1"`, {
            hint: 'list instances with: assistant gpucloud list instances',
          });
        }
        targets = [...new Map(names.map((n) => byName(instances, n, (i) => i.hostname, 'instances', 'instances')).map((t) => [t.id, t])).values()];
      }
      if (!targets.length) {
        throw new InvalidInputError('builtin_unknown_target', `no instances to ${intent.action.replace('_', ' ')}${intent.status ? ` with status ${intent.status}` : ''}`);
      }
      return plan(
        question,
        `${intent.action.replace('_', ' ')} ${targets.map((t) => t.hostname ?? t.id).join(', ')}`,
        targets.map((t) => ({ args: api('PUT', '/v1/instances', { action: intent.action, id: t.id }), reason: `${intent.action.replace('_', ' ')} ${t.hostname ?? t.id}` })),
      );
    }

    case 'create-cluster': {
      if (!intent.clusterType) {
        throw new InvalidInputError('builtin_missing_value', 'say which cluster type to create, e.g. "create a 16H100 instant cluster called c1"', {
          hint: 'list the types with: assistant gpucloud list cluster-types',
        });
      }
      const images = ctx.catalogue?.clusterImages;
      if (!images?.length) throw needData('cluster images', 'cluster-images');
      const chosen = intent.kubernetes ? images.find(isKubernetesImage) : images[0];
      if (!chosen) {
        throw new InvalidInputError('builtin_unknown_value', 'no cluster image is labelled for Kubernetes', { hint: 'list them with: assistant gpucloud list cluster-images' });
      }
      const image = str(chosen, 'image_type') ?? str(chosen, 'id')!;
      const hostname = intent.hostname ?? uniqueHostname(`cluster-${intent.clusterType.toLowerCase()}`, (lookup.clusters ?? []).map((c) => c.hostname));
      const body = {
        cluster_type: intent.clusterType,
        image,
        hostname,
        description: '',
        location_code: intent.location ?? DEFAULT_LOCATION,
        ssh_key_ids: DEFAULT_SSH_KEYS,
        shared_volume: { name: `${hostname}-shared-volume`, size: CLUSTER_SHARED_VOLUME_GB },
      };
      return plan(question, `create ${intent.kubernetes ? 'Kubernetes ' : ''}Instant Cluster ${hostname} (${intent.clusterType}) and wait until it runs`, [
        { args: api('POST', '/v1/clusters', body), reason: `create Instant Cluster ${hostname}`, produces: { CLUSTER_ID: '$.id' } },
        { args: ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running'], reason: `wait until ${hostname} is running` },
      ]);
    }

    case 'discontinue-cluster': {
      let names = [...intent.ids, ...intent.names.filter((n) => !intent.ids.includes(n.toLowerCase()))];
      if (lookup.clusters) {
        const mentioned = namesInQuestion(question, lookup.clusters.map((c) => c.hostname));
        if (mentioned.length) names = [...intent.ids, ...mentioned];
      }
      if (!names.length) throw new InvalidInputError('builtin_missing_value', 'say which cluster to discontinue, e.g. "discontinue cluster c1"');
      const targets = [...new Map(names.map((n) => byName(lookup.clusters, n, (c) => c.hostname, 'clusters', 'clusters')).map((t) => [t.id, t])).values()];
      return plan(question, `discontinue ${targets.map((t) => t.hostname ?? t.id).join(', ')}`, [
        {
          args: api('PUT', '/v1/clusters', { actions: targets.map((t) => ({ action: 'discontinue', id: t.id })) }),
          reason: `discontinue Instant Cluster ${targets.map((t) => t.hostname ?? t.id).join(', ')}`,
        },
      ]);
    }

    case 'create-volume': {
      const size = intent.size ?? DEFAULT_VOLUME_SIZE_GB;
      const instance = intent.attachTo ? byName(lookup.instances, intent.attachTo, (i) => i.hostname, 'instances', 'instances') : undefined;
      const name = intent.name ?? `volume-${size}gb`;
      const location = intent.location ?? instance?.location ?? DEFAULT_LOCATION;
      const commands: PlanCommand[] = [
        {
          args: api('POST', '/v1/volumes', { type: intent.volumeType, name, size, location_code: location }),
          reason: `create ${size} GB ${intent.volumeType} volume ${name}${intent.size ? '' : ' (default size)'}`,
          produces: { VOLUME_ID: '$.id' },
        },
      ];
      if (instance) {
        commands.push({
          args: api('PUT', '/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: instance.id }),
          reason: `attach ${name} to ${instance.hostname ?? instance.id}`,
        });
      }
      return plan(question, `create volume ${name}${instance ? ` and attach it to ${instance.hostname ?? instance.id}` : ''}`, commands);
    }

    case 'volume-action': {
      const volumes = lookup.volumes;
      let volumeName = intent.volume;
      if (volumes) volumeName = namesInQuestion(question, volumes.map((v) => v.name))[0] ?? volumeName;
      if (!volumeName) throw new InvalidInputError('builtin_missing_value', `say which volume to ${intent.action}, e.g. "${intent.action} volume data${intent.action === 'attach' ? ' to train-1' : ''}"`);
      const volume = byName(volumes, volumeName, (v) => v.name, 'volumes', 'volumes');
      if (intent.action === 'attach') {
        let instanceName = intent.instance;
        if (lookup.instances) instanceName = namesInQuestion(question, lookup.instances.map((i) => i.hostname)).find((n) => n !== volumeName) ?? instanceName;
        if (!instanceName) throw new InvalidInputError('builtin_missing_value', 'say which instance to attach the volume to, e.g. "attach volume data to train-1"');
        const instance = byName(lookup.instances, instanceName, (i) => i.hostname, 'instances', 'instances');
        return plan(question, `attach ${volume.name ?? volume.id} to ${instance.hostname ?? instance.id}`, [
          { args: api('PUT', '/v1/volumes', { action: 'attach', id: volume.id, instance_id: instance.id }), reason: `attach ${volume.name ?? volume.id} to ${instance.hostname ?? instance.id}` },
        ]);
      }
      return plan(question, `${intent.action} ${volume.name ?? volume.id}`, [
        { args: api('PUT', '/v1/volumes', { action: intent.action, id: volume.id }), reason: `${intent.action} volume ${volume.name ?? volume.id}` },
      ]);
    }
  }
}

/** Kinds the built-in planner can list (all of the catalogue). */
export function builtinListableKinds(): string[] {
  return KINDS.map((k) => k.kind);
}
