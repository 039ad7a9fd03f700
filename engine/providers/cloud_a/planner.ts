/**
 * The built-in planner for cloud_a (AWS): the common requests as `aws` plans, deterministic and
 * offline. It reads the whole request or refuses it (never plans part of a request): list instances or
 * buckets, create or delete a bucket, start, stop, reboot or terminate an instance by id or Name tag.
 * Names are resolved to ids before planning (plans do not filter), from the instances the caller read
 * with `cloudANeeds` → `instanceLookupPlan`.
 */
import { InvalidInputError } from '../../core/errors.js';
import type { Plan, PlanCommand } from '../../../schemas/plan.js';

const REGION = String.raw`([a-z]{2}(?:-gov)?-[a-z]+-\d)`;
const IN_REGION = String.raw`(?: in(?: region)? ${REGION})?`;
const MY = String.raw`(?: me)?(?: all)?(?: of)?(?: my| the| our)?`;
const CALLED = String.raw`(?: (?:called|named))?`;
/** S3 bucket names: 3–63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
/** A Name tag the grammar accepts (quoted names may hold spaces). */
const TAG_NAME = /^[\w .:/@+=-]{1,128}$/;

export type CloudAIntent =
  | { kind: 'list-instances'; region?: string }
  | { kind: 'list-buckets' }
  | { kind: 'create-bucket'; bucket: string; region?: string }
  | { kind: 'delete-bucket'; bucket: string }
  | { kind: 'instance-action'; action: 'start' | 'stop' | 'reboot' | 'terminate'; target: string; region?: string };

const ACTION_WORDS: Record<string, 'start' | 'stop' | 'reboot' | 'terminate'> = {
  start: 'start',
  stop: 'stop',
  'shut down': 'stop',
  shutdown: 'stop',
  reboot: 'reboot',
  restart: 'reboot',
  terminate: 'terminate',
  delete: 'terminate',
  destroy: 'terminate',
};

function unsupported(question: string, reason: string): InvalidInputError {
  return new InvalidInputError('not_understood', `the built-in planner cannot plan "${question}" for cloud_a: ${reason}`, {
    hint: 'it plans: list instances, list buckets, create/delete a bucket <name>, start/stop/reboot/terminate instance <id or Name tag>; for anything else configure an AI provider (README "Configuring AI providers") or write the aws plan yourself (README "Other clouds")',
  });
}

/** The request as one line, without trailing punctuation or "please"; names keep their case (Name tags are case sensitive). */
function normalise(question: string): string {
  return question
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^please /i, '')
    .replace(/[.!?]+$/, '')
    .replace(/ please$/i, '')
    .replace(/'([^']*)'/g, '"$1"');
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1');
/** Keywords match in any case; the captured names are kept as written. */
const re = (source: string) => new RegExp(source, 'i');
const lower = (region: string | undefined) => region?.toLowerCase();

/** What a cloud_a request asks for, or a refusal naming what the grammar reads. */
export function parseCloudAIntent(question: string): CloudAIntent {
  const q = normalise(question);
  const aws = String.raw`(?: (?:aws|amazon|ec2|s3))?`;
  let m: RegExpExecArray | null;
  if ((m = re(String.raw`^(?:list|show|what are)${MY}${aws} (?:instances|vms|virtual machines|servers|machines)(?: (?:on|in) (?:aws|ec2))?${IN_REGION}$`).exec(q))) {
    return { kind: 'list-instances', region: lower(m[1]) };
  }
  if (re(String.raw`^(?:list|show|what are)${MY}${aws} buckets(?: (?:on|in) (?:aws|s3))?$`).test(q)) return { kind: 'list-buckets' };
  if ((m = re(String.raw`^(?:create|make|add)(?: an?| the)?(?: new)?${aws} bucket${CALLED} ("[^"]*"|\S+)${IN_REGION}$`).exec(q))) {
    return { kind: 'create-bucket', bucket: bucketName(unquote(m[1]!)), region: lower(m[2]) };
  }
  if ((m = re(String.raw`^(?:delete|remove|destroy)(?: an?| the| my)?${aws} bucket${CALLED} ("[^"]*"|\S+)$`).exec(q))) {
    return { kind: 'delete-bucket', bucket: bucketName(unquote(m[1]!)) };
  }
  const actions = Object.keys(ACTION_WORDS).join('|');
  if ((m = re(String.raw`^(${actions})(?: an?| the| my)?${aws}( (?:instance|vm|server|machine)${CALLED})? ("[^"]*"|\S+)${IN_REGION}$`).exec(q))) {
    const target = unquote(m[3]!);
    // Without the word "instance" only an instance id says what is meant ("stop web" could be anything).
    if (!m[2] && !INSTANCE_ID.test(target)) throw unsupported(question, `say "instance ${target}" (or give its id, i-…)`);
    if (!INSTANCE_ID.test(target) && !TAG_NAME.test(target)) throw unsupported(question, `"${target}" is neither an instance id (i-…) nor a Name tag`);
    return { kind: 'instance-action', action: ACTION_WORDS[m[1]!.toLowerCase()]!, target, region: lower(m[4]) };
  }
  throw unsupported(question, 'it is not one of the requests it knows');
}

function bucketName(name: string): string {
  if (!BUCKET_NAME.test(name) || name.includes('..')) {
    throw new InvalidInputError('invalid_name', `"${name}" is not a valid S3 bucket name`, {
      hint: 'bucket names are 3–63 characters: lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit',
    });
  }
  return name;
}

/** An instance as the planner needs it to resolve a Name tag. */
export interface CloudAInstance {
  id: string;
  name?: string;
  state?: string;
}

/** What the planner must read first: the instances carrying a Name tag, when the request names one. */
export function cloudANeeds(question: string): { instancesNamed?: string; region?: string } {
  const intent = parseCloudAIntent(question);
  if (intent.kind === 'instance-action' && !INSTANCE_ID.test(intent.target)) return { instancesNamed: intent.target, region: intent.region };
  return {};
}

/** The read-only plan that finds the instances with a Name tag (terminated ones excluded). */
export function instanceLookupPlan(name: string, region?: string): Plan {
  return {
    version: 1,
    provider: 'cloud_a',
    commands: [
      {
        args: ['aws', 'ec2', 'describe-instances', '--filters', `Name=tag:Name,Values=${name}`, 'Name=instance-state-name,Values=pending,running,stopping,stopped', ...regionArgs(region)],
        reason: `find the instance named ${name}`,
      },
    ],
  };
}

/** The instances of a describe-instances answer. */
export function instancesOf(data: unknown): CloudAInstance[] {
  const reservations = (data as { Reservations?: { Instances?: { InstanceId?: string; State?: { Name?: string }; Tags?: { Key?: string; Value?: string }[] }[] }[] } | null)?.Reservations ?? [];
  return reservations.flatMap((r) =>
    (r.Instances ?? []).filter((i) => i.InstanceId).map((i) => ({ id: i.InstanceId!, name: i.Tags?.find((t) => t.Key === 'Name')?.Value, state: i.State?.Name })),
  );
}

const regionArgs = (region?: string) => (region ? ['--region', region] : []);

/** The plan for a cloud_a request; `instances` are those `instanceLookupPlan` found, when a Name tag was given. */
export function planCloudA(question: string, instances?: CloudAInstance[]): Plan {
  const intent = parseCloudAIntent(question);
  const plan = (summary: string, commands: PlanCommand[]): Plan => ({ version: 1, provider: 'cloud_a', summary, commands });
  switch (intent.kind) {
    case 'list-instances':
      return plan('list the EC2 instances', [{ args: ['aws', 'ec2', 'describe-instances', ...regionArgs(intent.region)], reason: 'list the instances' }]);
    case 'list-buckets':
      return plan('list the S3 buckets', [{ args: ['aws', 's3api', 'list-buckets'], reason: 'list the buckets' }]);
    case 'create-bucket': {
      // Outside us-east-1 S3 needs the location constraint to match the region.
      const where = intent.region && intent.region !== 'us-east-1' ? ['--region', intent.region, '--create-bucket-configuration', `LocationConstraint=${intent.region}`] : regionArgs(intent.region);
      return plan(`create the S3 bucket ${intent.bucket}`, [
        { args: ['aws', 's3api', 'create-bucket', '--bucket', intent.bucket, ...where], reason: `create the bucket ${intent.bucket}`, produces: { BUCKET_LOCATION: '$.Location' } },
      ]);
    }
    case 'delete-bucket':
      return plan(`delete the S3 bucket ${intent.bucket} (it must be empty)`, [
        { args: ['aws', 's3api', 'delete-bucket', '--bucket', intent.bucket], reason: `delete the bucket ${intent.bucket}` },
      ]);
    case 'instance-action': {
      const id = INSTANCE_ID.test(intent.target) ? intent.target : resolveName(intent.target, instances);
      const label = id === intent.target ? id : `${intent.target} (${id})`;
      return plan(`${intent.action} the instance ${label}`, [
        { args: ['aws', 'ec2', `${intent.action}-instances`, '--instance-ids', id, ...regionArgs(intent.region)], reason: `${intent.action} ${label}` },
      ]);
    }
  }
}

function resolveName(name: string, instances: CloudAInstance[] | undefined): string {
  if (!instances) {
    throw new InvalidInputError('builtin_needs_data', `the built-in planner needs the current instances to resolve the Name tag "${name}" to an id`, {
      hint: 'pass the instance id (i-…) instead',
    });
  }
  const found = instances.filter((i) => i.name === name && i.state !== 'terminated' && i.state !== 'shutting-down');
  if (!found.length) {
    throw new InvalidInputError('not_found', `no instance has the Name tag "${name}" (terminated ones are not counted)`, {
      hint: 'list them with `assistant ask --maker --cloud-a "list my instances" | assistant ask --apply`, or pass the id (i-…)',
    });
  }
  if (found.length > 1) {
    throw new InvalidInputError('ambiguous', `${found.length} instances have the Name tag "${name}": ${found.map((i) => i.id).join(', ')}`, {
      hint: 'pass the id (i-…) of the one you mean',
    });
  }
  return found[0]!.id;
}
