/**
 * The allowlist of `aws` steps (DESIGN §7, default deny): one table, first matching row wins, and an
 * operation no row names needs `--destroyer` ("not known to be safe"). The table of docs/safety.md
 * ("The destroyer gate") is generated from these rows (test/core/docs.safety.test.ts checks it).
 *
 * - Refused outright: the CLI's own configuration and sign-in (`configure`, `sso login`, `codeartifact
 *   login`, …), commands that run locally (`emr ssh`, `ssm start-session`, `deploy install`), and every
 *   local file a step would read or write (engine/providers/cloud_a/params.ts).
 * - Needs --destroyer: what deletes, terminates, closes, disables, detaches, revokes or purges; stack
 *   updates and deploys that may remove resources; database statements and transactions; invocations
 *   of user code and automation; retention or lifecycle rules that expire data; scaling to zero.
 * - Runs freely: reads by AWS's own naming convention (`describe-*`, `list-*`, `get-*`, …, minus the
 *   named exceptions that mint credentials or write files), the creates each service lists as harmless
 *   (issue 35: no `create-*` wildcard; creates that run code, grant access or delete data later need
 *   --destroyer), and the named changes that remove nothing.
 *
 * Operation names are matched lower case (the CLI itself is case sensitive, but a rule must never be
 * dodged by case), options in any spelling the CLI accepts (`--opt value`, `--opt=value`, a prefix).
 * Parameters are decoded as the CLI decodes them before a row looks at them (JSON with escapes,
 * shorthand, `int()`), also inside `--cli-input-json`.
 */
import { option, type CliSyntax, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { isZero, leaves, valuesAt } from '../../core/kits/cli/decode.js';
import type { CliRule, CliRuleSet } from '../../core/kits/cli/rules.js';
import type { FoundSecret } from '../../core/kits/cli/secrets.js';
import { decodeProblems, localEffects, param, s3Paths } from './params.js';
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

/** A count parameter set to 0, or one only known at run time. */
function zero(opt: string, jsonKey: string) {
  return (cmd: ParsedCommand) => param(cmd, opt, jsonKey).some((v) => v === undefined || [...leaves(v)].some((l) => isZero(l.value)) || isZero(v));
}

/** `--scaling-config desiredSize=0,…` (shorthand) or `{"desiredSize": 0}` (JSON), also inside --cli-input-json. */
function scalingToZero(cmd: ParsedCommand): boolean {
  return param(cmd, '--scaling-config', 'scalingConfig').some(
    (v) => v === undefined || ['desiredSize', 'maxSize'].some((k) => valuesAt(v, k).some((x) => x === undefined || isZero(x))),
  );
}

/** Whether a decoded parameter holds `word` in any string (decoded: `\u0044ELETE` is DELETE), or is only known at run time. */
function mentions(opt: string, jsonKey: string, word: RegExp) {
  return (cmd: ParsedCommand) => param(cmd, opt, jsonKey).some((v) => v === undefined || textsOf(v).some((t) => word.test(t)));
}

/** Every key (at any depth) and every scalar of a decoded value, as text. */
function textsOf(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.push(k), walk(x));
    else if (v !== null && v !== undefined) out.push(String(v));
  };
  walk(value);
  return out;
}

/** A Route 53 change batch whose every change is a CREATE (UPSERT replaces, DELETE deletes); unknown at plan time is not. */
function onlyCreates(cmd: ParsedCommand): boolean {
  const batches = param(cmd, '--change-batch', 'ChangeBatch');
  if (!batches.length || batches.some((b) => b === undefined)) return false;
  const actions = batches.flatMap((b) => valuesAt(b, 'Action'));
  return actions.length > 0 && actions.every((a) => typeof a === 'string' && a.trim().toUpperCase() === 'CREATE');
}

/** An option given in argv, or its parameter in `--cli-input-json` (`--set-as-default` is `SetAsDefault` there; keys match in any case). */
const flag = (name: string) => (cmd: ParsedCommand) => option(cmd, name) !== undefined || param(cmd, name, name.slice(2).replace(/-/g, '')).length > 0;

/** `s3api create-bucket` with an ACL other than `private`, or any grant (`--grant-…`, `Grant…` in --cli-input-json); unknown at plan time counts. */
function grantsOnCreate(cmd: ParsedCommand): boolean {
  if ([...cmd.options.keys()].some((name) => name.startsWith('--gr'))) return true;
  const grants = ['--grant-full-control', '--grant-read', '--grant-read-acp', '--grant-write', '--grant-write-acp'];
  if (grants.some((opt) => param(cmd, opt, opt.slice(2).replace(/-/g, '')).length > 0)) return true;
  return param(cmd, '--acl', 'ACL').some((v) => typeof v !== 'string' || v.trim().toLowerCase() !== 'private');
}

/** An `Attributes` map (sqs, sns) with a key naming a policy (`Policy`, `RedriveAllowPolicy`), or one only known at run time or not decodable. */
function policyAttribute(cmd: ParsedCommand): boolean {
  return param(cmd, '--attributes', 'Attributes').some((v) => v === undefined || typeof v !== 'object' || v === null || Object.keys(v).some((k) => /policy/i.test(k)));
}

/**
 * Creates known to be harmless, per service (issue 35): each makes a new resource and neither runs code
 * on the account, grants or changes access, nor deletes data later. A create no list names needs
 * --destroyer ("not known to be safe"); the rows above name the ones known to need it, and the
 * conditions under which a listed one does (a policy given with it).
 */
const HARMLESS_CREATES: Readonly<Record<string, readonly string[]>> = {
  ec2: [
    'create-vpc', 'create-default-vpc', 'create-subnet', 'create-default-subnet', 'create-security-group', 'create-key-pair', 'create-volume', 'create-snapshot',
    'create-snapshots', 'create-image', 'create-internet-gateway', 'create-egress-only-internet-gateway', 'create-route-table', 'create-route', 'create-nat-gateway',
    'create-launch-template', 'create-launch-template-version', 'create-placement-group', 'create-network-interface', 'create-network-acl',
    'create-network-acl-entry', 'create-dhcp-options', 'create-vpc-endpoint', 'create-fleet', 'create-capacity-reservation',
  ],
  autoscaling: ['create-auto-scaling-group', 'create-launch-configuration'],
  eks: ['create-cluster', 'create-nodegroup', 'create-addon', 'create-fargate-profile'],
  ecs: ['create-cluster', 'create-service'],
  ecr: ['create-repository'],
  rds: ['create-db-instance', 'create-db-cluster', 'create-db-instance-read-replica', 'create-db-snapshot', 'create-db-cluster-snapshot', 'create-db-subnet-group', 'create-db-parameter-group', 'create-db-cluster-parameter-group'],
  dynamodb: ['create-table', 'create-backup'],
  elasticache: ['create-cache-cluster', 'create-replication-group', 'create-cache-subnet-group'],
  efs: ['create-file-system', 'create-mount-target'],
  elbv2: ['create-load-balancer', 'create-target-group', 'create-listener', 'create-rule'],
  elb: ['create-load-balancer'],
  route53: ['create-hosted-zone', 'create-health-check'],
  logs: ['create-log-group'],
  kinesis: ['create-stream'],
  sqs: ['create-queue'],
  sns: ['create-topic'],
  secretsmanager: ['create-secret'],
  kms: ['create-key', 'create-alias'],
  glue: ['create-database', 'create-table'],
  backup: ['create-backup-vault'],
};

/** The kind a listed create makes: the operation without `create-` (`security-group`). */
const createdKind = (cmd: ParsedCommand) => cmd.words[1]!.replace(/^create-/, '');

/**
 * The name a listed create gives what it makes, for the kinds the provider's name lookup lists (provider.ts
 * `names`): the duplicate-name check and exactly-once then cover it like an instance.
 */
function createdName(cmd: ParsedCommand): { name: string; at: string } | undefined {
  if (cmd.words[0] === 'ec2' && cmd.words[1] === 'create-security-group') return optionName('--group-name')(cmd);
  return undefined;
}

/** `s3://bucket[/…]` → bucket. */
function bucketOfUrl(url: string | undefined): string | undefined {
  const m = /^s3:\/\/([^/]+)/i.exec(url ?? '');
  return m?.[1];
}

function s3Url(cmd: ParsedCommand): { name: string; at: string } | undefined {
  const name = bucketOfUrl(s3Paths(cmd).find((t) => /^s3:\/\//i.test(t)));
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
  for (const v of param(cmd, '--tag-specifications', 'TagSpecifications')) {
    for (const tags of valuesAt(v, 'Tags')) {
      for (const tag of Array.isArray(tags) ? tags : [tags]) {
        const t = tag as { Key?: unknown; Value?: unknown } | null;
        if (t?.Key === 'Name' && typeof t.Value === 'string' && t.Value) return { name: t.Value, at: '--tag-specifications Name' };
      }
    }
  }
  return undefined;
}

/** Parameters of type SecureString read with their values (`ssm get-parameter --with-decryption`). */
function secureStrings(data: unknown): FoundSecret[] {
  const out: FoundSecret[] = [];
  const d = data as { Parameter?: unknown; Parameters?: unknown[] } | null;
  const list = [d?.Parameter, ...(Array.isArray(d?.Parameters) ? d.Parameters : [])];
  list.forEach((p, i) => {
    const q = p as { Type?: unknown; Value?: unknown } | undefined;
    if (q?.Type === 'SecureString' && typeof q.Value === 'string') out.push({ path: `$.Parameters[${i}].Value`, value: q.Value });
  });
  return out;
}

const refused = (command: string, why: string): CliRule => ({ command, effect: 'refused', why });
const destroy = (command: string, why: string, when?: CliRule['when']): CliRule => ({ command, effect: 'destroy', why, when });
const read = (command: string, why: string, secrets?: CliRule['secrets']): CliRule => ({ command, effect: 'read', why, secrets });
const update = (command: string, why: string, secrets?: CliRule['secrets']): CliRule => ({ command, effect: 'update', why, secrets });

/** Operations that remove, cut off or give up something, whatever the service. */
const DESTRUCTIVE_OPERATIONS = [
  'delete-*', 'batch-delete-*', 'terminate-*', 'remove-*', 'deregister-*', 'purge-*', 'revoke-*', 'detach-*', 'disassociate-*', 'release-*',
  'cancel-*', 'disable-*', 'untag-*', 'close-*', 'schedule-*-deletion', 'reject-*', 'replace-*', 'reset-*', 'leave-*',
];

export const AWS_RULES: readonly CliRule[] = [
  // The CLI's own configuration, sign-in and local helpers: never from a plan.
  refused('configure', "changes the aws CLI's own configuration or credentials"),
  refused('history', "reads the aws CLI's local command history"),
  refused('sso login|logout', "signs the aws CLI in or out (writes its token cache)"),
  refused('sso-oidc', "is the aws CLI's own sign-in flow"),
  refused('codeartifact login', 'writes the npm, pip or twine configuration on this machine'),
  refused('codecommit credential-helper', 'is a local git credential helper'),
  refused('ecs deploy', 'reads task definition and appspec files on this machine'),
  refused('cloudformation package', 'reads local directories and writes a local template'),
  refused('deploy push|install|uninstall|register', 'reads local files or installs the CodeDeploy agent on this machine'),
  refused('emr ssh|sock|socks|get|put', 'opens SSH from this machine with a local key file'),
  refused('gamelift upload-build|get-game-session-log', 'reads or writes local files'),
  refused('ssm start-session', 'starts an interactive session with a local plugin'),
  refused('ecs execute-command', 'starts an interactive session with a local plugin (and runs commands in a container)'),
  refused('ec2-instance-connect ssh|open-tunnel', 'opens SSH or a tunnel from this machine'),
  // Known destructive.
  destroy('s3 rm|rb|mv', 'deletes objects or a bucket (mv deletes the sources)'),
  destroy('s3 sync', 'deletes objects missing from the source', { text: '`--delete`', test: (cmd) => option(cmd, '--delete') !== undefined }),
  destroy(`* ${DESTRUCTIVE_OPERATIONS.join('|')}`, 'deletes, terminates, closes, disables, detaches, revokes, replaces or cancels something'),
  destroy('ec2 create-replace-root-volume-task', 'replaces an instance\'s root volume (its data is lost)'),
  destroy('iam create-policy-version', 'makes the new version the default: permissions not in it are removed', { text: '`--set-as-default`', test: flag('--set-as-default') }),
  destroy('iam update-access-key|update-login-profile|update-assume-role-policy', 'disables a key, changes a password or who may assume a role'),
  destroy('iam put-*-policy|put-*-permissions-boundary', 'replaces an inline policy or boundary: permissions not in it are removed'),
  destroy('iam|sso-admin|identitystore|ram|organizations', 'changes identities, credentials, permissions or what is shared with other accounts', {
    text: 'anything but a read (`get-*`, `list-*`, `describe-*`, `simulate-*`, `generate-credential-report`)',
    test: (cmd) => !/^(get-|list-|describe-|simulate-|generate-credential-report$|generate-service-last-accessed-details$)/.test(cmd.words[1] ?? ''),
  }),
  destroy('kms create-grant|put-key-policy|retire-grant', 'lets others use a key, or replaces who may'),
  destroy('s3api put-bucket-lifecycle*', 'a lifecycle rule that expires objects deletes them', {
    text: 'an `Expiration` in the configuration (or one only known at run time)',
    test: mentions('--lifecycle-configuration', 'LifecycleConfiguration', /expiration/i),
  }),
  destroy('s3api put-bucket-policy|put-bucket-acl|put-object-acl|put-bucket-versioning|put-public-access-block|put-bucket-tagging|put-object-retention|put-object-lock-configuration', 'replaces a bucket setting: what the old one allowed or kept is gone'),
  destroy('ecr put-lifecycle-policy', 'a lifecycle policy expires (deletes) images'),
  destroy('logs put-retention-policy', 'log events older than the retention are deleted'),
  destroy('kinesis decrease-stream-retention-period', 'records older than the retention are deleted'),
  destroy('route53 change-resource-record-sets', 'deletes (DELETE) or replaces (UPSERT) DNS records', {
    text: 'any change that is not a `CREATE` (or a batch only known at run time)',
    test: (cmd) => !onlyCreates(cmd),
  }),
  destroy('dynamodb batch-write-item|put-item|update-item|transact-write-items', 'writes items: a put replaces an item of the same key, a batch may delete'),
  destroy('dynamodb execute-statement|batch-execute-statement|execute-transaction', 'runs PartiQL statements, which may delete or overwrite items'),
  destroy('rds-data execute-statement|batch-execute-statement|begin-transaction|commit-transaction|execute-sql', 'runs SQL statements or transactions, which may delete data'),
  destroy('redshift-data execute-statement|batch-execute-statement', 'runs SQL statements, which may delete data'),
  destroy('athena start-query-execution', 'runs SQL, which may drop tables or overwrite data'),
  destroy('neptunedata execute-*', 'runs graph queries, which may delete data'),
  destroy('cloudformation update-stack|update-stack-set|update-stack-instances|execute-change-set|deploy|set-stack-policy|update-termination-protection|rollback-stack|continue-update-rollback', 'a stack update or deploy may remove or replace resources'),
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
  destroy('ssm put-parameter', 'overwrites an existing parameter', { text: '`--overwrite`', test: flag('--overwrite') }),
  destroy(
    'lambda invoke-async|invoke-with-response-stream|invoke',
    'runs a function\'s code; what it does cannot be decided',
  ),
  destroy('ssm send-command|start-automation-execution|start-change-request-execution', 'runs commands or automation on instances; what they do cannot be decided'),
  // Creates that run code, grant access or delete data later (issue 35): named here for a clear reason;
  // any other create no list below names needs --destroyer too ("not known to be safe").
  destroy('cloudformation create-*', 'a stack, change set or stack set makes whatever its template says (IAM users and keys, code that runs, deletion policies); what it does cannot be decided'),
  destroy('lambda create-*', 'a function runs its code with its role; an event source mapping or function URL invokes it'),
  destroy('ssm create-*', 'an association, document, maintenance window or activation runs commands on instances (now or on a schedule) or registers machines'),
  destroy('scheduler create-*', 'a schedule runs its target (code, automation, API calls) at the times it names'),
  destroy('events put-rule|put-targets|create-*', 'a rule sends events to targets that run code or change resources'),
  destroy('pipes create-*', 'a pipe sends events to targets that run code or change resources'),
  destroy('glue create-job|create-trigger|create-crawler|create-workflow|create-dev-endpoint|create-session|create-blueprint|create-ml-transform', 'a job, trigger or crawler runs code with its role (now or on a schedule)'),
  destroy('batch create-*', 'a compute environment or job queue runs jobs\' code with their roles'),
  destroy('codebuild create-*', 'a project or webhook runs build commands with its role'),
  destroy('s3control create-*', 'a batch job acts on every object it lists (copies, deletes, replaces tags or ACLs); an access point or grant gives access'),
  destroy('backup create-backup-plan|create-backup-selection|create-restore-testing-plan|create-restore-testing-selection', 'a backup plan deletes recovery points when its lifecycle says, and acts with its role'),
  destroy('dlm create-lifecycle-policy', 'a lifecycle policy deletes snapshots and images beyond its retention'),
  destroy('eks create-access-entry|create-pod-identity-association|associate-access-policy', 'gives a principal access to the cluster, or pods a role'),
  destroy('kms create-key', 'the key policy decides who may use the key', { text: '`--policy`', test: flag('--policy') }),
  destroy('s3api create-bucket', 'grants access to the bucket (an ACL other than private, or a grant)', { text: '`--acl` other than `private`, or a `--grant-…`', test: grantsOnCreate }),
  destroy('sqs create-queue', 'a queue policy decides who may send to or read the queue', { text: 'a `…Policy` attribute (or attributes only known at run time)', test: policyAttribute }),
  destroy('sns create-topic', 'a topic policy decides who may publish or subscribe', { text: 'a `…Policy` attribute (or attributes only known at run time)', test: policyAttribute }),
  destroy('dynamodb create-table', 'a resource policy decides who may read or write the table', { text: '`--resource-policy`', test: flag('--resource-policy') }),
  destroy('ec2 create-vpc-endpoint', 'an endpoint policy decides who may reach the service through it', { text: '`--policy-document`', test: flag('--policy-document') }),
  destroy('secretsmanager create-secret', 'overwrites a secret of the same name in the replica regions', { text: '`--force-overwrite-replica-secret`', test: flag('--force-overwrite-replica-secret') }),
  destroy('ecs run-task|start-task|stop-task', 'runs (or stops) a container\'s code; what it does cannot be decided'),
  destroy('stepfunctions start-execution|start-sync-execution|redrive-execution', 'runs a state machine; what it does cannot be decided'),
  destroy('batch submit-job', 'runs a job\'s code; what it does cannot be decided'),
  destroy('codebuild start-build|start-build-batch|retry-build', 'runs a build\'s commands; what they do cannot be decided'),
  destroy('glue start-job-run|start-workflow-run', 'runs an ETL job\'s code; what it does cannot be decided'),
  // Reads, with the exceptions first: these `get-*` mint credentials or identities.
  update('cognito-identity get-id|get-open-id-token|get-open-id-token-for-developer-identity|get-credentials-for-identity', 'creates an identity or credentials for it'),
  update('redshift get-cluster-credentials|get-cluster-credentials-with-iam', 'issues database credentials (and may create the database user)'),
  update('lightsail get-instance-access-details', 'creates temporary SSH keys for an instance'),
  read('ssm get-parameter|get-parameters|get-parameters-by-path', 'reads parameters (SecureString values are masked)', secureStrings),
  read('ecr get-login-password|get-login', 'reads a registry password (masked)', 'all'),
  read('ecr-public get-login-password', 'reads a registry password (masked)', 'all'),
  read('rds generate-db-auth-token', 'makes a database auth token (masked)', 'all'),
  // A presigned URL is a bearer credential for the object: masked like a password.
  read('s3 presign', 'makes a presigned URL (masked: whoever has it can read the object)', 'all'),
  read('lambda get-function', "reads a function (the presigned URL of its code is masked)", ['Location']),
  read('ecr get-download-url-for-layer', 'makes a download URL for a layer (masked)', ['downloadUrl']),
  read('kms decrypt', 'decrypts (the plaintext is masked)', ['Plaintext']),
  read('kms encrypt|generate-data-key|generate-data-key-without-plaintext|generate-data-key-pair|generate-random|sign|verify|generate-mac|verify-mac', 'cryptography with a key; nothing is stored'),
  read('sts assume-role|assume-role-with-saml|assume-role-with-web-identity|get-session-token|get-federation-token|get-caller-identity|decode-authorization-message', 'reads, or issues temporary credentials (masked)'),
  read('* describe-*|list-*|get-*|batch-get-*|head-*|lookup-*|search-*|wait|simulate-*', 'reads (or waits for a state)'),
  read('s3 ls', 'lists buckets or objects'),
  read('dynamodb query|scan', 'reads items'),
  read('cloudformation validate-template|estimate-template-cost', 'checks a template'),
  read('logs tail|filter-log-events|start-query|stop-query', 'reads log events'),
  // Creates: a new resource; nothing existing is removed.
  { command: 's3 mb', effect: 'create', why: 'creates a bucket', kind: 'bucket', name: s3Url },
  { command: 's3api create-bucket', effect: 'create', why: 'creates a bucket', kind: 'bucket', name: optionName('--bucket') },
  { command: 'ec2 run-instances', effect: 'create', why: 'creates instances', kind: 'instance', name: nameTag },
  // A rule is a resource of its own (sgr-…): with a Name tag, a resume adopts the one an interrupted run added
  // instead of failing on InvalidPermission.Duplicate.
  { command: 'ec2 authorize-security-group-ingress|authorize-security-group-egress', effect: 'create', why: 'adds a firewall rule (the port is open to what it names)', kind: 'security-group-rule', name: nameTag },
  ...Object.entries(HARMLESS_CREATES).map(([service, ops]): CliRule => ({ command: `${service} ${ops.join('|')}`, effect: 'create', why: 'creates', kind: createdKind, name: createdName })),
  { command: 'ec2 allocate-address|import-key-pair|copy-image|copy-snapshot|request-spot-instances', effect: 'create', why: 'creates' },
  { command: 'ecs register-task-definition', effect: 'create', why: 'registers a new task definition revision' },
  { command: 'lambda publish-version|publish-layer-version', effect: 'create', why: 'publishes a new version' },
  // Changes known to remove nothing.
  update('s3 cp|sync', 'copies into a bucket (an object of the same key is replaced); from a local file only an artefact of --files'),
  update('s3api put-object', 'uploads an object (an object of the same key is replaced); the body only from an artefact of --files'),
  update('ec2 start-instances|stop-instances|reboot-instances|monitor-instances|unmonitor-instances', 'starts, stops or reboots instances (their disks are kept)'),
  update('ec2 attach-volume|attach-internet-gateway', 'attaches a volume or gateway'),
  update('ecs update-service', 'changes a service (at least one task keeps running)'),
  update('eks update-nodegroup-config', 'scales a node group (to at least one node)'),
  { command: 'eks update-kubeconfig', effect: 'update', kind: 'kubeconfig', why: 'adds a context to your kubeconfig: the CLI writes a scratch copy, which is sanitised and merged' },
  read('eks get-token', 'makes a cluster token (masked)'),
  update('autoscaling set-desired-capacity|update-auto-scaling-group|create-or-update-tags|resume-processes', 'scales a group (to at least one instance) or tags it'),
  update('lambda put-function-concurrency', 'reserves concurrency for a function (above 0)'),
  update('secretsmanager put-secret-value', 'adds a secret version (the old one stays as AWSPREVIOUS)'),
  update('ssm put-parameter|add-tags-to-resource|label-parameter-version', 'creates a parameter (without --overwrite) or tags it'),
  update('route53 change-resource-record-sets', 'creates DNS records (every change a CREATE)'),
  update('* tag-resource|tag-resources|add-tags|add-tags-to-resource|create-tags', 'adds tags'),
  update('logs put-log-events|create-log-stream', 'writes log events'),
  update('cloudwatch put-metric-data', 'writes metric data points'),
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
  decodeProblems,
  refusals: localEffects,
  refusalText: [
    'a `file://` or `fileb://` parameter (or `key@=file://` shorthand), except `file://<FILES>/name` with `--files DIR`',
    'a streaming output (`s3api get-object … OUTFILE`, `lambda invoke … OUTFILE`), any `--…-outfile`, `--save-as`, `--output-template-file`, `--kubeconfig`',
    'a streaming input (`s3api put-object --body PATH`), `--template-file`, `s3 cp|sync` from a local path, except an artefact `<FILES>/name`',
    '`s3 cp|sync|mv` to a local path, `s3 mv` from one, `--follow-symlinks`; `--priv-launch-key`, `--key-pair-file`',
    '`--endpoint-url` (another server could replay the signed request), `--ca-bundle`, `--no-verify-ssl`',
  ],
};
