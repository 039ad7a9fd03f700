/**
 * What cloud_a (AWS) creates cost, for the dry run and the budget guard (issue 22 §4). Prices come
 * from a local table of the common EC2 instance types (on-demand Linux, us-east-1, USD per hour, the
 * public list prices): nothing is downloaded at run time. A create the table cannot price is listed
 * as unpriced, and a budget refuses it unless --allow-unpriced; creates that bill nothing by themselves
 * (a bucket, a security group, a key pair, tags, IAM entities) are free.
 */
import type { Burn, ChangePrice, CostLine, PricePreview, PreviewRead, StepClass, StepPrice } from '../../core/provider.js';
import { option, parseCommand } from '../../core/kits/cli/argv.js';
import { AWS_SYNTAX } from './destroyer.js';

export const EC2_PRICE_BASIS = 'local table of EC2 on-demand Linux list prices (us-east-1, USD/hour); other regions differ by a few per cent';

/** On-demand Linux, us-east-1, USD per hour. */
export const EC2_HOURLY: Readonly<Record<string, number>> = {
  't2.micro': 0.0116,
  't2.small': 0.023,
  't2.medium': 0.0464,
  't3.nano': 0.0052,
  't3.micro': 0.0104,
  't3.small': 0.0208,
  't3.medium': 0.0416,
  't3.large': 0.0832,
  't3.xlarge': 0.1664,
  't3.2xlarge': 0.3328,
  'm5.large': 0.096,
  'm5.xlarge': 0.192,
  'm5.2xlarge': 0.384,
  'm6i.large': 0.096,
  'm6i.xlarge': 0.192,
  'c5.large': 0.085,
  'c5.xlarge': 0.17,
  'c6i.large': 0.085,
  'r5.large': 0.126,
  'r5.xlarge': 0.252,
  'g4dn.xlarge': 0.526,
  'g5.xlarge': 1.006,
  'g5.2xlarge': 1.212,
  'p3.2xlarge': 3.06,
  'p4d.24xlarge': 32.7726,
};

/** Kinds whose create bills nothing by itself (what runs in them does, and is priced there). */
const FREE_KINDS = new Set(['bucket', 'security-group', 'key-pair', 'tags', 'role', 'policy', 'user', 'group', 'instance-profile', 'log-group', 'repository']);

type PreviewedStep = { index: number; args: string[]; class: StepClass };

/** `--count 3` or `--count 1:4` (min:max: the most it may start). */
function countOf(value: string | undefined): number {
  if (!value) return 1;
  const most = Number(value.split(':').pop());
  return Number.isInteger(most) && most > 0 ? most : 1;
}

/**
 * One price per change step (DESIGN §8): instance creates from the table (a type it lacks is unpriced),
 * creates of kinds that bill nothing by themselves free, deletes free, anything else unpriced (the
 * price tables of scaling and other creates are not here yet).
 */
export async function previewCloudA(steps: readonly PreviewedStep[]): Promise<PricePreview> {
  const changes: StepPrice[] = [];
  const warnings: string[] = [];
  for (const { index, args, class: cls } of steps) {
    if (cls.effect === 'read') continue;
    const answer = (price: ChangePrice) => changes.push({ step: index, price });
    if (cls.effect === 'destroy') {
      answer({ price: 'free', why: 'a delete ends what bills' });
      continue;
    }
    if (cls.effect === 'create' && FREE_KINDS.has(cls.kind ?? '')) {
      answer({ price: 'free', why: `a ${cls.kind} bills nothing by itself` });
      continue;
    }
    if (cls.effect === 'create' && cls.kind === 'instance') {
      const cmd = parseCommand(args.slice(1), AWS_SYNTAX);
      const type = option(cmd, '--instance-type')?.[0] ?? 'm1.small';
      const count = countOf(option(cmd, '--count')?.[0]);
      const each = EC2_HOURLY[type];
      if (each === undefined) {
        warnings.push(`step ${index}: no local price for EC2 type ${type}`);
        answer({ price: 'unpriced', why: `instance ${type}: not in the ${EC2_PRICE_BASIS}` });
        continue;
      }
      const perHour = each * count;
      const line: CostLine = { step: index, kind: 'instance', type, ...(count > 1 ? { part: `${count} instances`, count } : {}), per_hour: perHour, per_30_days: perHour * 720 };
      answer({ price: 'priced', per_hour: perHour, lines: [line] });
      continue;
    }
    answer({ price: 'unpriced', why: `${cls.kind ?? 'resource'} ${args.slice(1, 3).join(' ')}: cloud_a cannot price this ${cls.effect}` });
  }
  return { changes, warnings };
}

const RUNNING = 'Name=instance-state-name,Values=pending,running';

/** What the account's EC2 instances burn now (pending and running), priced from the same table. */
export async function burnCloudA(read: PreviewRead): Promise<Burn> {
  const data = (await read(['aws', 'ec2', 'describe-instances', '--filters', RUNNING])) as { Reservations?: { Instances?: { InstanceId?: string; InstanceType?: string }[] }[] } | null;
  let perHour = 0;
  const unpriced: string[] = [];
  for (const r of data?.Reservations ?? []) {
    for (const i of r.Instances ?? []) {
      const price = EC2_HOURLY[i.InstanceType ?? ''];
      if (price === undefined) unpriced.push(`instance ${i.InstanceId}: no local price for ${i.InstanceType}`);
      else perHour += price;
    }
  }
  return { per_hour: perHour, currency: 'usd', unpriced };
}
