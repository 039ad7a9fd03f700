/**
 * Compiles an analysed repository into a gpucloud plan document. It reads what exists (the live
 * catalogue and the project's instances, scripts, container deployments and secrets, read by the
 * caller through the executor) and produces a create plan, or an update plan when the name is
 * already deployed, so redeploying never trips the duplicate-name check with a second create.
 *
 * target `instance`: startup script → instance of the cheapest fitting type available in the location
 * → wait until running (its IP is the URL's host). target `container`: secrets (values bound at apply
 * time, never in the plan) → container deployment (POST, or PATCH when it exists).
 */
import { createHash } from 'node:crypto';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { apiDefaultNotes } from './priced-defaults.js';
import { withNotes } from '../../core/plan/notes.js';
import { describePolicy, policyOfScript } from '../../core/kits/autostop/policy.js';
import { InvalidInputError } from '../../core/errors.js';
import { chooseImage } from './catalogue-check.js';
import { findRow, num } from './prices.js';
import type { DeployCompiled } from '../../core/capabilities.js';
import type { DeployRequest, Stack } from '../../core/deploy-types.js';
import { deployScript } from '../../core/kits/deploy/startup-script.js';
import { secretBinding, slugName } from '../../core/kits/deploy/names.js';

/** What the compiler reads (plain API records). */
export interface LiveState {
  instanceTypes: unknown[];
  availability: unknown[];
  images: unknown[];
  instances: unknown[];
  scripts: unknown[];
  containers: unknown[];
  secrets: unknown[];
  containerTypes: unknown[];
  computeResources: unknown[];
}

const SHORT = (sha: string) => sha.slice(0, 7);
const api = (method: string, path: string, body?: unknown): string[] => ['gpucloud-api', method, path, ...(body === undefined ? [] : [JSON.stringify(body)])];
const str = (r: unknown, k: string): string | undefined => {
  const v = (r as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'string' ? v : undefined;
};
const pricePerHour = (t: unknown) => num((t as { price_per_hour?: unknown })?.price_per_hour) ?? Infinity;
const gpus = (t: unknown) => num((t as { gpu?: { number_of_gpus?: unknown } })?.gpu?.number_of_gpus) ?? 0;
const gpuMem = (t: unknown) => num((t as { gpu_memory?: { size_in_gigabytes?: unknown } })?.gpu_memory?.size_in_gigabytes) ?? 0;

/**
 * The startup script name of a deploy: commit and a digest of the script, so one name always means one
 * content (an existing script of that name is reused, never created twice) and a redeploy of another
 * commit or other settings is a new script.
 */
export const scriptName = (name: string, sha: string, script: string) => `deploy-${name}-${SHORT(sha)}-${createHash('sha256').update(script).digest('hex').slice(0, 6)}`;
export const secretName = (name: string, variable: string) => slugName(`${name}-${variable}`);

/** Instance types sold in `location` right now (on demand). */
function availableIn(live: LiveState, location: string): Set<string> {
  const entry = live.availability.find((a) => str(a, 'location_code') === location) as { availabilities?: unknown } | undefined;
  return new Set(Array.isArray(entry?.availabilities) ? entry.availabilities.map(String) : []);
}

/** The cheapest type available in the location that fits (a GPU with enough memory when needed, else CPU only). */
export function chooseInstanceType(req: Pick<DeployRequest, 'instanceType' | 'location' | 'stack'>, live: LiveState): string {
  const known = live.instanceTypes.map((t) => str(t, 'instance_type')).filter((t): t is string => Boolean(t));
  const available = availableIn(live, req.location);
  if (req.instanceType) {
    if (!known.includes(req.instanceType)) {
      throw new InvalidInputError('unknown_instance_type', `instance type "${req.instanceType}" is not in the gpucloud catalogue`, { hint: `valid: ${known.join(', ')}` });
    }
    if (!available.has(req.instanceType)) {
      throw new InvalidInputError('not_available', `${req.instanceType} is not available in ${req.location} right now`, {
        hint: `available there: ${[...available].join(', ') || 'nothing'}; or pick another --location`,
      });
    }
    return req.instanceType;
  }
  const { needed, memoryGb } = req.stack.gpu;
  const fits = live.instanceTypes
    .filter((t) => available.has(str(t, 'instance_type') ?? ''))
    .filter((t) => (needed ? gpus(t) > 0 && gpuMem(t) >= (memoryGb ?? 0) : gpus(t) === 0))
    .sort((a, b) => pricePerHour(a) - pricePerHour(b));
  const best = fits[0];
  if (!best) {
    const what = needed ? `a GPU type${memoryGb ? ` with at least ${memoryGb} GB GPU memory` : ''}` : 'a CPU type';
    throw new InvalidInputError('no_fitting_type', `no instance type available in ${req.location} fits: the service needs ${what}`, {
      hint: 'pick another --location, or name one with --instance-type (list them: assistant gpucloud list availability)',
    });
  }
  return str(best, 'instance_type')!;
}

/** The cheapest available serverless compute: a GPU with enough memory when needed, else General Compute. */
export function chooseCompute(stack: Stack, live: LiveState): { name: string; size: number } {
  const types = live.containerTypes;
  const options = live.computeResources
    .filter((c) => (c as { is_available?: unknown }).is_available === true && num((c as { size?: unknown }).size) === 1)
    .map((c) => ({ name: str(c, 'name')!, type: findRow(types, 'name', str(c, 'name')) }))
    .filter((c) => c.name && c.type)
    .filter((c) => (stack.gpu.needed ? gpus(c.type) > 0 && gpuMem(c.type) >= (stack.gpu.memoryGb ?? 0) : gpus(c.type) === 0))
    .sort((a, b) => (num(a.type?.serverless_price) ?? Infinity) - (num(b.type?.serverless_price) ?? Infinity));
  if (!options[0]) {
    throw new InvalidInputError('no_fitting_compute', `no serverless compute available now fits${stack.gpu.needed ? ` (a GPU${stack.gpu.memoryGb ? ` with ${stack.gpu.memoryGb} GB` : ''})` : ''}`, {
      hint: 'list them: assistant gpucloud list container-types; or deploy to an instance (--target instance)',
    });
  }
  return { name: options[0].name, size: 1 };
}

export function compileDeploy(req: DeployRequest, live: LiveState): DeployCompiled {
  return req.target === 'container' ? compileContainer(req, live) : compileInstance(req, live);
}

function compileInstance(req: DeployRequest, live: LiveState): DeployCompiled {
  const existing = live.instances.find((i) => str(i, 'hostname') === req.name);
  const secretNames = req.env.filter((e) => e.secret).map((e) => e.name);
  const script = deployScript(req);
  const notes: string[] = [];
  if (secretNames.length) notes.push(`secret variables are not put on the instance by this plan (a startup script is stored in plain text): add ${secretNames.join(', ')} to /etc/assistant-deploy/${req.name}.env on the instance, then: systemctl restart assistant-deploy-${req.name}`);
  if (/^(file:|\/|\.|[A-Za-z]:\\)/.test(req.url) || !/[:@]/.test(req.url)) notes.push(`the repository is a local path (${req.url}): the instance cannot fetch it from there; deploy from a URL the instance can reach`);
  if (req.privateRepo) notes.push('the repository is private: the instance clones it itself, so give it read access of its own (a deploy key); the token used here is never sent to it');
  const wantedScript = scriptName(req.name, req.sha, script);
  // A script of this name has this content (the name carries its digest): reuse it rather than create it twice.
  const reusable = str(live.scripts.find((s) => str(s, 'name') === wantedScript), 'id');
  const scriptCreate: PlanCommand[] = reusable
    ? []
    : [
        {
          args: api('POST', '/v1/scripts', { name: wantedScript, script }),
          reason: `startup script: install the ${req.stack.runtime ?? 'service'} runtime, fetch ${req.url} at ${SHORT(req.sha)}, run it under systemd on port ${req.port}`,
          produces: { SCRIPT_ID: '$.id' },
        },
      ];
  const provider = 'gpucloud';

  if (existing) {
    const id = str(existing, 'id')!;
    const scriptId = str(existing, 'startup_script_id');
    const current = live.scripts.find((s) => str(s, 'id') === scriptId);
    const currentName = str(current, 'name') ?? '';
    if (!currentName.startsWith(`deploy-${req.name}-`)) {
      throw new InvalidInputError('name_taken', `an instance named "${req.name}" exists and was not made by deploy (its startup script is ${currentName ? `"${currentName}"` : 'none'})`, {
        hint: 'deploy under another name with --name',
      });
    }
    const wait: PlanCommand = { args: ['gpucloud-wait', 'instances', id, 'running'], reason: `wait until ${req.name} is running`, produces: { INSTANCE_IP: '$.ip' } };
    if (req.autostop && !policyOfScript(str(current, 'script') ?? '')) {
      notes.push(`--autostop: ${req.name} was created without auto-stop, and startup scripts run only at first boot; deploy it under a new --name to have it`);
    }
    const type = str(existing, 'instance_type') ?? '?';
    if (currentName === wantedScript) {
      return {
        plan: { version: 1, provider, summary: `${req.name} already runs ${req.url} at ${SHORT(req.sha)}; nothing to change`, commands: [wait], notes: notes.length ? notes : undefined },
        secretBindings: {},
        url: `http://<INSTANCE_IP>:${req.port}`,
        mode: 'unchanged',
        chosen: type,
      };
    }
    notes.unshift(
      `update: ${req.name} keeps running; startup scripts run only at first boot and gpucloud cannot run one again, so roll the new commit out on the instance with: ssh root@<INSTANCE_IP> assistant-deploy-${req.name} ${req.sha}`,
    );
    return {
      plan: {
        version: 1,
        provider,
        summary: `update ${req.name} to ${req.url} at ${SHORT(req.sha)} (was ${currentName.slice(`deploy-${req.name}-`.length, `deploy-${req.name}-`.length + 7)})`,
        commands: [...scriptCreate, wait],
        notes,
      },
      secretBindings: {},
      url: `http://<INSTANCE_IP>:${req.port}`,
      mode: 'update',
      chosen: type,
    };
  }

  const type = chooseInstanceType(req, live);
  const image = chooseImage(type, { instanceTypes: live.instanceTypes, images: live.images });
  if (!image) throw new InvalidInputError('unknown_image', `no OS image in the gpucloud catalogue runs on ${type}`, { hint: 'list them with: assistant gpucloud list images' });
  const instanceCreate: PlanCommand = {
    args: api('POST', '/v1/instances', {
      instance_type: type,
      image,
      hostname: req.name,
      description: `deploy of ${req.url} at ${SHORT(req.sha)}`,
      location_code: req.location,
      ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'],
      startup_script_id: reusable ?? '<SCRIPT_ID>',
    }),
    reason: `create ${type} instance ${req.name} in ${req.location} (${req.stack.gpu.needed ? 'GPU' : 'CPU'}; cheapest available that fits${req.instanceType ? ', as --instance-type asked' : ''})`,
    produces: { INSTANCE_ID: '$.id' },
    ...(req.autostop ? { autostop: req.autostop } : {}),
  };
  if (req.autostop) notes.push(`auto-stop: ${describePolicy(req.autostop)}, once \`assistant autostop check\` runs (cron, CI, or \`assistant mcp\` with autostop.check_every)`);
  if (!req.instanceType) notes.push(`default chosen: instance type ${type}, the cheapest available in ${req.location} that fits (${req.stack.gpu.needed ? 'GPU' : 'CPU only'}), because --instance-type was not given`);
  const wait: PlanCommand = { args: ['gpucloud-wait', 'instances', '<INSTANCE_ID>', 'running'], reason: `wait until ${req.name} is running`, produces: { INSTANCE_IP: '$.ip' } };
  const plan: Plan = {
    version: 1,
    provider,
    summary: `deploy ${req.url} at ${SHORT(req.sha)} as ${req.name} on a ${type} instance; then http://<INSTANCE_IP>:${req.port}`,
    commands: [...scriptCreate, instanceCreate, wait],
    notes: notes.length ? notes : undefined,
  };
  return {
    plan: withNotes(plan, apiDefaultNotes(plan)),
    secretBindings: {},
    url: `http://<INSTANCE_IP>:${req.port}`,
    mode: 'create',
    chosen: type,
  };
}

/** A tag other than `latest`, or a digest (wire reference §16: the API rejects the rest). */
export function pinnedTag(image: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/i.test(image)) return true;
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return colon > 0 && colon < last.length - 1 && last.slice(colon + 1) !== 'latest';
}

/** One `env` entry of a gpucloud container: a plain value, or a secret's name (never its value). */
export type ContainerEnv = { type: 'plain' | 'secret'; name: string; value_or_reference_to_secret: string };

/**
 * A container of a gpucloud container deployment (wire reference §16): image, port, health check on that
 * port, environment, and optionally the entrypoint and arguments that replace the image's own.
 */
export function containerSpec(o: { image: string; port: number; healthPath: string; env: ContainerEnv[]; entrypoint?: { entrypoint: string[]; cmd: string[] } }): Record<string, unknown> {
  return {
    image: o.image,
    exposed_port: o.port,
    healthcheck: { enabled: true, port: o.port, path: o.healthPath },
    ...(o.entrypoint ? { entrypoint_overrides: { enabled: true, ...o.entrypoint } } : {}),
    env: o.env,
  };
}

/** The scaling block: replicas between `min` and `max`, `concurrency` requests per replica (default 1), CPU (and GPU) triggers. */
export function containerScaling(o: { min: number; max: number; gpu: boolean; concurrency?: number }): Record<string, unknown> {
  return {
    min_replica_count: o.min,
    max_replica_count: o.max,
    scale_down_policy: { delay_seconds: 300 },
    scale_up_policy: { delay_seconds: 0 },
    queue_message_ttl_seconds: 300,
    concurrent_requests_per_replica: o.concurrency ?? 1,
    scaling_triggers: { queue_load: { threshold: 1 }, cpu_utilization: { enabled: true, threshold: 80 }, gpu_utilization: { enabled: o.gpu, ...(o.gpu ? { threshold: 80 } : {}) } },
  };
}

/** The body of `POST /v1/container-deployments` for one container from a public registry, on demand (not spot). */
export function containerDeploymentBody(o: { name: string; compute: { name: string; size: number }; scaling: Record<string, unknown>; container: Record<string, unknown> }): Record<string, unknown> {
  return { name: o.name, is_spot: false, compute: o.compute, container_registry_settings: { is_private: false }, scaling: o.scaling, containers: [o.container] };
}

function compileContainer(req: DeployRequest, live: LiveState): DeployCompiled {
  if (!req.image) throw new InvalidInputError('no_image', 'target container needs a prebuilt image', { hint: 'name it with --image <registry/name:tag>, or deploy to an instance (--target instance)' });
  if (!pinnedTag(req.image)) {
    throw new InvalidInputError('image_not_pinned', `image "${req.image}" has no version tag (or uses "latest"); gpucloud refuses such images for container deployments`, {
      hint: 'name a pinned image with --image <registry/name:tag>',
    });
  }
  const existing = live.containers.find((c) => str(c, 'name') === req.name);
  const existingSecrets = new Set(live.secrets.map((s) => str(s, 'name')));
  const commands: PlanCommand[] = [];
  const secretBindings: Record<string, string> = {};
  const notes: string[] = [];
  const env = req.env.map((e): ContainerEnv => {
    if (!e.secret) return { type: 'plain', name: e.name, value_or_reference_to_secret: e.value };
    const secret = secretName(req.name, e.name);
    if (existingSecrets.has(secret)) {
      notes.push(`secret ${secret} exists and is referenced as it is (gpucloud cannot update a secret's value; delete it to replace it)`);
    } else {
      const binding = secretBinding(e.name);
      secretBindings[binding] = e.value;
      commands.push({
        args: api('POST', '/v1/secrets', { name: secret, value: `<${binding}>` }),
        reason: `secret ${secret} for ${e.name} (its value comes from --env-file when applied; it is never in the plan)`,
      });
    }
    return { type: 'secret', name: e.name, value_or_reference_to_secret: secret };
  });
  const compute = chooseCompute(req.stack, live);
  notes.push(`default chosen: compute ${compute.name} (size ${compute.size}), the cheapest container type that fits (${req.stack.gpu.needed ? 'GPU' : 'CPU only'}); up to ${req.maxReplicas} replica${req.maxReplicas === 1 ? '' : 's'} bill while they run`);
  const container = containerSpec({ image: req.image, port: req.port, healthPath: req.healthPath, env });
  const scaling = containerScaling({ min: req.minReplicas, max: req.maxReplicas, gpu: req.stack.gpu.needed });
  let mode: DeployCompiled['mode'] = 'create';
  if (existing) {
    mode = 'update';
    const containers = (existing as { containers?: unknown[] }).containers ?? [];
    container.name = str(containers[0], 'name') ?? 'main';
    commands.push({
      args: api('PATCH', `/v1/container-deployments/${encodeURIComponent(req.name)}`, { compute, scaling, containers: [container] }),
      reason: `update container deployment ${req.name}: image ${req.image}, port ${req.port}, ${compute.name}`,
    });
  } else {
    commands.push({
      args: api('POST', '/v1/container-deployments', containerDeploymentBody({ name: req.name, compute, scaling, container })),
      reason: `create container deployment ${req.name}: image ${req.image}, port ${req.port}, ${compute.name}, ${req.minReplicas}–${req.maxReplicas} replicas`,
      produces: { ENDPOINT: '$.endpoint_base_url' },
    });
  }
  return {
    plan: {
      version: 1,
      provider: 'gpucloud',
      summary: `${mode === 'update' ? 'update' : 'deploy'} ${req.image} (from ${req.url} at ${SHORT(req.sha)}) as container deployment ${req.name}`,
      commands,
      notes: notes.length ? notes : undefined,
    },
    secretBindings,
    url: mode === 'update' ? String((existing as { endpoint_base_url?: unknown }).endpoint_base_url ?? '') : '<ENDPOINT>',
    mode,
    chosen: compute.name,
  };
}
