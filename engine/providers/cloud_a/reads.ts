/**
 * The one catalogue of cloud_a (AWS) reads: for each service, the words that ask about it, the
 * read-only `aws` step that lists it, and how its JSON output becomes named records. The ask context
 * plan (machines/ask/ask.ts), the built-in answers (answer.ts) and the discovery report
 * (engine/producers/reports/discovery.ts) all read this table; none of them names a service of its own.
 */
import { arr, cliRead, cliReadCatalogue, lastSegment, obj, str, type CliReadSpec, type CliRecord } from '../../core/kits/cli/reads.js';

/** One resource as the answers and reports show it. */
export type AwsRecord = CliRecord;
export type AwsReadSpec = CliReadSpec;

const nameTag = (tags: unknown) => str(arr(tags).map(obj).find((t) => t.Key === 'Name')?.Value);

const names = (key: string, map: (v: string) => string = (v) => v) => (data: unknown): AwsRecord[] =>
  arr(obj(data)[key]).filter((v): v is string => typeof v === 'string').map((v) => ({ name: map(v) }));

export const AWS_READS: readonly AwsReadSpec[] = [
  cliRead('ec2', 'EC2 instance', ['ec2', 'instance', 'instances', 'vm', 'vms', 'server', 'servers', 'compute', 'ami', 'amis'], ['aws', 'ec2', 'describe-instances'], (data) =>
    arr(obj(data).Reservations).flatMap((r) =>
      arr(obj(r).Instances).map((i) => {
        const inst = obj(i);
        const id = str(inst.InstanceId) ?? '?';
        const name = nameTag(inst.Tags);
        return { name: name ?? id, state: str(obj(inst.State).Name), detail: [name ? id : undefined, str(inst.InstanceType)].filter(Boolean).join(', ') || undefined };
      }),
    ), { byDefault: true }),
  cliRead('s3', 'S3 bucket', ['s3', 'bucket', 'buckets', 'object storage', 'storage'], ['aws', 's3api', 'list-buckets'], (data) => arr(obj(data).Buckets).map((b) => ({ name: str(obj(b).Name) ?? '?' })), { byDefault: true, global: true }),
  cliRead('lambda', 'Lambda function', ['lambda', 'lambdas', 'function', 'functions', 'serverless'], ['aws', 'lambda', 'list-functions'], (data) => arr(obj(data).Functions).map((f) => ({ name: str(obj(f).FunctionName) ?? '?', detail: str(obj(f).Runtime) })), { byDefault: true }),
  cliRead('rds', 'RDS database', ['rds', 'database', 'databases', 'db', 'dbs', 'aurora', 'postgres', 'mysql'], ['aws', 'rds', 'describe-db-instances'], (data) =>
    arr(obj(data).DBInstances).map((d) => ({ name: str(obj(d).DBInstanceIdentifier) ?? '?', state: str(obj(d).DBInstanceStatus), detail: str(obj(d).Engine) }))),
  cliRead('dynamodb', 'DynamoDB table', ['dynamodb', 'dynamo', 'table', 'tables'], ['aws', 'dynamodb', 'list-tables'], names('TableNames')),
  cliRead('eks', 'EKS cluster', ['eks', 'kubernetes', 'k8s', 'cluster', 'clusters'], ['aws', 'eks', 'list-clusters'], names('clusters')),
  cliRead('ecs', 'ECS cluster', ['ecs', 'fargate', 'container', 'containers', 'cluster', 'clusters'], ['aws', 'ecs', 'list-clusters'], names('clusterArns', lastSegment)),
  cliRead('sqs', 'SQS queue', ['sqs', 'queue', 'queues'], ['aws', 'sqs', 'list-queues'], names('QueueUrls', lastSegment)),
  cliRead('sns', 'SNS topic', ['sns', 'topic', 'topics', 'notification', 'notifications'], ['aws', 'sns', 'list-topics'], (data) => arr(obj(data).Topics).map((t) => ({ name: lastSegment(str(obj(t).TopicArn) ?? '?') }))),
  cliRead('iam', 'IAM user', ['iam', 'user', 'users', 'identity', 'permissions'], ['aws', 'iam', 'list-users'], (data) => arr(obj(data).Users).map((u) => ({ name: str(obj(u).UserName) ?? '?' })), { global: true }),
  cliRead('vpc', 'VPC', ['vpc', 'vpcs', 'network', 'networks', 'networking'], ['aws', 'ec2', 'describe-vpcs'], (data) => arr(obj(data).Vpcs).map((v) => ({ name: nameTag(obj(v).Tags) ?? str(obj(v).VpcId) ?? '?', state: str(obj(v).State), detail: str(obj(v).CidrBlock) }))),
  cliRead('ebs', 'EBS volume', ['ebs', 'volume', 'volumes', 'disk', 'disks'], ['aws', 'ec2', 'describe-volumes'], (data) =>
    arr(obj(data).Volumes).map((v) => ({ name: nameTag(obj(v).Tags) ?? str(obj(v).VolumeId) ?? '?', state: str(obj(v).State), detail: `${String(obj(v).Size ?? '?')} GiB` }))),
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
