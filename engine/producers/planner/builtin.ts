/**
 * The built-in planner (AI provider value `builtin`): deterministic, offline and instant. It turns
 * common gpucloud requests (grammar.ts) into plan documents (SPEC 2.4). Plans cannot filter, so a
 * request that names an instance, cluster or volume by name needs the current records passed in as
 * `lookup`; `builtinNeeds(question)` tells the caller which ones to fetch first.
 * Anything outside the grammar fails with a hint on configuring an AI provider.
 */
import { KINDS, findKind, looksLikeId } from '../../providers/gpucloud/catalogue.js';
import { API_CLUSTER_SHARED_VOLUME_GB, SMALLEST_VOLUME_GB } from '../../providers/gpucloud/priced-defaults.js';
import { InvalidInputError } from '../../core/errors.js';
import { BUILTIN_PLANNER_HINT } from './hint.js';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { containsTerm } from '../../core/routing/match.js';
import { findCount, findGpuModel, findLocation, findSizeText, hasVerb, parseIntent, unexplainedWords, type Explained, type Intent } from './grammar.js';
import { catalogueProblems, chooseImage, compatibleImages } from '../../providers/gpucloud/catalogue-check.js';
import type { MakerLookup } from '../../core/capabilities.js';
import type { GpuCloudLookup as BuiltinLookup, LookupCluster, LookupInstance, LookupVolume } from '../../providers/gpucloud/maker.js';

export { parseIntent, type Intent };

/** More creates than this in one request are refused: a typo ("1000") must not become a bill. */
export const MAX_CREATES_PER_REQUEST = 10;
export const DEFAULT_VOLUME_SIZE_GB = 100;
/** Longer requests are not the short commands this grammar reads (and every word is matched against every value). */
const MAX_QUESTION_CHARS = 1000;
/** Waiting for a new volume before attaching it: timeout and poll interval in seconds. */
const VOLUME_READY_TIMEOUT_S = '600';
const VOLUME_READY_INTERVAL_S = '2';
/**
 * The cluster's shared file system when the request names no size: the smallest volume the API takes,
 * as `k8s create gpucloud` chooses (the API alone would make API_CLUSTER_SHARED_VOLUME_GB, which costs
 * more per hour than a small cluster). The plan's notes say so.
 */
export const CLUSTER_SHARED_VOLUME_GB = SMALLEST_VOLUME_GB;
const DEFAULT_SSH_KEYS = ['<DEFAULT_SSH_KEY_ID>'];
const DEFAULT_LOCATION = '<DEFAULT_LOCATION>';

export type { BuiltinLookup, LookupCluster, LookupInstance, LookupVolume };

export interface BuiltinCatalogue {
  clusterImages?: unknown[];
  instanceTypes?: unknown[];
  images?: unknown[];
  [key: string]: unknown[] | undefined;
}

export interface BuiltinContext {
  /** gpucloud's current records (its maker's `lookup`: GpuCloudLookup). */
  lookup?: BuiltinLookup | MakerLookup;
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
  return new InvalidInputError('not_understood', `the built-in planner cannot plan "${question}": ${reason}`, { hint: BUILTIN_PLANNER_HINT });
}

/** The request up to its first "and", comma or "then": the first change of a compound request. */
function firstClause(question: string): string {
  return question.split(/\s*(?:\band\b|\bthen\b|\balso\b|\bplus\b|[,;])\s*/i)[0]!.trim();
}

/** Refuses a request with words the plan would not carry out, rather than planning part of it. */
function requireExplained(question: string, explained: Explained): void {
  const count = findCount(question)?.text;
  const left = unexplainedWords(question, { ...explained, values: [...explained.values, ...(count ? [count] : [])] });
  if (left.length) {
    const words = left.map((w) => `"${w}"`).join(', ');
    // "create an instance … and a volume …": several changes in one request, which the planner does not split.
    const compound = /\b(and|then|also|plus)\b|[,;]/i.test(question);
    throw new InvalidInputError(
      'not_understood',
      compound
        ? `the built-in planner makes one change per request, and "${question}" reads as several (it does not understand ${words}); it plans nothing rather than part of it`
        : `the built-in planner does not understand ${words} in "${question}" and plans nothing rather than part of the request`,
      { hint: compound ? `ask for each change in turn (e.g. the first: "${firstClause(question)}"), or ${BUILTIN_PLANNER_HINT.replace(/^the built-in planner only understands common gpucloud requests; /, '')}` : BUILTIN_PLANNER_HINT },
    );
  }
}

/** Refuses (exit 2) when a create names a location, type or image the live catalogue does not have. */
function requireInCatalogue(result: Plan, ctx: BuiltinContext): Plan {
  const [problem] = catalogueProblems(result, ctx.catalogue ?? {}, ctx.defaults ?? {});
  if (problem) {
    const what = problem.code === 'not_available' ? 'available in' : `valid ${problem.field.replace(/_code$/, '').replace(/_/g, ' ')}s:`;
    throw new InvalidInputError(problem.code, problem.message.replace(/ \((valid|available in): .*\)$/s, ''), {
      hint: problem.valid.length ? `${what} ${problem.valid.join(', ')}` : undefined,
    });
  }
  return result;
}

/** Creates use <DEFAULT_SSH_KEY_ID> (and <DEFAULT_LOCATION> when no location is given): say which key to set. */
function requireDefaults(ctx: BuiltinContext, needs: { sshKey: boolean; location: boolean }): void {
  if (!ctx.defaults) return; // planning without a run context (tests, previews): placeholders stay
  if (needs.sshKey && !ctx.defaults.DEFAULT_SSH_KEY_ID) {
    throw new InvalidInputError('missing_default_ssh_key', 'the built-in planner adds your default SSH key to what it creates, and gpucloud.default_ssh_key_id is not set', {
      hint: 'list your keys with `assistant gpucloud list ssh-keys` and set gpucloud.default_ssh_key_id: <id> in ~/.assistant.yaml',
    });
  }
  if (needs.location && !ctx.defaults.DEFAULT_LOCATION) {
    const known = (ctx.catalogue?.locations ?? []).map((l) => str(l, 'code')).filter(Boolean);
    throw new InvalidInputError('missing_location', 'say where to create it (e.g. "in FIN-01"); gpucloud.default_location is not set', {
      hint: `${known.length ? `locations: ${known.join(', ')}; ` : ''}or set gpucloud.default_location in ~/.assistant.yaml`,
    });
  }
}

/** "create 3 …": how many, refused when vague or above MAX_CREATES_PER_REQUEST. */
function requireCount(count: number | undefined, what: string, max = MAX_CREATES_PER_REQUEST): number {
  if (count === undefined) return 1;
  if (Number.isNaN(count)) throw new InvalidInputError('builtin_missing_value', `say how many ${what} to create, e.g. "create 3 ${what}"`);
  if (count < 1) throw new InvalidInputError('builtin_missing_value', `cannot create ${count} ${what}`);
  if (count > max) {
    throw new InvalidInputError('too_many', `the built-in planner creates at most ${max} ${what} per request; ${count} were asked for`, {
      hint: max === 1 ? `ask for one at a time` : `ask for ${max} or fewer at a time (the limit guards against typos turning into a bill)`,
    });
  }
  return count;
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
      needs.instances = intent.hostnames.length === 0 || (intent.count ?? 1) > 1;
      needs.instanceTypes = !intent.instanceType;
      break;
    case 'create-volume':
      needs.instances = Boolean(intent.attachTo);
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

/** `notes`: the defaults the planner chose that cost money (issue 39 item 8), said in the plan and its dry run. */
function plan(question: string, summary: string, commands: PlanCommand[], notes: string[] = []): Plan {
  return { version: 1, provider: 'gpucloud', question, summary, commands, ...(notes.length ? { notes } : {}) };
}

/** Builds the plan for a request, or throws InvalidInputError (exit 2) with a hint. */
export function planBuiltin(question: string, ctx: BuiltinContext = {}): Plan {
  if (question.length > MAX_QUESTION_CHARS) {
    throw new InvalidInputError('not_understood', `the built-in planner reads requests of at most ${MAX_QUESTION_CHARS} characters (this one has ${question.length})`, { hint: BUILTIN_PLANNER_HINT });
  }
  const intent = parseIntent(question);
  // The records are gpucloud's, as its maker read them (engine/providers/gpucloud/maker.ts).
  const lookup = (ctx.lookup ?? {}) as BuiltinLookup;
  switch (intent.type) {
    case 'unsupported':
      throw unsupported(question, intent.reason);

    case 'list': {
      const nameOf = (r: unknown) => str(r, 'hostname') ?? str(r, 'name') ?? '';
      const pools: Record<string, { id: string }[] | undefined> = { instances: lookup.instances, clusters: lookup.clusters, volumes: lookup.volumes };
      // Left-over words must be records to show; anything else is a part of the request not understood.
      const shown = new Map<string, { id: string }>();
      for (const name of intent.names) {
        const kind = intent.kinds.find((k) => pools[k]?.some((r) => r.id === name.toLowerCase() || nameOf(r).toLowerCase() === name.toLowerCase()));
        if (!kind) {
          const showable = intent.kinds.filter((k) => k in pools);
          const pooled = showable.find((k) => pools[k]);
          // A verb ("delete them") or a location ("in FIN-01") is a request a read cannot carry out, not a name.
          // Only a lone word shaped like a hostname (train-9, box_2) is reported as an unknown record.
          const nameLike = intent.names.length === 1 && /[-_.\d]/.test(name) && !hasVerb(name) && !findLocation(name);
          if (pooled && nameLike) byName(pools[pooled] as LookupInstance[], name, nameOf, pooled, pooled); // throws: unknown, listing the known ones
          if (showable.length && nameLike) throw needData(showable[0]!, showable[0]!);
          requireExplained(question, { verbs: [], reading: true, values: [] });
        }
        shown.set(kind!, pools[kind!]!.find((r) => r.id === name.toLowerCase() || nameOf(r).toLowerCase() === name.toLowerCase())!);
      }
      const commands: PlanCommand[] = [];
      for (const kind of intent.kinds) {
        const spec = findKind(kind)!;
        const target = shown.get(kind);
        if (target && spec.getPath) {
          commands.push({ args: api('GET', spec.getPath.replace('{id}', encodeURIComponent(target.id))), reason: `show ${spec.singular} ${nameOf(target) || target.id}` });
          continue;
        }
        const query = [spec.listQuery, (kind === 'availability' || kind === 'cluster-availability') && intent.location ? `location_code=${encodeURIComponent(intent.location)}` : undefined]
          .filter(Boolean)
          .join('&');
        commands.push({ args: api('GET', `${spec.path}${query ? `?${query}` : ''}`), reason: spec.shape === 'object' ? `show the ${spec.singular}` : `list ${spec.kind}` });
      }
      return requireInCatalogue(plan(question, `read ${intent.kinds.join(', ')}`, commands), ctx);
    }

    case 'create-instance': {
      const instanceType = intent.instanceType ?? instanceTypeFromGpu(intent, ctx.catalogue);
      const count = requireCount(intent.count ?? (intent.hostnames.length > 1 ? intent.hostnames.length : undefined), 'instances');
      requireExplained(question, {
        verbs: [],
        kinds: ['instances', 'instance-types', 'ssh-keys', 'locations', ...(intent.image ? ['images'] : [])],
        values: [
          ...intent.hostnames,
          intent.image ?? '',
          intent.location ?? '',
          intent.spot ? 'spot' : '',
          intent.instanceType ?? '',
          intent.gpuModel ? (findGpuModel(question)?.text ?? '') : '',
          ...(intent.choices ? [...intent.choices.words, ...intent.choices.locations, ...intent.choices.moreTypes, ...gpuModelWords(question)] : []),
        ],
      });
      if (!instanceType) {
        const known = (ctx.catalogue?.instanceTypes ?? []).map((t) => str(t, 'instance_type')).filter(Boolean);
        throw new InvalidInputError(
          intent.gpuModel ? 'unknown_instance_type' : 'builtin_missing_value',
          intent.gpuModel
            ? `no instance type with ${intent.gpuCount ?? 1}x ${intent.gpuModel} in the gpucloud catalogue`
            : 'say which instance type to create, e.g. "create a 1V100.6V instance called train-1"',
          { hint: known.length ? `valid instance types: ${known.join(', ')}` : 'list the types with: assistant gpucloud list instance-types' },
        );
      }
      if (intent.hostnames.length > 1 && intent.hostnames.length !== count) {
        throw new InvalidInputError('builtin_count_mismatch', `${count} instances were asked for but ${intent.hostnames.length} names were given (${intent.hostnames.join(', ')})`, {
          hint: 'give one name per instance, or one name to number them (name-1, name-2, …)',
        });
      }
      if (new Set(intent.hostnames.map((h) => h.toLowerCase())).size !== intent.hostnames.length) {
        throw new InvalidInputError('builtin_duplicate_name', `the same name is given twice: ${intent.hostnames.join(', ')}`);
      }
      const choices = intent.choices ? capacityChoices(instanceType, intent, ctx) : undefined;
      requireDefaults(ctx, { sshKey: true, location: !intent.location && !choices });
      const taken = (lookup.instances ?? []).map((i) => i.hostname);
      const base = intent.hostnames[0] ?? instanceType.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      const hostnames: string[] = [];
      if (intent.hostnames.length === count) hostnames.push(...intent.hostnames);
      else for (let i = 0; i < count; i++) hostnames.push(uniqueHostname(count === 1 ? base : `${base}-${i + 1}`, [...taken, ...hostnames]));
      let image = intent.image;
      if (!image) {
        if (!ctx.catalogue?.images?.length) throw needData('OS images', 'images');
        image = chooseImage(instanceType, ctx.catalogue);
        if (!image) throw new InvalidInputError('unknown_image', `no OS image in the gpucloud catalogue runs on ${instanceType}`, { hint: 'list them with: assistant gpucloud list images' });
      }
      const commands: PlanCommand[] = hostnames.map((hostname, i) => {
        const body: Record<string, unknown> = {
          instance_type: instanceType,
          image,
          hostname,
          description: '',
          location_code: choices?.first.location ?? intent.location ?? DEFAULT_LOCATION,
          ssh_key_ids: DEFAULT_SSH_KEYS,
        };
        if (choices) body.instance_type = choices.first.type;
        if (intent.spot) body.is_spot = true;
        const command: PlanCommand = { args: api('POST', '/v1/instances', body), reason: `create ${String(body.instance_type)} instance ${hostname}`, produces: { [count === 1 ? 'INSTANCE_ID' : `INSTANCE_ID_${i + 1}`]: '$.id' } };
        if (choices?.alternatives.length) command.alternatives = choices.alternatives;
        return command;
      });
      return requireInCatalogue(plan(question, `create ${intent.spot ? 'spot ' : ''}${count === 1 ? 'instance' : `${count} instances`} ${hostnames.join(', ')} (${instanceType})`, commands), ctx);
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
      requireExplained(question, { verbs: [], kinds: ['instances'], values: [...targets.flatMap((t) => [t.hostname, t.id]), intent.status ?? '', intent.status === 'offline' ? 'stopped' : '', intent.status === 'running' ? 'idle' : ''] });
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
      requireCount(intent.count, 'Instant Clusters', 1);
      requireExplained(question, {
        verbs: [],
        kinds: ['clusters', 'cluster-types', 'cluster-images', 'ssh-keys', 'locations'],
        values: [intent.hostname ?? '', intent.location ?? '', intent.clusterType ?? '', 'kubernetes', 'k8s', 'kube', 'instant', 'slurm'],
      });
      if (!intent.clusterType) {
        throw new InvalidInputError('builtin_missing_value', 'say which cluster type to create, e.g. "create a 16H100 instant cluster called c1"', {
          hint: 'list the types with: assistant gpucloud list cluster-types',
        });
      }
      const images = ctx.catalogue?.clusterImages;
      if (!images?.length) throw needData('cluster images', 'cluster-images');
      const chosen = intent.kubernetes ? images.find(isKubernetesImage) : (images.find((i) => !isKubernetesImage(i) && (i as { is_default?: boolean }).is_default) ?? images.find((i) => !isKubernetesImage(i)) ?? images[0]);
      if (!chosen) {
        throw new InvalidInputError('builtin_unknown_value', 'no cluster image is labelled for Kubernetes', { hint: 'list them with: assistant gpucloud list cluster-images' });
      }
      requireDefaults(ctx, { sshKey: true, location: !intent.location });
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
      return requireInCatalogue(
        plan(
          question,
          `create ${intent.kubernetes ? 'Kubernetes ' : ''}Instant Cluster ${hostname} (${intent.clusterType}) and wait until it runs`,
          [
            { args: api('POST', '/v1/clusters', body), reason: `create Instant Cluster ${hostname} (with a ${CLUSTER_SHARED_VOLUME_GB} GB shared volume)`, produces: { CLUSTER_ID: '$.id' } },
            { args: ['gpucloud-wait', 'clusters', '<CLUSTER_ID>', 'running'], reason: `wait until ${hostname} is running` },
          ],
          [
            `default chosen: ${hostname}'s shared volume (NVMe_Shared) is ${CLUSTER_SHARED_VOLUME_GB} GB, the smallest the API makes, because the request named no size (without one the API would make ${API_CLUSTER_SHARED_VOLUME_GB} GB); for more, set shared_volume.size in the plan or use \`assistant k8s create gpucloud --shared-volume <GB>\``,
          ],
        ),
        ctx,
      );
    }

    case 'discontinue-cluster': {
      let names = [...intent.ids, ...intent.names.filter((n) => !intent.ids.includes(n.toLowerCase()))];
      if (lookup.clusters) {
        const mentioned = namesInQuestion(question, lookup.clusters.map((c) => c.hostname));
        if (mentioned.length) names = [...intent.ids, ...mentioned];
      }
      if (!names.length) throw new InvalidInputError('builtin_missing_value', 'say which cluster to discontinue, e.g. "discontinue cluster c1"');
      const targets = [...new Map(names.map((n) => byName(lookup.clusters, n, (c) => c.hostname, 'clusters', 'clusters')).map((t) => [t.id, t])).values()];
      requireExplained(question, { verbs: [], kinds: ['clusters'], values: [...targets.flatMap((t) => [t.hostname, t.id]), 'instant'] });
      return plan(question, `discontinue ${targets.map((t) => t.hostname ?? t.id).join(', ')}`, [
        {
          args: api('PUT', '/v1/clusters', { actions: targets.map((t) => ({ action: 'discontinue', id: t.id })) }),
          reason: `discontinue Instant Cluster ${targets.map((t) => t.hostname ?? t.id).join(', ')}`,
        },
      ]);
    }

    case 'create-volume': {
      requireCount(intent.count, 'volumes', 1);
      const shutdownFirst = Boolean(intent.attachTo && intent.shutdownFirst);
      requireExplained(question, {
        verbs: intent.attachTo ? ['attach', ...(shutdownFirst ? (['shutdown'] as const) : [])] : [],
        kinds: ['volumes', 'volume-types', 'locations', ...(intent.attachTo ? ['instances'] : [])],
        values: [intent.name ?? '', intent.location ?? '', intent.attachTo ?? '', findSizeText(question) ?? '', 'hdd', 'nvme', 'shared', 'sfs', 'nfs', 'file system', shutdownFirst ? 'first' : ''],
      });
      const size = intent.size ?? DEFAULT_VOLUME_SIZE_GB;
      const instance = intent.attachTo ? byName(lookup.instances, intent.attachTo, (i) => i.hostname, 'instances', 'instances') : undefined;
      // Shut it down only when the request says so, and only from running (other states cannot be shut down).
      const stopping = Boolean(instance && shutdownFirst && instance.status === 'running');
      if (instance && !stopping) requireStopped(instance);
      const name = intent.name ?? `volume-${size}gb`;
      const location = intent.location ?? instance?.location ?? DEFAULT_LOCATION;
      if (instance?.location && intent.location && instance.location !== intent.location) {
        throw new InvalidInputError('builtin_location_mismatch', `${instance.hostname} is in ${instance.location}, not ${intent.location}; a volume attaches only to an instance in its own location`);
      }
      requireDefaults(ctx, { sshKey: false, location: location === DEFAULT_LOCATION });
      const commands: PlanCommand[] = [];
      if (instance && stopping) {
        const host = instance.hostname ?? instance.id;
        commands.push(
          { args: api('PUT', '/v1/instances', { action: 'shutdown', id: instance.id }), reason: `shut down ${host} (volumes attach only to a shut-down instance)` },
          { args: ['gpucloud-wait', 'instances', instance.id, 'offline', VOLUME_READY_TIMEOUT_S, VOLUME_READY_INTERVAL_S], reason: `wait until ${host} is shut down` },
        );
      }
      commands.push(
        {
          args: api('POST', '/v1/volumes', { type: intent.volumeType, name, size, location_code: location }),
          reason: `create ${size} GB ${intent.volumeType} volume ${name}${intent.size ? '' : ' (default size)'}`,
          produces: { VOLUME_ID: '$.id' },
        },
      );
      if (instance) {
        // A new volume is "ordered" for a while and the API attaches only a "detached" one.
        commands.push(
          { args: ['gpucloud-wait', 'volumes', '<VOLUME_ID>', 'detached', VOLUME_READY_TIMEOUT_S, VOLUME_READY_INTERVAL_S], reason: `wait until ${name} is ready to attach` },
          { args: api('PUT', '/v1/volumes', { action: 'attach', id: '<VOLUME_ID>', instance_id: instance.id }), reason: `attach ${name} to ${instance.hostname ?? instance.id}` },
        );
      }
      const summary = `${stopping ? `shut down ${instance!.hostname ?? instance!.id}, ` : ''}create volume ${name}${instance ? ` and attach it to ${instance.hostname ?? instance.id}` : ''}`;
      const chosen = [
        ...(intent.size ? [] : [`default chosen: volume ${name} is ${size} GB because the request named no size; say the size (e.g. "500 GB") to choose`]),
        ...(/\b(nvme|hdd|shared|sfs|nfs)\b/i.test(question) ? [] : [`default chosen: volume ${name} is NVMe (HDD costs less per GB) because the request named no type; say "hdd" for HDD`]),
      ];
      return requireInCatalogue(plan(question, summary, commands, chosen), ctx);
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
        requireExplained(question, { verbs: [], kinds: ['volumes', 'instances'], values: [volumeName, volume.id, instanceName, instance.id] });
        requireStopped(instance);
        return plan(question, `attach ${volume.name ?? volume.id} to ${instance.hostname ?? instance.id}`, [
          { args: api('PUT', '/v1/volumes', { action: 'attach', id: volume.id, instance_id: instance.id }), reason: `attach ${volume.name ?? volume.id} to ${instance.hostname ?? instance.id}` },
        ]);
      }
      requireExplained(question, { verbs: [], kinds: ['volumes', 'instances'], values: [volumeName, volume.id] });
      return plan(question, `${intent.action} ${volume.name ?? volume.id}`, [
        { args: api('PUT', '/v1/volumes', { action: intent.action, id: volume.id }), reason: `${intent.action} volume ${volume.name ?? volume.id}` },
      ]);
    }
  }
}

/** The API attaches volumes only to a shut-down instance: refuse now rather than fail halfway through the plan. */
function requireStopped(instance: LookupInstance): void {
  if (instance.status && instance.status !== 'offline') {
    const name = instance.hostname ?? instance.id;
    throw new InvalidInputError('builtin_instance_running', `${name} is ${instance.status}; gpucloud attaches volumes only to a shut-down instance, so nothing was planned`, {
      hint: `shut it down first (assistant gpucloud action shutdown ${name}), then ask again, or add "and shut it down first" to the request`,
    });
  }
}

/** The alternatives a request allows (issue 31): at most this many besides the first choice (the schema's limit). */
const MAX_ALTERNATIVES = 10;
/** ISO 3166 country codes of Europe, for "anywhere in Europe" (locations carry a country_code). */
const EUROPE = new Set('AD AL AT BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GI GR HR HU IE IS IT LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS SE SI SK SM UA VA XK'.split(' '));

/** Every GPU model as written ("H100", "an A100"), for accounting for the words of a request with alternatives. */
function gpuModelWords(question: string): string[] {
  return [...question.matchAll(/(?:\b\d{1,2}\s*(?:x\s*|×\s*)?)?\b(?:h100|h200|b200|b300|a100|v100|l40s|a6000|rtx\s?6000(?:\s?ada)?|rtx\s?a6000|gh200)s?\b/gi)].map((m) => m[0]);
}

/**
 * "an H100 anywhere in Europe", "in FIN-01 or FIN-02", "an H100 or an A100": the choices of a create,
 * type by type in the order written, and within a type the locations available now first (the live
 * availability), the others after (capacity comes back). The first is the step as written; the rest
 * become its `alternatives`, tried at apply time only when the ones before have no capacity.
 */
function capacityChoices(instanceType: string, intent: Extract<Intent, { type: 'create-instance' }>, ctx: BuiltinContext): { first: { type: string; location: string }; alternatives: NonNullable<PlanCommand['alternatives']> } {
  const c = intent.choices!;
  const catalogueLocations = (ctx.catalogue?.locations ?? []) as { code?: unknown; country_code?: unknown }[];
  let locations = c.locations.length ? c.locations : intent.location ? [intent.location] : [];
  if (c.region) {
    if (!catalogueLocations.length) throw needData('locations', 'locations');
    const inRegion = catalogueLocations.filter((l) => c.region === 'any' || EUROPE.has(String(l.country_code ?? '').toUpperCase())).map((l) => String(l.code));
    if (!inRegion.length) throw new InvalidInputError('unknown_location', `no gpucloud location is in ${c.region === 'europe' ? 'Europe' : 'the catalogue'}`);
    locations = [...new Set([...locations, ...inRegion])];
  }
  if (!locations.length) locations = [DEFAULT_LOCATION];
  const models = c.moreGpuModels.map((model) => instanceTypeFromGpu({ ...intent, gpuModel: model, gpuCount: intent.gpuCount }, ctx.catalogue));
  const missing = c.moreGpuModels.filter((_, i) => !models[i]);
  if (missing.length) throw new InvalidInputError('unknown_instance_type', `no instance type with ${intent.gpuCount ?? 1}x ${missing.join(', ')} in the gpucloud catalogue`);
  const types = [...new Set([instanceType, ...c.moreTypes, ...(models as string[])])];
  const availability = (ctx.catalogue?.availability ?? []) as { location_code?: unknown; availabilities?: unknown }[];
  const availableNow = (type: string, location: string) => {
    const here = availability.find((a) => a.location_code === location);
    return !intent.spot && Array.isArray(here?.availabilities) && here.availabilities.includes(type);
  };
  const ordered = types.flatMap((type) => {
    const now = locations.filter((l) => availableNow(type, l));
    return [...now, ...locations.filter((l) => !now.includes(l))].map((location) => ({ type, location }));
  });
  if (ordered.length > MAX_ALTERNATIVES + 1) {
    throw new InvalidInputError('too_many', `that request allows ${ordered.length} choices of type and location; a plan step takes at most ${MAX_ALTERNATIVES + 1}`, { hint: 'name fewer locations or types' });
  }
  const [first, ...rest] = ordered;
  const alternatives = rest.map((o) => ({ ...(o.type !== first!.type ? { instance_type: o.type } : {}), ...(o.location !== first!.location ? { location_code: o.location } : {}) }));
  return { first: first!, alternatives };
}

/** Kinds the built-in planner can list (all of the catalogue). */
export function builtinListableKinds(): string[] {
  return KINDS.map((k) => k.kind);
}
