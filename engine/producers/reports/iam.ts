/**
 * `ask --iam [--role-arn <arn>]`: an IAM security report from aws reads (read.ts), structured first.
 * Findings: administrator policies (Allow of `*` on `*`) and wildcard policies (Allow of `service:*`
 * or NotAction), attached or inline, on users and roles; users without MFA; access keys older than
 * 90 days, never used, or unused for 90 days. `--role-arn` narrows the report to that one role.
 *
 * Reads, in three rounds (each needs what the one before found), each aws CLI start costing about a
 * second of CPU, so as few as the facts allow:
 *   get-account-authorization-details (users, groups, roles with inline documents and attached
 *     policies; the account's own managed policies with their versions)
 *   per user list-mfa-devices and list-access-keys; per attached AWS managed policy get-policy
 *   per key get-access-key-last-used; per AWS managed policy get-policy-version
 */
import { OperationError, UsageError } from '../../core/errors.js';
import { readEach, readOne, type PlanReader, type ReadOutcome } from '../../providers/cloud_a/read.js';

export const KEY_MAX_AGE_DAYS = 90;
const DAY_MS = 86_400_000;

export type FindingKind = 'administrator_policy' | 'wildcard_policy' | 'no_mfa' | 'old_access_key' | 'unused_access_key';

export interface IamFinding {
  severity: 'high' | 'medium';
  kind: FindingKind;
  /** `user/alice`, `role/deployer`. */
  principal: string;
  /** The policy (`AdministratorAccess`, `inline:s3-all`), the key (`…WXYZ`) or the missing MFA. */
  subject: string;
  detail: string;
}

export interface IamPolicyRef {
  name: string;
  /** `attached` (managed, by ARN) or `inline`. */
  how: 'attached' | 'inline';
  arn?: string;
  /** Administrator / wildcard statements found in its document; undefined when it could not be read. */
  verdict?: 'administrator' | 'wildcard' | 'ok';
  wildcards?: string[];
}

export interface IamAccessKey {
  /** The key ID's last four characters only. */
  id: string;
  status?: string;
  created?: string;
  last_used?: string;
  age_days?: number;
}

export interface IamPrincipal {
  type: 'user' | 'group' | 'role';
  name: string;
  arn?: string;
  policies: IamPolicyRef[];
  /** Users only: the groups whose policies also apply to them (findings are on `group/<name>`). */
  groups?: string[];
  /** Users only. */
  mfa?: boolean;
  access_keys?: IamAccessKey[];
}

export interface IamReport {
  report: 'iam';
  scope: string;
  principals: IamPrincipal[];
  findings: IamFinding[];
  /** Reads that failed (permission missing…): the report is incomplete there. */
  unread: string[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** A policy document as the CLI prints it: an object, or URL-encoded JSON text. */
function documentOf(v: unknown): Obj | undefined {
  if (v && typeof v === 'object') return v as Obj;
  if (typeof v !== 'string') return undefined;
  for (const text of [v, safeDecode(v)]) {
    try {
      return obj(JSON.parse(text));
    } catch {
      // try the decoded form
    }
  }
  return undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What a policy document allows too widely: `administrator` when one Allow statement grants every
 * action (`*`) on every resource; `wildcard` for an Allow of a whole service (`s3:*`), of `*` on some
 * resources, or of NotAction (everything but a list). Deny statements narrow and are ignored here.
 */
export function judgePolicy(document: unknown): { verdict: 'administrator' | 'wildcard' | 'ok'; wildcards: string[] } {
  const doc = documentOf(document);
  const statements = arr(doc?.Statement ?? []).length ? arr(doc?.Statement) : doc?.Statement ? [doc.Statement] : [];
  let verdict: 'administrator' | 'wildcard' | 'ok' = 'ok';
  const wildcards: string[] = [];
  for (const raw of statements) {
    const s = obj(raw);
    if (str(s.Effect) !== 'Allow') continue;
    const actions = list(s.Action);
    const resources = list(s.Resource);
    if (actions.includes('*') && resources.includes('*')) {
      verdict = 'administrator';
      wildcards.push('Action "*" on Resource "*"');
      continue;
    }
    for (const a of actions) if (a === '*' || /^[\w-]+:\*$/.test(a)) wildcards.push(`Action "${a}"`);
    if (s.NotAction !== undefined) wildcards.push(`NotAction ${JSON.stringify(s.NotAction)}`);
    if (wildcards.length && verdict === 'ok') verdict = 'wildcard';
  }
  return { verdict, wildcards };
}

/** The role name of a role ARN (`arn:aws:iam::123456789012:role/path/name` → `name`), or a usage error. */
export function roleNameOfArn(arn: string): string {
  const m = /^arn:aws[\w-]*:iam::\d{12}:role\/(?:[\w+=,.@/-]*\/)?([\w+=,.@-]{1,64})$/.exec(arn.trim());
  if (!m) {
    throw new UsageError(`--role-arn ${JSON.stringify(arn)} is not an IAM role ARN`, { hint: 'give it as arn:aws:iam::<account-id>:role/<name> (see `aws iam list-roles`)' });
  }
  return m[1]!;
}

const failed = (o: ReadOutcome | undefined): o is { ok: false; code: string; message: string } => Boolean(o && !o.ok);
const dataOf = (o: ReadOutcome | undefined): unknown => (o?.ok ? o.data : undefined);

export async function iamReport(read: PlanReader, opts: { roleArn?: string; now?: number } = {}): Promise<IamReport> {
  const now = opts.now ?? Date.now();
  const unread: string[] = [];
  const note = (what: string, o: ReadOutcome | undefined) => {
    if (failed(o)) unread.push(`${what}: ${o.message}`);
  };
  const reason = 'IAM report (read only)';
  const roleName = opts.roleArn ? roleNameOfArn(opts.roleArn) : undefined;

  // Round 1: users, groups and roles with their inline documents and attached policies, and the
  // account's own managed policies with their versions, in one call (the CLI follows its pages).
  // AWS managed policies are left out of it (there are over a thousand); the attached ones are read below.
  const filter = roleName ? ['Role', 'LocalManagedPolicy'] : ['User', 'Group', 'Role', 'LocalManagedPolicy'];
  const details = await readOne(read, ['aws', 'iam', 'get-account-authorization-details', '--filter', ...filter], reason);
  if (failed(details)) {
    // Without it there is nothing to judge: a missing permission is the user's to fix, not an empty report.
    throw new OperationError('iam_unreadable', `the IAM report could not read the account's IAM details: ${details.message}`, {
      hint: 'the report needs iam:GetAccountAuthorizationDetails, iam:ListMFADevices, iam:ListAccessKeys, iam:GetAccessKeyLastUsed, iam:GetPolicy and iam:GetPolicyVersion (e.g. the SecurityAudit policy)',
    });
  }
  const d = obj(details.data);
  const localDocs = new Map<string, unknown>();
  for (const pol of arr(d.Policies).map(obj)) {
    const version = arr(pol.PolicyVersionList).map(obj).find((v) => v.IsDefaultVersion === true);
    if (str(pol.Arn) && version) localDocs.set(str(pol.Arn)!, version.Document);
  }
  const principals: IamPrincipal[] = [];
  const add = (type: IamPrincipal['type'], raw: Obj, inlineKey: string) => {
    const p: IamPrincipal = { type, name: str(raw[`${type === 'user' ? 'User' : type === 'group' ? 'Group' : 'Role'}Name`]) ?? '?', arn: str(raw.Arn), policies: [] };
    for (const x of arr(raw[inlineKey]).map(obj)) p.policies.push({ name: str(x.PolicyName) ?? '?', how: 'inline', ...judgePolicy(x.PolicyDocument) });
    for (const a of arr(raw.AttachedManagedPolicies).map(obj)) p.policies.push({ name: str(a.PolicyName) ?? '?', how: 'attached', arn: str(a.PolicyArn) });
    if (type === 'user') {
      p.mfa = false;
      p.access_keys = [];
      p.groups = arr(raw.GroupList).filter((g): g is string => typeof g === 'string');
    }
    principals.push(p);
  };
  for (const u of arr(d.UserDetailList).map(obj)) add('user', u, 'UserPolicyList');
  for (const g of arr(d.GroupDetailList).map(obj)) add('group', g, 'GroupPolicyList');
  for (const r of arr(d.RoleDetailList).map(obj)) {
    // Service-linked roles belong to AWS services and cannot be changed: not the user's findings.
    if (str(r.Path)?.startsWith('/aws-service-role/')) continue;
    if (roleName && str(r.RoleName) !== roleName) continue;
    add('role', r, 'RolePolicyList');
  }
  if (roleName && !principals.length) {
    throw new UsageError(`there is no role ${JSON.stringify(roleName)} (from --role-arn) in this account`, { hint: 'check the ARN with `aws iam list-roles`' });
  }

  // Round 2: per user its MFA devices and keys; the attached AWS managed policies' default versions.
  const users = principals.filter((p) => p.type === 'user');
  const managed = [...new Set(principals.flatMap((p) => p.policies.filter((x) => x.arn && !localDocs.has(x.arn)).map((x) => x.arn!)))];
  const out2 = await readEach(
    read,
    [
      ...users.flatMap((u) => [
        ['aws', 'iam', 'list-mfa-devices', '--user-name', u.name],
        ['aws', 'iam', 'list-access-keys', '--user-name', u.name],
      ]),
      ...managed.map((arn) => ['aws', 'iam', 'get-policy', '--policy-arn', arn]),
    ],
    reason,
  );
  const fullKeyIds = new Map<IamAccessKey, string>();
  users.forEach((u, i) => {
    const mfa = out2[2 * i];
    const keys = out2[2 * i + 1];
    note(`iam list-mfa-devices ${u.name}`, mfa);
    note(`iam list-access-keys ${u.name}`, keys);
    u.mfa = mfa?.ok ? arr(obj(mfa.data).MFADevices).length > 0 : undefined;
    for (const k of arr(obj(dataOf(keys)).AccessKeyMetadata).map(obj)) {
      const id = str(k.AccessKeyId) ?? '';
      const created = str(k.CreateDate);
      const key: IamAccessKey = { id: `…${id.slice(-4)}`, status: str(k.Status), created, age_days: created ? Math.floor((now - Date.parse(created)) / DAY_MS) : undefined };
      fullKeyIds.set(key, id);
      u.access_keys!.push(key);
    }
  });
  const versions = new Map<string, string>();
  managed.forEach((arn, i) => {
    const o = out2[2 * users.length + i];
    note(`iam get-policy ${arn}`, o);
    const v = str(obj(obj(dataOf(o)).Policy).DefaultVersionId);
    if (v) versions.set(arn, v);
  });

  // Round 3: each key's last use; the managed policies' documents.
  const keys = [...fullKeyIds.keys()];
  const withVersion = managed.filter((a) => versions.has(a));
  const out3 = await readEach(
    read,
    [
      ...keys.map((k) => ['aws', 'iam', 'get-access-key-last-used', '--access-key-id', fullKeyIds.get(k)!]),
      ...withVersion.map((arn) => ['aws', 'iam', 'get-policy-version', '--policy-arn', arn, '--version-id', versions.get(arn)!]),
    ],
    reason,
  );
  keys.forEach((k, i) => {
    note(`iam get-access-key-last-used ${k.id}`, out3[i]);
    k.last_used = str(obj(obj(dataOf(out3[i])).AccessKeyLastUsed).LastUsedDate);
  });
  const docs = new Map(localDocs);
  withVersion.forEach((arn, i) => {
    const o = out3[keys.length + i];
    note(`iam get-policy-version ${arn}`, o);
    if (o?.ok) docs.set(arn, obj(obj(o.data).PolicyVersion).Document);
  });
  for (const p of principals) for (const x of p.policies) if (x.arn && docs.has(x.arn)) Object.assign(x, judgePolicy(docs.get(x.arn)));

  return { report: 'iam', scope: opts.roleArn ? `role ${opts.roleArn}` : 'all users, groups and roles', principals, findings: iamFindings(principals, now), unread };
}

/** The findings of read principals (exported: the analysis is checked on its own with old dates too). */
export function iamFindings(principals: readonly IamPrincipal[], now: number): IamFinding[] {
  const findings: IamFinding[] = [];
  for (const p of principals) {
    const principal = `${p.type}/${p.name}`;
    for (const x of p.policies) {
      const subject = x.how === 'inline' ? `inline:${x.name}` : x.name;
      if (x.verdict === 'administrator') findings.push({ severity: 'high', kind: 'administrator_policy', principal, subject, detail: `${x.how} policy allows every action on every resource` });
      else if (x.verdict === 'wildcard') findings.push({ severity: 'medium', kind: 'wildcard_policy', principal, subject, detail: `${x.how} policy allows ${x.wildcards!.join(', ')}` });
    }
    if (p.type === 'user' && p.mfa === false) findings.push({ severity: 'medium', kind: 'no_mfa', principal, subject: 'MFA', detail: 'no MFA device' });
    for (const k of p.access_keys ?? []) {
      if (k.status === 'Inactive') continue;
      if (k.age_days !== undefined && k.age_days > KEY_MAX_AGE_DAYS) {
        findings.push({ severity: 'medium', kind: 'old_access_key', principal, subject: k.id, detail: `active key created ${k.age_days} days ago (rotate after ${KEY_MAX_AGE_DAYS})` });
      }
      const idle = k.last_used ? Math.floor((now - Date.parse(k.last_used)) / DAY_MS) : undefined;
      if (!k.last_used) findings.push({ severity: 'medium', kind: 'unused_access_key', principal, subject: k.id, detail: 'active key never used' });
      else if (idle !== undefined && idle > KEY_MAX_AGE_DAYS) findings.push({ severity: 'medium', kind: 'unused_access_key', principal, subject: k.id, detail: `active key unused for ${idle} days` });
    }
  }
  const rank = (f: IamFinding) => (f.severity === 'high' ? 0 : 1);
  return findings.sort((a, b) => rank(a) - rank(b) || a.principal.localeCompare(b.principal) || a.kind.localeCompare(b.kind));
}
