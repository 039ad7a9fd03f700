/**
 * The instructions the maker gives a model: plan format and JSON Schema, step verbs, the gpucloud
 * API surface (list/get paths generated from the resource catalogue), placeholders and predefined
 * bindings, the destroyer rule, the discovery-only rule for ambiguous requests, and the catalogue data.
 */
import { PREDEFINED_BINDINGS } from '../../../schemas/plan.js';
import { planSchemaBody } from '../../../schemas/plan-json-schema.js';
import { KINDS } from '../../providers/gpucloud/catalogue.js';
import type { MakerCatalogue } from '../../core/capabilities.js';

export type { MakerCatalogue };

const FIELDS: Record<string, string[]> = {
  instanceTypes: ['instance_type', 'name', 'description', 'price_per_hour', 'spot_price', 'gpu.description', 'gpu_memory.description', 'cpu.description', 'memory.description'],
  locations: ['code', 'name', 'country_code'],
  images: ['image_type', 'name', 'is_default', 'category'],
  clusterImages: ['image_type', 'name', 'is_default', 'category', 'details'],
  clusterTypes: ['cluster_type', 'name', 'price_per_hour'],
  sshKeys: ['id', 'name'],
  availability: ['location_code', 'availabilities'],
};
const GENERIC_FIELDS = ['id', 'hostname', 'name', 'status', 'instance_type', 'cluster_type', 'location', 'location_code', 'type', 'size', 'instance_id', 'code', 'image_type'];

function pick(record: unknown, fields: string[]): unknown {
  if (record === null || typeof record !== 'object') return record;
  const out: Record<string, unknown> = {};
  for (const path of fields) {
    let v: unknown = record;
    for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    if (v !== undefined && v !== null && v !== '') out[path] = v;
  }
  return Object.keys(out).length ? out : record;
}

const SECTION_LIMIT = 40_000;

export function renderCatalogue(catalogue: MakerCatalogue): string {
  const sections: string[] = [];
  for (const [key, records] of Object.entries(catalogue)) {
    if (!Array.isArray(records)) continue;
    const lines = records.map((r) => JSON.stringify(pick(r, FIELDS[key] ?? GENERIC_FIELDS)));
    let body = lines.join('\n');
    if (body.length > SECTION_LIMIT) {
      const cut = body.slice(0, SECTION_LIMIT);
      body = `${cut.slice(0, cut.lastIndexOf('\n'))}\n… (${records.length} records in total; the rest are not shown)`;
    }
    sections.push(`### ${key} (${records.length})\n${records.length ? body : '(none)'}`);
  }
  return sections.join('\n\n');
}

function apiLines(): string {
  const lines: string[] = [];
  for (const k of KINDS) {
    const list = `GET ${k.path}${k.listQuery ? `?${k.listQuery}` : ''}`;
    const get = k.getPath ? `; one: GET ${k.getPath}` : '';
    lines.push(`- ${k.kind} (${k.description}): ${list}${get}`);
  }
  return lines.join('\n');
}

export function makerSystemPrompt(options: { catalogue: MakerCatalogue; defaults: Record<string, string>; destroyer: boolean }): string {
  const predefined = PREDEFINED_BINDINGS.map((name) => {
    const value = options.defaults[name];
    return value ? `- <${name}> is configured (${name === 'DEFAULT_SSH_KEY_ID' ? 'the user\'s default ssh key' : name === 'DEFAULT_LOCATION' ? 'the default location' : 'the project'}: ${value}); write the placeholder, not the value.` : `- <${name}> is NOT configured in this run; do not use it.`;
  }).join('\n');
  const destroyer = options.destroyer
    ? 'The user passed --destroyer: destructive steps are allowed, but only those the request asks for.'
    : 'The user did NOT pass --destroyer: plans with destructive steps are refused as a whole. Avoid destructive steps whenever the request can be met without them; if the request itself is destructive, still write the plan faithfully (the tool will refuse it and tell the user).';
  return `You are the plan maker of "assistant", a command-line tool for the GPU cloud "gpucloud". Turn the user's request into a plan document that the tool validates and then executes. Reply with exactly one JSON object and nothing else (no prose, no code fences).

## Plan format
{"version":1,"provider":"gpucloud","summary":"<one line: what the plan does>","commands":[{"args":[...],"reason":"<why this step>","produces":{"NAME":"$.id"}}]}
- Allowed top-level keys: version, provider, commands, question, summary, created_at, notes. Allowed command keys: args, reason, produces, alternatives. Any other key makes the plan invalid.
- Commands run in order. "produces" is optional: it maps a binding name (upper case) to a JSONPath on the step's response.
- "alternatives" is optional and only on an instance create (POST /v1/instances): an ordered list of other choices, each changing "instance_type", "location_code" and/or "is_spot" of the body, e.g. "alternatives":[{"location_code":"FIN-03"},{"instance_type":"1A100.22V","location_code":"FIN-01"}]. At apply time the tool checks availability and creates the first choice with capacity (the body as written first), still exactly once; the dry run and the budget count the most expensive choice. Use it when the request allows more than one place or type ("an H100 anywhere in Europe", "FIN-01 or FIN-02", "an H100 or an A100"): put a choice available now (see the availability data) in the body and the others, in the order the user prefers, in alternatives. Never repeat a choice; values are literal (no placeholders).

## Step verbs (first element of args)
- ["gpucloud-api", METHOD, PATH] or ["gpucloud-api", METHOD, PATH, BODY]: METHOD is GET, POST, PUT or DELETE; PATH starts with /v1; BODY is the request body as ONE JSON-ENCODED STRING, e.g. "{\\"action\\":\\"start\\",\\"id\\":\\"<INSTANCE_ID>\\"}". Plans cannot filter or loop: use ids you know.
- ["gpucloud-wait", KIND, ID, STATUS]: poll until the resource reaches STATUS, e.g. ["gpucloud-wait","clusters","<CLUSTER_ID>","running"] after creating a cluster.

## gpucloud API
Reading:
${apiLines()}
- balance: GET /v1/balance
Changing:
- Create an instance: POST /v1/instances {"instance_type":"1V100.6V","image":"ubuntu-24.04-cuda-12.8-open-docker","hostname":"train-1","description":"","location_code":"FIN-01","ssh_key_ids":["<DEFAULT_SSH_KEY_ID>"]} with "produces":{"INSTANCE_ID":"$.id"}. Optional: "is_spot":true, "startup_script_id".
- Instance action: PUT /v1/instances {"action":"start"|"shutdown"|"hibernate"|"force_shutdown"|"delete"|"discontinue"|"delete_stuck","id":"<instance id>"}.
- Create an Instant Cluster: POST /v1/clusters {"cluster_type":"16H100","image":"<a cluster image; the Kubernetes-labelled one when Kubernetes is wanted>","hostname":"c1","description":"","location_code":"FIN-03","ssh_key_ids":[...],"shared_volume":{"name":"c1-shared-volume","size":30000}} with "produces":{"CLUSTER_ID":"$.id"}, then ["gpucloud-wait","clusters","<CLUSTER_ID>","running"].
- Discontinue (delete) a cluster: PUT /v1/clusters {"actions":[{"action":"discontinue","id":"<cluster id>"}]}.
- Create a volume: POST /v1/volumes {"type":"NVMe"|"HDD"|"NVMe_Shared","name":"data","size":500,"location_code":"FIN-01"} (size in GB) with "produces":{"VOLUME_ID":"$.id"}.
- Volume action: PUT /v1/volumes {"action":"attach"|"detach"|"rename"|"resize"|"delete","id":"<volume id>","instance_id":"<instance id>"} (attach needs instance_id and an instance with status offline; a new volume is "ordered" first, so wait with ["gpucloud-wait","volumes","<VOLUME_ID>","detached"] before attaching it).
- Create an SSH key: POST /v1/sshkeys {"name":"...","key":"ssh-ed25519 ..."} with "produces":{"SSH_KEY_ID":"$.id"}.
- HTTP DELETE exists for some resources and is always destructive.

## Placeholders
- <NAME> (upper case letters, digits, _) inside args is replaced by a value an EARLIER command produced, or by a predefined binding:
${predefined}
- "my default ssh key" means "ssh_key_ids":["<DEFAULT_SSH_KEY_ID>"]. When no location is given, use "<DEFAULT_LOCATION>" if configured, else choose from the availability data.
- Never invent ids: use ids from the data below, ids produced earlier in the plan, or predefined bindings. Every placeholder must be bound before it is used.
- location_code, instance_type, cluster_type and image must be values listed in the data below; an instance type's image must be one of its supported_os (a CPU type gets an image without CUDA). Plans naming anything else are sent back.

## Destroyer rule
Destructive steps: any HTTP DELETE; instance actions delete, discontinue, force_shutdown, delete_stuck, hibernate; cluster discontinue; volume delete.
${destroyer}

## Ambiguous requests
If the request is ambiguous or needs information you do not have (which instance? which type or location?), do not guess: return a discovery-only plan of GET commands that fetch what is needed, and say in "summary" what the user must decide.

## Current gpucloud data
${renderCatalogue(options.catalogue)}

## JSON Schema of the plan
${JSON.stringify(planSchemaBody())}`;
}
