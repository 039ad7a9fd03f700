/**
 * cloud_a (AWS) as a provider of the plan engine: steps are `aws` command lines
 * (`["aws", "<service>", "<operation>", …]`) run through the installed aws CLI with JSON output and the
 * profile and region of the selected environment. Its name lookup lists buckets, instances, security groups and Name-tagged security group rules so a
 * create of a name that exists is refused before anything runs, and an interrupted create is adopted.
 */
import { option, parseCommand } from '../../core/kits/cli/argv.js';
import { isolateAws } from '../../core/kits/cli/isolation.js';
import { cliProvider, type CliIsolation, type CliTarget } from '../../core/kits/cli/provider.js';
import type { CliTool } from '../../core/kits/cli/runner.js';
import type { CliClient } from '../../core/kits/cli/verb.js';
import type { ArgProblem, NamedRecord, NameLookup } from '../../core/provider.js';
import { AWS_RULE_SET, AWS_SYNTAX } from './destroyer.js';
import { burnCloudA, previewCloudA } from './prices.js';
import { cloudACapabilities } from './capabilities.js';

export const AWS_TOOL: CliTool = {
  command: 'aws',
  installHint:
    'install the AWS CLI (https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html, or `pip install awscli`), then `aws configure`',
  authFailures: [
    /Unable to locate credentials/i,
    /ExpiredToken|RequestExpired|security token included in the request is (?:expired|invalid)/i,
    /InvalidClientTokenId|UnrecognizedClientException|AuthFailure|InvalidAccessKeyId|SignatureDoesNotMatch/,
    /Error loading SSO Token|SSO session associated with this profile has expired|Token has expired and refresh failed/i,
    /The config profile \(.*\) could not be found/,
  ],
  authHint: 'log in with `aws configure` (access keys) or `aws sso login --profile <profile>` (SSO), check with `aws sts get-caller-identity`',
};

export { resolveAwsTarget, type AwsTarget } from './target.js';
import { resolveAwsTarget, type AwsTarget } from './target.js';

export { awsArgs } from './args.js';
import { awsArgs } from './args.js';

/** How cloud_a's steps run: the aws CLI with the target's additions, no pager and no interactive prompt. */
export function awsCliTarget(target: AwsTarget): CliTarget {
  return { add: (args) => awsArgs(args, target), env: { AWS_PAGER: '', AWS_CLI_AUTO_PROMPT: 'off' }, source: target.source };
}

/** What of the user's environment the aws CLI may see: its credentials and endpoint settings, nothing else. */
export const AWS_ENV = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_ENDPOINT_URL',
  /^AWS_ENDPOINT_URL_[A-Z0-9_]+$/,
  'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS',
  'AWS_CA_BUNDLE',
  'AWS_ROLE_ARN',
  'AWS_ROLE_SESSION_NAME',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  /^AWS_CONTAINER_(CREDENTIALS_(RELATIVE|FULL)_URI|AUTHORIZATION_TOKEN(_FILE)?)$/,
  /^AWS_EC2_METADATA_(DISABLED|SERVICE_ENDPOINT|SERVICE_ENDPOINT_MODE|V1_DISABLED)$/,
  'AWS_METADATA_SERVICE_TIMEOUT',
  'AWS_METADATA_SERVICE_NUM_ATTEMPTS',
  'AWS_STS_REGIONAL_ENDPOINTS',
  'AWS_MAX_ATTEMPTS',
  'AWS_RETRY_MODE',
  'AWS_USE_FIPS_ENDPOINT',
  'AWS_USE_DUALSTACK_ENDPOINT',
  'AWS_DEFAULTS_MODE',
];

/** `aws eks get-token` for one cluster, as `aws eks update-kubeconfig` writes it, and nothing else. */
function awsTokenPlugin(exec: { command: string; args: string[]; env: { name: string; value: string }[] }): string | undefined {
  if (exec.command !== 'aws') return 'only the `aws eks get-token` plugin the aws CLI writes is accepted';
  const a = exec.args;
  let getToken = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === 'eks' && a[i + 1] === 'get-token' && !getToken) {
      getToken = true;
      i++;
    } else if (['--region', '--cluster-name', '--cluster-id', '--role-arn', '--output'].includes(a[i]!) && /^[\w:/.@+=,-]+$/.test(a[i + 1] ?? '') && !a[i + 1]!.startsWith('-')) i++;
    else return `unexpected argument ${JSON.stringify(a[i])} for aws eks get-token`;
  }
  if (!getToken) return 'only `aws eks get-token` is accepted';
  const bad = exec.env.find((e) => !['AWS_PROFILE', 'AWS_STS_REGIONAL_ENDPOINTS'].includes(e.name));
  return bad ? `the plugin sets ${bad.name}` : undefined;
}

export const AWS_ISOLATION: CliIsolation = {
  allowEnv: AWS_ENV,
  configure(scratch, args, opts) {
    const profile = option(parseCommand(args, AWS_SYNTAX), '--profile')?.at(-1);
    return isolateAws(scratch, { ...opts, profile });
  },
  kubeconfig: {
    writes: (args) => {
      const words = parseCommand(args, AWS_SYNTAX).words;
      return words[0] === 'eks' && words[1] === 'update-kubeconfig';
    },
    redirect: (args, path) => ({ args: [...args, '--kubeconfig', path], env: {} }),
    exec: awsTokenPlugin,
  },
};

/** A firewall rule as `describe-security-group-rules` and `authorize-security-group-ingress` answer it. */
type SecurityGroupRule = { SecurityGroupRuleId?: string; Tags?: { Key?: string; Value?: string }[] };

const NOT_GONE = 'Name=instance-state-name,Values=pending,running,stopping,stopped';

const names: NameLookup<CliClient> = {
  // A step's own region and profile (not placeholders): its records are listed there.
  scopeOf(args) {
    const cmd = parseCommand(args.slice(1), AWS_SYNTAX);
    const out: string[] = [];
    for (const name of ['--region', '--profile']) {
      const v = option(cmd, name)?.at(-1);
      if (v !== undefined && !/<[A-Z]/.test(v)) out.push(name, v);
    }
    return out.length ? out : undefined;
  },

  async list(kind, client, signal, scope = []) {
    if (kind === 'bucket') {
      const data = (await client.run(['s3api', 'list-buckets', ...scope], signal)).data as { Buckets?: { Name?: string; CreationDate?: string }[] } | null;
      return (data?.Buckets ?? []).filter((b) => typeof b.Name === 'string').map((b) => ({ id: b.Name!, name: b.Name!, createdAt: b.CreationDate, record: b }));
    }
    if (kind === 'instance') {
      const data = (await client.run(['ec2', 'describe-instances', '--filters', NOT_GONE, ...scope], signal)).data as {
        Reservations?: { Instances?: { InstanceId?: string; LaunchTime?: string; Tags?: { Key?: string; Value?: string }[] }[] }[];
      } | null;
      const out: NamedRecord[] = [];
      for (const r of data?.Reservations ?? []) {
        for (const i of r.Instances ?? []) {
          const name = i.Tags?.find((t) => t.Key === 'Name')?.Value;
          if (name && i.InstanceId) out.push({ id: i.InstanceId, name, createdAt: i.LaunchTime, record: i });
        }
      }
      return out;
    }
    if (kind === 'security-group') {
      const data = (await client.run(['ec2', 'describe-security-groups', ...scope], signal)).data as { SecurityGroups?: { GroupId?: string; GroupName?: string }[] } | null;
      return (data?.SecurityGroups ?? []).filter((g) => g.GroupId && g.GroupName).map((g) => ({ id: g.GroupId!, name: g.GroupName!, record: g }));
    }
    if (kind === 'security-group-rule') {
      const data = (await client.run(['ec2', 'describe-security-group-rules', ...scope], signal)).data as { SecurityGroupRules?: SecurityGroupRule[] } | null;
      return (data?.SecurityGroupRules ?? []).flatMap((r) => {
        const name = r.Tags?.find((t) => t.Key === 'Name')?.Value;
        return name && r.SecurityGroupRuleId ? [{ id: r.SecurityGroupRuleId, name, record: r }] : [];
      });
    }
    return [];
  },

  createdId(kind, data) {
    if (kind === 'bucket') {
      // s3api create-bucket answers {"Location": "/name"}; s3 mb prints "make_bucket: name".
      const o = data as { Location?: string; output?: string } | null;
      const m = /make_bucket:\s*(\S+)/.exec(o?.output ?? '') ?? /^\/?([^/]+)$/.exec(o?.Location ?? '') ?? /^https?:\/\/([^.]+)\./.exec(o?.Location ?? '');
      return m?.[1];
    }
    if (kind === 'instance') return (data as { Instances?: { InstanceId?: string }[] } | null)?.Instances?.[0]?.InstanceId;
    if (kind === 'security-group') return (data as { GroupId?: string } | null)?.GroupId;
    if (kind === 'security-group-rule') return (data as { SecurityGroupRules?: SecurityGroupRule[] } | null)?.SecurityGroupRules?.[0]?.SecurityGroupRuleId;
    return undefined;
  },

  responseFor(kind, found) {
    if (kind === 'bucket') return { Location: `/${found.id}` };
    if (kind === 'instance') return { Instances: [found.record] };
    if (kind === 'security-group') return { GroupId: found.id };
    if (kind === 'security-group-rule') return { Return: true, SecurityGroupRules: [found.record] };
    return found.record;
  },
};

export const cloudAProvider = cliProvider({
  name: 'cloud_a',
  tool: AWS_TOOL,
  syntax: AWS_SYNTAX,
  rules: AWS_RULE_SET,
  minWords: 2,
  refuse: { '--debug': 'prints request details, tokens included; use `assistant --debug`' },
  usage: '["aws", "<service>", "<operation>", …options], e.g. ["aws", "s3api", "list-buckets"]',
  check(cmd) {
    const problems: ArgProblem[] = [];
    // produces reads JSON: text and table output would leave nothing to read.
    for (const v of option(cmd, '--output') ?? []) {
      if (v.toLowerCase() !== 'json') problems.push({ field: 'args', message: `--output ${v}: aws steps always print JSON (the step's data); leave --output out` });
    }
    return problems;
  },
  target: (opts) => awsCliTarget(resolveAwsTarget(opts.config, opts.env, opts.profile)),
  isolation: AWS_ISOLATION,
  names,
  preview: previewCloudA,
  burn: burnCloudA,
  capabilities: cloudACapabilities,
});

/** The `aws` step verb. */
export const awsVerb = cloudAProvider.verb;
