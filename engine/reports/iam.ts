/**
 * `ask --iam [--role-arn <arn>]`: an IAM security report from aws reads (read.ts), structured first.
 * Findings: administrator policies (Allow of `*` on `*`) and wildcard policies (Allow of `service:*`
 * or NotAction), attached or inline, on users and roles; users without MFA; access keys older than
 * 90 days, never used, or unused for 90 days. `--role-arn` narrows the report to that one role.
 *
 * Reads, in rounds (each round needs the names the one before found):
 *   list-users, list-roles (or get-role for --role-arn)
 *   per user: list-attached-user-policies, list-user-policies, list-mfa-devices, list-access-keys;
 *   per role: list-attached-role-policies, list-role-policies
 *   per attached policy get-policy; per inline policy get-user-policy / get-role-policy; per key get-access-key-last-used
 *   per attached policy get-policy-version (its default version's document)
 */
import { UsageError } from '../errors.js';
import { readEach, readOne, type PlanReader, type ReadOutcome } from './read.js';

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
  type: 'user' | 'role';
  name: string;
  arn?: string;
  policies: IamPolicyRef[];
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

  // Round 1: who is there.
  const principals: IamPrincipal[] = [];
  if (opts.roleArn) {
    const name = roleNameOfArn(opts.roleArn);
    const role = await readOne(read, ['aws', 'iam', 'get-role', '--role-name', name], reason);
    if (failed(role)) {
      throw new UsageError(`the role ${JSON.stringify(name)} of --role-arn could not be read: ${role.message}`, { hint: 'check the ARN with `aws iam list-roles`' });
    }
    principals.push({ type: 'role', name, arn: str(obj(obj(role.data).Role).Arn) ?? opts.roleArn, policies: [] });
  } else {
    const [users, roles] = await readEach(read, [['aws', 'iam', 'list-users'], ['aws', 'iam', 'list-roles']], reason);
    note('iam list-users', users);
    note('iam list-roles', roles);
    for (const u of arr(obj(dataOf(users)).Users)) principals.push({ type: 'user', name: str(obj(u).UserName) ?? '?', arn: str(obj(u).Arn), policies: [], mfa: false, access_keys: [] });
    for (const r of arr(obj(dataOf(roles)).Roles)) {
      const role = obj(r);
      // Service-linked roles belong to AWS services and cannot be changed; they are not the user's findings.
      if (str(role.Path)?.startsWith('/aws-service-role/')) continue;
      principals.push({ type: 'role', name: str(role.RoleName) ?? '?', arn: str(role.Arn), policies: [] });
    }
  }

  // Round 2: per principal, its policies, MFA devices and keys.
  const round2: { p: IamPrincipal; what: 'attached' | 'inline' | 'mfa' | 'keys'; args: string[] }[] = [];
  for (const p of principals) {
    const who = p.type === 'user' ? ['--user-name', p.name] : ['--role-name', p.name];
    round2.push({ p, what: 'attached', args: ['aws', 'iam', `list-attached-${p.type}-policies`, ...who] });
    round2.push({ p, what: 'inline', args: ['aws', 'iam', `list-${p.type}-policies`, ...who] });
    if (p.type === 'user') {
      round2.push({ p, what: 'mfa', args: ['aws', 'iam', 'list-mfa-devices', ...who] });
      round2.push({ p, what: 'keys', args: ['aws', 'iam', 'list-access-keys', ...who] });
    }
  }
  const out2 = await readEach(read, round2.map((r) => r.args), reason);
  const fullKeyIds = new Map<IamAccessKey, string>();
  round2.forEach(({ p, what, args }, i) => {
    const o = out2[i];
    note(args.slice(1, 3).join(' ') + ` ${p.name}`, o);
    const data = obj(dataOf(o));
    if (what === 'attached') for (const a of arr(data.AttachedPolicies)) p.policies.push({ name: str(obj(a).PolicyName) ?? '?', how: 'attached', arn: str(obj(a).PolicyArn) });
    if (what === 'inline') for (const n of list(data.PolicyNames)) p.policies.push({ name: n, how: 'inline' });
    if (what === 'mfa') p.mfa = o?.ok ? arr(data.MFADevices).length > 0 : undefined;
    if (what === 'keys') {
      for (const k of arr(data.AccessKeyMetadata)) {
        const id = str(obj(k).AccessKeyId) ?? '';
        const created = str(obj(k).CreateDate);
        const key: IamAccessKey = { id: `…${id.slice(-4)}`, status: str(obj(k).Status), created, age_days: created ? Math.floor((now - Date.parse(created)) / DAY_MS) : undefined };
        fullKeyIds.set(key, id);
        p.access_keys!.push(key);
      }
    }
  });

  // Round 3: documents of inline policies, default versions of attached ones, keys' last use.
  const arns = [...new Set(principals.flatMap((p) => p.policies.filter((x) => x.how === 'attached' && x.arn).map((x) => x.arn!)))];
  const inline = principals.flatMap((p) => p.policies.filter((x) => x.how === 'inline').map((x) => ({ p, x })));
  const keys = principals.flatMap((p) => (p.access_keys ?? []).map((k) => k));
  const out3 = await readEach(
    read,
    [
      ...arns.map((arn) => ['aws', 'iam', 'get-policy', '--policy-arn', arn]),
      ...inline.map(({ p, x }) => ['aws', 'iam', `get-${p.type}-policy`, p.type === 'user' ? '--user-name' : '--role-name', p.name, '--policy-name', x.name]),
      ...keys.map((k) => ['aws', 'iam', 'get-access-key-last-used', '--access-key-id', fullKeyIds.get(k)!]),
    ],
    reason,
  );
  const versions = new Map<string, string>();
  arns.forEach((arn, i) => {
    note(`iam get-policy ${arn}`, out3[i]);
    const v = str(obj(obj(dataOf(out3[i])).Policy).DefaultVersionId);
    if (v) versions.set(arn, v);
  });
  inline.forEach(({ p, x }, j) => {
    const o = out3[arns.length + j];
    note(`iam get-${p.type}-policy ${p.name} ${x.name}`, o);
    if (o?.ok) Object.assign(x, judgePolicy(obj(o.data).PolicyDocument));
  });
  keys.forEach((k, j) => {
    const o = out3[arns.length + inline.length + j];
    note(`iam get-access-key-last-used ${k.id}`, o);
    k.last_used = str(obj(obj(dataOf(o)).AccessKeyLastUsed).LastUsedDate);
  });

  // Round 4: the attached policies' documents.
  const withVersion = arns.filter((a) => versions.has(a));
  const out4 = await readEach(read, withVersion.map((arn) => ['aws', 'iam', 'get-policy-version', '--policy-arn', arn, '--version-id', versions.get(arn)!]), reason);
  const judged = new Map<string, ReturnType<typeof judgePolicy>>();
  withVersion.forEach((arn, i) => {
    note(`iam get-policy-version ${arn}`, out4[i]);
    const o = out4[i];
    if (o?.ok) judged.set(arn, judgePolicy(obj(obj(o.data).PolicyVersion).Document));
  });
  for (const p of principals) for (const x of p.policies) if (x.arn && judged.has(x.arn)) Object.assign(x, judged.get(x.arn));

  return { report: 'iam', scope: opts.roleArn ? `role ${opts.roleArn}` : 'all users and roles', principals, findings: iamFindings(principals, now), unread };
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
