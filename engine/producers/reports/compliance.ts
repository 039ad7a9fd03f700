/**
 * `ask --compliance`: a controls table (control, status pass/fail/unknown, evidence) from aws reads
 * (read.ts). A read that fails with the service's "not configured" error is evidence of a fail
 * (no password policy, no public access block); any other failed read makes the control `unknown`
 * with the reason, never a pass.
 */
import { awsErrorCode, readEach, shortReason, type PlanReader, type ReadOutcome } from '../../providers/cloud_a/read.js';
import { iamReport, type IamReport } from './iam.js';
import { OperationError } from '../../core/errors.js';

export type ControlStatus = 'pass' | 'fail' | 'unknown';

export interface ControlRow {
  id: string;
  control: string;
  status: ControlStatus;
  evidence: string;
}

export interface ComplianceReport {
  report: 'compliance';
  controls: ControlRow[];
  summary: Record<ControlStatus, number>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The shortest useful form of a failed read's reason. */
function why(o: ReadOutcome): string {
  return o.ok ? '' : `could not read: ${shortReason(o)}`;
}

const MIN_PASSWORD_LENGTH = 14;

const isUnreadable = (err: unknown): err is Error => err instanceof OperationError && err.code === 'iam_unreadable';
const PUBLIC_BLOCK_FLAGS = ['BlockPublicAcls', 'IgnorePublicAcls', 'BlockPublicPolicy', 'RestrictPublicBuckets'];

export async function complianceReport(read: PlanReader, opts: { iam?: IamReport } = {}): Promise<ComplianceReport> {
  const reason = 'compliance report (read only)';
  // The IAM part runs alongside the account reads (each read waits on a CLI process, not on us).
  const iamRun: Promise<IamReport | Error> = opts.iam ? Promise.resolve(opts.iam) : iamReport(read).catch((err: unknown) => (isUnreadable(err) ? err : Promise.reject(err)));
  // Awaited below; until then a failure of it must not count as unhandled.
  iamRun.catch(() => undefined);
  const [summary, password, buckets, trails, ebs] = await readEach(
    read,
    [
      ['aws', 'iam', 'get-account-summary'],
      ['aws', 'iam', 'get-account-password-policy'],
      ['aws', 's3api', 'list-buckets'],
      ['aws', 'cloudtrail', 'describe-trails'],
      ['aws', 'ec2', 'get-ebs-encryption-by-default'],
    ],
    reason,
  );
  const names = arr(obj(buckets!.ok ? buckets!.data : undefined).Buckets).map((b) => str(obj(b).Name)).filter((n): n is string => Boolean(n));
  const trailList = arr(obj(trails!.ok ? trails!.data : undefined).trailList).map(obj);
  const perBucket = await readEach(
    read,
    [
      ...names.map((b) => ['aws', 's3api', 'get-public-access-block', '--bucket', b]),
      ...names.map((b) => ['aws', 's3api', 'get-bucket-encryption', '--bucket', b]),
      ...trailList.map((t) => ['aws', 'cloudtrail', 'get-trail-status', '--name', str(t.TrailARN) ?? str(t.Name) ?? '?']),
    ],
    reason,
  );
  const blocks = perBucket.slice(0, names.length);
  const encryption = perBucket.slice(names.length, 2 * names.length);
  const trailStatus = perBucket.slice(2 * names.length);
  // The IAM part unreadable (no permission) leaves its control unknown; the other controls stand.
  const iam = await iamRun;

  const controls: ControlRow[] = [];
  const add = (id: string, control: string, status: ControlStatus, evidence: string) => controls.push({ id, control, status, evidence });

  // Root account MFA.
  if (!summary!.ok) add('root_mfa', 'Root account has MFA', 'unknown', why(summary!));
  else {
    const on = obj(obj(summary!.data).SummaryMap).AccountMFAEnabled === 1;
    add('root_mfa', 'Root account has MFA', on ? 'pass' : 'fail', `AccountMFAEnabled = ${on ? 1 : 0}`);
  }

  // Password policy.
  if (!password!.ok) {
    if (awsErrorCode(password!) === 'NoSuchEntity') add('password_policy', `Password policy (length ≥ ${MIN_PASSWORD_LENGTH})`, 'fail', 'no account password policy is set');
    else add('password_policy', `Password policy (length ≥ ${MIN_PASSWORD_LENGTH})`, 'unknown', why(password!));
  } else {
    const p = obj(obj(password!.data).PasswordPolicy);
    const len = typeof p.MinimumPasswordLength === 'number' ? p.MinimumPasswordLength : 0;
    add('password_policy', `Password policy (length ≥ ${MIN_PASSWORD_LENGTH})`, len >= MIN_PASSWORD_LENGTH ? 'pass' : 'fail', `MinimumPasswordLength = ${len}`);
  }

  // S3: public access block and default encryption, per bucket.
  const bucketControl = (id: string, control: string, outcomes: ReadOutcome[], okOf: (data: unknown) => boolean, notSet: string[]) => {
    if (!buckets!.ok) return add(id, control, 'unknown', why(buckets!));
    if (!names.length) return add(id, control, 'pass', 'no buckets');
    const bad: string[] = [];
    const unknown: string[] = [];
    names.forEach((b, i) => {
      const o = outcomes[i]!;
      if (o.ok) {
        if (!okOf(o.data)) bad.push(b);
      } else if (notSet.includes(awsErrorCode(o) ?? '')) bad.push(b);
      else unknown.push(`${b} (${why(o)})`);
    });
    if (bad.length) return add(id, control, 'fail', `${bad.length} of ${names.length} bucket(s) without it: ${bad.join(', ')}`);
    if (unknown.length) return add(id, control, 'unknown', unknown.join('; '));
    add(id, control, 'pass', `all ${names.length} bucket(s)`);
  };
  bucketControl(
    's3_public_access_block',
    'S3 buckets block public access',
    blocks,
    (d) => PUBLIC_BLOCK_FLAGS.every((f) => obj(obj(d).PublicAccessBlockConfiguration)[f] === true),
    ['NoSuchPublicAccessBlockConfiguration'],
  );
  bucketControl(
    's3_encryption',
    'S3 buckets encrypt by default',
    encryption,
    (d) => arr(obj(obj(d).ServerSideEncryptionConfiguration).Rules).length > 0,
    ['ServerSideEncryptionConfigurationNotFoundError'],
  );

  // CloudTrail.
  if (!trails!.ok) add('cloudtrail', 'CloudTrail is logging', 'unknown', why(trails!));
  else if (!trailList.length) add('cloudtrail', 'CloudTrail is logging', 'fail', 'no trails');
  else {
    const logging = trailList.filter((_t, i) => trailStatus[i]?.ok && obj(trailStatus[i]!.ok ? (trailStatus[i] as { data: unknown }).data : undefined).IsLogging === true);
    const names = trailList.map((t) => str(t.Name) ?? '?');
    add(
      'cloudtrail',
      'CloudTrail is logging',
      logging.length ? 'pass' : trailStatus.some((o) => !o.ok) ? 'unknown' : 'fail',
      logging.length ? `logging: ${logging.map((t) => str(t.Name) ?? '?').join(', ')}` : `trails not logging: ${names.join(', ')}`,
    );
  }

  // Default EBS encryption (per region: the selected one).
  if (!ebs!.ok) add('ebs_default_encryption', 'EBS encryption by default', 'unknown', why(ebs!));
  else {
    const on = obj(ebs!.data).EbsEncryptionByDefault === true;
    add('ebs_default_encryption', 'EBS encryption by default', on ? 'pass' : 'fail', `EbsEncryptionByDefault = ${on}`);
  }

  // IAM wildcard / administrator policies, from the IAM report.
  const wide = iam instanceof Error ? [] : iam.findings.filter((f) => f.kind === 'administrator_policy' || f.kind === 'wildcard_policy');
  if (iam instanceof Error) add('iam_wildcard_policies', 'No IAM administrator or wildcard policies', 'unknown', iam.message);
  else if (wide.length) add('iam_wildcard_policies', 'No IAM administrator or wildcard policies', 'fail', wide.map((f) => `${f.principal}: ${f.subject}`).join(', '));
  else if (iam.unread.length) add('iam_wildcard_policies', 'No IAM administrator or wildcard policies', 'unknown', `${iam.unread.length} IAM read(s) failed`);
  else add('iam_wildcard_policies', 'No IAM administrator or wildcard policies', 'pass', `${iam.principals.length} user(s) and role(s) checked`);

  const counts: Record<ControlStatus, number> = { pass: 0, fail: 0, unknown: 0 };
  for (const c of controls) counts[c.status]++;
  return { report: 'compliance', controls, summary: counts };
}
