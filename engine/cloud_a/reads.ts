/**
 * The one catalogue of cloud_a (AWS) reads: for each service, the words that ask about it, the
 * read-only `aws` step that lists it, and how its JSON output becomes named records. The ask context
 * plan (machines/ask.ts), the built-in answers (answer.ts) and the discovery report
 * (engine/reports/discovery.ts) all read this table; none of them names a service of its own.
 */
import { TermMatcher } from '../routing/match.js';

/** One resource as the answers and reports show it. */
export interface AwsRecord {
  name: string;
  /** The state or status as the service reports it (`running`, `available`, `ACTIVE`…). */
  state?: string;
  detail?: string;
}

export interface AwsReadSpec {
  /** Short service key (`ec2`), also the record kind in the AI prompt (`cloud_a/ec2`). */
  service: string;
  /** What the records are, plural (`EC2 instances`). */
  label: string;
  singular: string;
  /** Question words that select this read (whole words, case-insensitive). */
  words: string[];
  /** The step: `["aws", service, operation, …]`, read-only. */
  args: string[];
  /** Read by default when only the flag (`--cloud-a`) or the provider's name chose cloud_a. */
  byDefault: boolean;
  /** Whether the service is global (IAM, S3 bucket list) rather than per region. */
  global?: boolean;
  records(data: unknown): AwsRecord[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
/** The last segment of an ARN or URL: the name an ARN-only list (ecs, sqs) stands for. */
const lastSegment = (s: string) => s.replace(/\/+$/, '').split(/[/:]/).pop() || s;
const nameTag = (tags: unknown) => str(arr(tags).map(obj).find((t) => t.Key === 'Name')?.Value);

const names = (key: string, map: (v: string) => string = (v) => v) => (data: unknown): AwsRecord[] =>
  arr(obj(data)[key]).filter((v): v is string => typeof v === 'string').map((v) => ({ name: map(v) }));

export const AWS_READS: readonly AwsReadSpec[] = [
  {
    service: 'ec2',
    label: 'EC2 instances',
    singular: 'EC2 instance',
    words: ['ec2', 'instance', 'instances', 'vm', 'vms', 'server', 'servers', 'compute', 'ami', 'amis'],
    args: ['aws', 'ec2', 'describe-instances'],
    byDefault: true,
    records: (data) =>
      arr(obj(data).Reservations).flatMap((r) =>
        arr(obj(r).Instances).map((i) => {
          const inst = obj(i);
          const id = str(inst.InstanceId) ?? '?';
          const name = nameTag(inst.Tags);
          return { name: name ?? id, state: str(obj(inst.State).Name), detail: [name ? id : undefined, str(inst.InstanceType)].filter(Boolean).join(', ') || undefined };
        }),
      ),
  },
  {
    service: 's3',
    label: 'S3 buckets',
    singular: 'S3 bucket',
    words: ['s3', 'bucket', 'buckets', 'object storage', 'storage'],
    args: ['aws', 's3api', 'list-buckets'],
    byDefault: true,
    global: true,
    records: (data) => arr(obj(data).Buckets).map((b) => ({ name: str(obj(b).Name) ?? '?' })),
  },
  {
    service: 'lambda',
    label: 'Lambda functions',
    singular: 'Lambda function',
    words: ['lambda', 'lambdas', 'function', 'functions', 'serverless'],
    args: ['aws', 'lambda', 'list-functions'],
    byDefault: true,
    records: (data) => arr(obj(data).Functions).map((f) => ({ name: str(obj(f).FunctionName) ?? '?', detail: str(obj(f).Runtime) })),
  },
  {
    service: 'rds',
    label: 'RDS databases',
    singular: 'RDS database',
    words: ['rds', 'database', 'databases', 'db', 'dbs', 'aurora', 'postgres', 'mysql'],
    args: ['aws', 'rds', 'describe-db-instances'],
    byDefault: false,
    records: (data) =>
      arr(obj(data).DBInstances).map((d) => ({ name: str(obj(d).DBInstanceIdentifier) ?? '?', state: str(obj(d).DBInstanceStatus), detail: str(obj(d).Engine) })),
  },
  {
    service: 'dynamodb',
    label: 'DynamoDB tables',
    singular: 'DynamoDB table',
    words: ['dynamodb', 'dynamo', 'table', 'tables'],
    args: ['aws', 'dynamodb', 'list-tables'],
    byDefault: false,
    records: names('TableNames'),
  },
  {
    service: 'eks',
    label: 'EKS clusters',
    singular: 'EKS cluster',
    words: ['eks', 'kubernetes', 'k8s', 'cluster', 'clusters'],
    args: ['aws', 'eks', 'list-clusters'],
    byDefault: false,
    records: names('clusters'),
  },
  {
    service: 'ecs',
    label: 'ECS clusters',
    singular: 'ECS cluster',
    words: ['ecs', 'fargate', 'container', 'containers', 'cluster', 'clusters'],
    args: ['aws', 'ecs', 'list-clusters'],
    byDefault: false,
    records: names('clusterArns', lastSegment),
  },
  {
    service: 'sqs',
    label: 'SQS queues',
    singular: 'SQS queue',
    words: ['sqs', 'queue', 'queues'],
    args: ['aws', 'sqs', 'list-queues'],
    byDefault: false,
    records: names('QueueUrls', lastSegment),
  },
  {
    service: 'sns',
    label: 'SNS topics',
    singular: 'SNS topic',
    words: ['sns', 'topic', 'topics', 'notification', 'notifications'],
    args: ['aws', 'sns', 'list-topics'],
    byDefault: false,
    records: (data) => arr(obj(data).Topics).map((t) => ({ name: lastSegment(str(obj(t).TopicArn) ?? '?') })),
  },
  {
    service: 'iam',
    label: 'IAM users',
    singular: 'IAM user',
    words: ['iam', 'user', 'users', 'identity', 'permissions'],
    args: ['aws', 'iam', 'list-users'],
    byDefault: false,
    global: true,
    records: (data) => arr(obj(data).Users).map((u) => ({ name: str(obj(u).UserName) ?? '?' })),
  },
  {
    service: 'vpc',
    label: 'VPCs',
    singular: 'VPC',
    words: ['vpc', 'vpcs', 'network', 'networks', 'networking'],
    args: ['aws', 'ec2', 'describe-vpcs'],
    byDefault: false,
    records: (data) => arr(obj(data).Vpcs).map((v) => ({ name: nameTag(obj(v).Tags) ?? str(obj(v).VpcId) ?? '?', state: str(obj(v).State), detail: str(obj(v).CidrBlock) })),
  },
  {
    service: 'ebs',
    label: 'EBS volumes',
    singular: 'EBS volume',
    words: ['ebs', 'volume', 'volumes', 'disk', 'disks'],
    args: ['aws', 'ec2', 'describe-volumes'],
    byDefault: false,
    records: (data) =>
      arr(obj(data).Volumes).map((v) => ({ name: nameTag(obj(v).Tags) ?? str(obj(v).VolumeId) ?? '?', state: str(obj(v).State), detail: `${String(obj(v).Size ?? '?')} GiB` })),
  },
];

const matcher = new TermMatcher(AWS_READS.flatMap((spec) => spec.words.map((w) => ({ term: w, data: spec }))));

/** The reads a question asks for (in catalogue order); `serviceKeywords` (cloud_a.service_keywords) adds words to a service. */
export function awsReadsFor(question: string, serviceKeywords?: Record<string, string[]>): AwsReadSpec[] {
  const chosen = new Set(matcher.match(question).map((m) => m.data));
  for (const [service, words] of Object.entries(serviceKeywords ?? {})) {
    const spec = AWS_READS.find((s) => s.service === service.toLowerCase());
    if (spec && new TermMatcher([service, ...(words ?? [])].map((w) => ({ term: w.toLowerCase(), data: spec }))).match(question).length) chosen.add(spec);
  }
  const picked = AWS_READS.filter((s) => chosen.has(s));
  return picked.length ? picked : AWS_READS.filter((s) => s.byDefault);
}

/** The catalogue entry of a step's args (`["aws", "ec2", "describe-instances"]`). */
export function awsReadOf(args: readonly string[]): AwsReadSpec | undefined {
  return AWS_READS.find((s) => s.args.length <= args.length && s.args.every((a, i) => args[i] === a));
}
