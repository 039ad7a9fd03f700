/**
 * What an `aws` step does, decided from its parsed argument vector only (issue 14 item 2): one rules
 * table, first matching row wins. The README's table ("Other clouds") is generated from these rows
 * (test/cloud_a.rules.test.ts checks it). Operation names are matched lower case (the CLI itself is case
 * sensitive, but a rule must never be dodged by case), options in any spelling the CLI accepts
 * (`--opt value`, `--opt=value`, an unambiguous prefix).
 *
 * `--cli-input-json` / `--cli-input-yaml` cannot hide an operation (it is always in argv), only
 * parameters. So they matter only for rows that look at a parameter (a desired count of 0, a lifecycle
 * expiration): those read the JSON when it is inline and treat YAML or a `file://` reference, which the
 * argv does not show, as destructive.
 */
import { option, type CliSyntax, type ParsedCommand } from '../cli/argv.js';
import type { CliRule, CliRuleSet } from '../cli/rules.js';
import { AWS_SERVICES } from './services.js';

export const AWS_SYNTAX: CliSyntax = {
  tool: 'aws',
  globalValueOptions: new Set([
    '--region',
    '--profile',
    '--output',
    '--endpoint-url',
    '--query',
    '--color',
    '--ca-bundle',
    '--cli-read-timeout',
    '--cli-connect-timeout',
    '--cli-binary-format',
  ]),
  globalFlags: new Set(['--debug', '--no-verify-ssl', '--no-paginate', '--no-sign-request', '--version', '--no-cli-pager', '--cli-auto-prompt', '--no-cli-auto-prompt']),
};

/** Parameter values from argv and from inline `--cli-input-json`; `undefined` in the list when the argv cannot show them. */
function paramValues(cmd: ParsedCommand, opt: string, jsonKey: string): (string | undefined)[] {
  const values: (string | undefined)[] = [...(option(cmd, opt) ?? [])];
  for (const v of option(cmd, '--cli-input-json') ?? []) {
    if (/^fileb?:\/\//i.test(v)) {
      values.push(undefined);
      continue;
    }
    try {
      const found = findKey(JSON.parse(v), jsonKey);
      if (found !== undefined) values.push(typeof found === 'string' ? found : JSON.stringify(found));
    } catch {
      values.push(undefined);
    }
  }
  if (option(cmd, '--cli-input-yaml')) values.push(undefined);
  return values.map((v) => (v !== undefined && /^fileb?:\/\//i.test(v) ? undefined : v));
}

function findKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    for (const v of value) {
      const f = findKey(v, key);
      if (f !== undefined) return f;
    }
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k.toLowerCase() === key.toLowerCase()) return v;
    const f = findKey(v, key);
    if (f !== undefined) return f;
  }
  return undefined;
}

/** A count parameter set to 0 (or one the argv cannot show). */
function zero(opt: string, jsonKey: string) {
  return (cmd: ParsedCommand) => paramValues(cmd, opt, jsonKey).some((v) => v === undefined || /^\s*0+\s*$/.test(v));
}

/** `--scaling-config desiredSize=0,…` (shorthand) or `{"desiredSize": 0}` (JSON), also inside --cli-input-json. */
function scalingToZero(cmd: ParsedCommand): boolean {
  return paramValues(cmd, '--scaling-config', 'scalingConfig').some(
    (v) => v === undefined || /(?:^|[,{\s"])(?:desiredsize|maxsize)"?\s*[=:]\s*0+(?!\d)/i.test(v),
  );
}

/** Whether a text parameter contains a word (any case), or cannot be shown by the argv. */
function mentions(opt: string, jsonKey: string, word: RegExp) {
  return (cmd: ParsedCommand) => paramValues(cmd, opt, jsonKey).some((v) => v === undefined || word.test(v));
}

/** `s3://bucket[/…]` → bucket. */
function bucketOfUrl(url: string | undefined): string | undefined {
  const m = /^s3:\/\/([^/]+)/i.exec(url ?? '');
  return m?.[1];
}

function s3Url(cmd: ParsedCommand): { name: string; at: string } | undefined {
  const all = [...cmd.rawWords.slice(2), ...(cmd.options.get('') ?? [])];
  const name = bucketOfUrl(all.find((t) => /^s3:\/\//i.test(t)));
  return name ? { name, at: 'the s3:// URL' } : undefined;
}

function optionName(opt: string) {
  return (cmd: ParsedCommand) => {
    const v = option(cmd, opt)?.[0];
    return v ? { name: v, at: opt } : undefined;
  };
}

/** The Name tag of `--tag-specifications` (shorthand `…Tags=[{Key=Name,Value=web}]` or JSON). */
export function nameTag(cmd: ParsedCommand): { name: string; at: string } | undefined {
  for (const v of option(cmd, '--tag-specifications') ?? []) {
    const short = /Key=Name,Value=([^,}\]]+)/.exec(v);
    if (short) return { name: short[1]!, at: '--tag-specifications Name' };
    try {
      const specs = JSON.parse(v) as { Tags?: { Key?: string; Value?: string }[] }[];
      for (const spec of Array.isArray(specs) ? specs : [specs]) {
        const tag = spec?.Tags?.find((t) => t?.Key === 'Name');
        if (tag?.Value) return { name: tag.Value, at: '--tag-specifications Name' };
      }
    } catch {
      // Not JSON and not the shorthand: no name.
    }
  }
  return undefined;
}

const destroy = (command: string, why: string, when?: CliRule['when']): CliRule => ({ command, effect: 'destroy', why, when });
const read = (command: string, why: string): CliRule => ({ command, effect: 'read', why });

/** Operations that remove, cut off or give up something, whatever the service. */
const DESTRUCTIVE_OPERATIONS = ['delete-*', 'batch-delete-*', 'terminate-*', 'remove-*', 'deregister-*', 'purge-*', 'revoke-*', 'detach-*', 'disassociate-*', 'release-*', 'cancel-*'];

export const AWS_RULES: readonly CliRule[] = [
  destroy('s3 rm|rb|mv', 'deletes objects or a bucket (mv deletes the sources)'),
  destroy('s3 sync', 'deletes objects missing from the source', { text: '`--delete`', test: (cmd) => option(cmd, '--delete') !== undefined }),
  destroy(`* ${DESTRUCTIVE_OPERATIONS.join('|')}`, 'deletes, terminates, removes, revokes, detaches or cancels something'),
  destroy('kms schedule-key-deletion', 'schedules a key for deletion (data encrypted with it becomes unreadable)'),
  destroy('s3api put-bucket-lifecycle*', 'a lifecycle rule that expires objects deletes them', {
    text: 'an `Expiration` in the configuration (or one the argv does not show)',
    test: mentions('--lifecycle-configuration', 'LifecycleConfiguration', /expiration/i),
  }),
  destroy('route53 change-resource-record-sets', 'deletes DNS records', {
    text: 'a `DELETE` change (or a batch the argv does not show)',
    test: mentions('--change-batch', 'ChangeBatch', /delete/i),
  }),
  destroy('dynamodb batch-write-item', 'deletes items', {
    text: 'a `DeleteRequest` (or items the argv does not show)',
    test: mentions('--request-items', 'RequestItems', /deleterequest/i),
  }),
  destroy('eks update-nodegroup-config', 'scales a node group to 0', { text: '`--scaling-config` desiredSize or maxSize 0', test: scalingToZero }),
  destroy('autoscaling set-desired-capacity', 'scales a group to 0 instances', { text: '`--desired-capacity 0`', test: zero('--desired-capacity', 'DesiredCapacity') }),
  destroy('autoscaling update-auto-scaling-group', 'scales a group to 0 instances', {
    text: '`--desired-capacity 0` or `--max-size 0`',
    test: (cmd) => zero('--desired-capacity', 'DesiredCapacity')(cmd) || zero('--max-size', 'MaxSize')(cmd),
  }),
  destroy('ecs update-service', 'scales a service to 0 tasks', { text: '`--desired-count 0`', test: zero('--desired-count', 'desiredCount') }),
  destroy('lambda put-function-concurrency', 'stops a function from running', {
    text: '`--reserved-concurrent-executions 0`',
    test: zero('--reserved-concurrent-executions', 'ReservedConcurrentExecutions'),
  }),
  destroy('ssm|ecs send-command|execute-command', 'runs commands on instances or containers; what they do cannot be decided'),
  read('* describe-*|list-*|get-*|batch-get-*|head-*|lookup-*|search-*|wait', 'reads (or waits for a state)'),
  read('s3 ls|presign', 'lists, or makes a URL'),
  read('dynamodb query|scan', 'reads items'),
  { command: 's3 mb', effect: 'create', why: 'creates a bucket', kind: 'bucket', name: s3Url },
  { command: 's3api create-bucket', effect: 'create', why: 'creates a bucket', kind: 'bucket', name: optionName('--bucket') },
  { command: 'ec2 run-instances', effect: 'create', why: 'creates instances', kind: 'instance', name: nameTag },
  { command: '* create-*', effect: 'create', why: 'creates', kind: (cmd) => cmd.words[1]!.slice('create-'.length) },
];

export const AWS_RULE_SET: CliRuleSet = {
  tool: 'aws',
  rules: AWS_RULES,
  decidingWords: 2,
  undecidable(cmd) {
    const service = cmd.words[0]!;
    if (!AWS_SERVICES.has(service)) {
      return [`"${cmd.rawWords[0]}" is not a command of the aws CLI (an alias in ~/.aws/cli/alias can run anything)`];
    }
    return [];
  },
};
