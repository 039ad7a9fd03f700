/**
 * The one catalogue of cloud_a (AWS) reads: for each service, the words that ask about it, the
 * read-only `aws` step that lists it, and how its JSON output becomes named records. The ask context
 * plan (machines/ask.ts), the built-in answers (answer.ts) and the discovery report
 * (engine/producers/reports/discovery.ts) all read this table; none of them names a service of its own.
 */
import { arr, cliReadCatalogue, lastSegment, obj, str, type CliReadSpec, type CliRecord } from '../../core/kits/cli/reads.js';

/** One resource as the answers and reports show it. */
export type AwsRecord = CliRecord;
export type AwsReadSpec = CliReadSpec;

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

/** The catalogue's reads, answers and lookups (engine/core/kits/cli/reads.ts). */
export const AWS_CATALOGUE = cliReadCatalogue(AWS_READS);

/** The reads a question asks for (in catalogue order); `serviceKeywords` (cloud_a.service_keywords) adds words to a service. */
export function awsReadsFor(question: string, serviceKeywords?: Record<string, string[]>): AwsReadSpec[] {
  return AWS_CATALOGUE.readsFor(question, serviceKeywords);
}

/** The catalogue entry of a step's args (`["aws", "ec2", "describe-instances"]`). */
export function awsReadOf(args: readonly string[]): AwsReadSpec | undefined {
  return AWS_CATALOGUE.readOf(args);
}
