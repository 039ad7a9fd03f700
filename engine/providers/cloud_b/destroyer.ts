/**
 * The allowlist of `gcloud` steps (the same table shape and classifier as cloud_a, engine/core/kits/cli/rules.ts;
 * default deny: a command no row names needs `--destroyer`). gcloud's command path has no fixed length
 * (`gcloud compute instances delete NAME`): `**` rows match a verb anywhere in the command words, so a
 * positional that happens to be such a word makes the step a destroy (over-cautious, never the
 * reverse). A release track (`alpha`, `beta`, `preview`) is the same command to every row. gcloud
 * itself refuses command flags before the command and words in another case.
 */
import { option, type CliSyntax, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { artefactIn } from '../../core/kits/cli/artefacts.js';
import { isZero } from '../../core/kits/cli/decode.js';
import { fileValueProblem, isUrl, looksLocal } from '../../core/kits/cli/local-paths.js';
import { wordsUpToVerb, type CliRule, type CliRuleSet } from '../../core/kits/cli/rules.js';

export const GCLOUD_SYNTAX: CliSyntax = {
  tool: 'gcloud',
  globalValueOptions: new Set([
    '--project',
    '--format',
    '--account',
    '--configuration',
    '--verbosity',
    '--impersonate-service-account',
    '--billing-project',
    '--flatten',
    '--trace-token',
    '--access-token-file',
    '--flags-file',
  ]),
  globalFlags: new Set(['--quiet', '-q', '--log-http', '--no-log-http', '--user-output-enabled', '--no-user-output-enabled', '--help']),
  tracks: new Set(['alpha', 'beta', 'preview']),
  // gcloud refuses abbreviated flags (calliope's parser_extensions: "Cloud SDK no longer supports flag abbreviations").
  abbreviations: false,
};

/** A count option at 0 (as gcloud's int parsing reads it), or one only known at run time. */
const zeroIn = (...opts: string[]) => (cmd: ParsedCommand) => opts.some((o) => (option(cmd, o) ?? []).some((v) => /<[A-Z][A-Z0-9_]*>/.test(v) || isZero(v)));

const VERBS = new Set([
  'create', 'delete', 'delete-*', 'list', 'list-*', 'describe', 'update', 'patch', 'stop', 'start', 'reset', 'resize', 'suspend', 'resume', 'restart',
  'rm', 'rb', 'ls', 'cp', 'mv', 'cat', 'rsync', 'get-*', 'set-*', 'add-*', 'remove-*', 'attach-*', 'detach-*', 'enable', 'disable', 'deploy',
  'ssh', 'scp', 'import', 'export', 'cancel', 'wait', 'abandon-instances', 'recreate-instances', 'get-value', 'set', 'unset', 'read', 'tail',
  'access', 'submit', 'run', 'execute', 'call', 'login', 'revoke', 'activate-service-account', 'print-access-token', 'restore', 'undelete',
]);

/** The resource a create makes: the word before `create`, and its name (the first positional after it, or --name). */
function created(cmd: ParsedCommand): { name: string; at: string } | undefined {
  const at = cmd.words.indexOf('create');
  const positional = cmd.rawWords[at + 1];
  if (positional) return { name: positional.replace(/^gs:\/\//i, '').replace(/\/$/, ''), at: 'the NAME argument' };
  const named = option(cmd, '--name')?.[0];
  return named ? { name: named, at: '--name' } : undefined;
}

/**
 * Creates known to be harmless (issue 35): each makes a new resource and neither runs code on the
 * project, grants or changes access, nor deletes data later. A create no row names needs --destroyer.
 */
const HARMLESS_CREATES: readonly string[] = [
  'compute instances|disks|snapshots|images|machine-images|networks|addresses|instance-templates|routers|health-checks|backend-services|url-maps|target-http-proxies|target-https-proxies|target-pools|forwarding-rules|ssl-certificates|ssl-policies|firewall-rules|reservations create',
  'compute networks subnets create',
  'compute instance-groups managed|unmanaged create',
  'container clusters|node-pools create',
  'storage buckets create',
  'pubsub topics create',
  'secrets create',
  'kms keyrings|keys create',
  'dns managed-zones|record-sets create',
  'artifacts repositories create',
  'sql instances|databases create',
  'redis instances create',
  'filestore instances create',
];

const refused = (command: string, why: string): CliRule => ({ command, effect: 'refused', why });
const destroy = (command: string, why: string, when?: CliRule['when']): CliRule => ({ command, effect: 'destroy', why, when });
const read = (command: string, why: string, secrets?: CliRule['secrets']): CliRule => ({ command, effect: 'read', why, secrets });
const update = (command: string, why: string): CliRule => ({ command, effect: 'update', why });

export const GCLOUD_RULES: readonly CliRule[] = [
  refused('auth', "signs the gcloud CLI in or out, or prints its own credentials"),
  refused('config|components|init|emulators|docker|feedback|survey|meta|interactive|cheat-sheet', "changes the gcloud CLI's own configuration or installation, or runs something locally"),
  refused('compute ssh|scp|copy-files|connect-to-serial-port|config-ssh|start-iap-tunnel', 'opens SSH or a tunnel from this machine (with local keys)'),
  refused('source repos clone', 'clones into a local directory'),
  refused('sql connect', 'starts a local database client'),
  refused('iam service-accounts keys create', 'writes a private key to a local file'),
  destroy('** delete|delete-*|remove-*|detach-*|cancel|abandon-instances|recreate-instances|rm|rb|disable|unlink|revoke|purge|rollback|reset|restore|import', 'deletes, removes, detaches, resets, restores over or cancels something'),
  destroy('storage rsync', 'deletes destination objects missing from the source', {
    text: '`--delete-unmatched-destination-objects`',
    test: (cmd) => option(cmd, '--delete-unmatched-destination-objects') !== undefined,
  }),
  destroy('** resize', 'scales to 0', { text: '`--size 0` or `--num-nodes 0`', test: zeroIn('--size', '--num-nodes') }),
  destroy('** set-iam-policy|add-iam-policy-binding|set-password', 'changes who may do what: a replaced policy removes access, a binding grants it'),
  destroy('iam', 'changes identities, keys or roles', { text: 'anything but a read', test: (cmd) => !/^(list|describe|get-|list-)/.test(cmd.words[wordsUpToVerb(VERBS)(cmd) - 1] ?? '') }),
  destroy('** deploy|submit|execute|call', 'deploys or runs code (a deploy replaces what runs); what it does cannot be decided'),
  destroy('scheduler jobs run', 'runs a job now; what it does cannot be decided'),
  // Creates that run code, grant access or delete data later (issue 35): named for a clear reason; any
  // create no list below names needs --destroyer too ("not known to be safe").
  destroy('deployment-manager deployments create', 'a deployment makes whatever its configuration says (service accounts, IAM bindings, code that runs); what it does cannot be decided'),
  destroy('scheduler jobs create', 'a job calls its target (HTTP, Pub/Sub, App Engine) on a schedule'),
  destroy('run jobs create', 'a job runs its container\'s code with its service account (now with --execute-now, or when executed)'),
  destroy('builds triggers create', 'a trigger runs build steps with the build service account on every push or event'),
  destroy('eventarc triggers create', 'a trigger sends events to a service or workflow that runs code'),
  destroy('compute resource-policies create', 'a snapshot schedule deletes snapshots beyond its retention'),
  destroy('storage buckets create', 'a lifecycle configuration deletes objects when its rules say', { text: '`--lifecycle-file`', test: (cmd) => option(cmd, '--lifecycle-file') !== undefined }),
  destroy('secrets create', 'the secret is deleted when its time to live ends', { text: '`--ttl` or `--expire-time`', test: (cmd) => option(cmd, '--ttl') !== undefined || option(cmd, '--expire-time') !== undefined }),
  destroy('workflows run', 'runs a workflow; what it does cannot be decided'),
  destroy('dataflow jobs|flex-template run', 'runs a pipeline; what it does cannot be decided'),
  update('container clusters get-credentials', 'adds a context to your kubeconfig: the CLI writes a scratch copy, which is sanitised and merged'),
  read('secrets versions access', 'reads a secret version (its payload is masked)', ['data']),
  read('** list|list-*|describe|get-*|ls|cat|get-value|read|tail|get-serial-port-output|search-*', 'reads'),
  ...HARMLESS_CREATES.map((command): CliRule => ({ command, effect: 'create', why: 'creates', kind: (cmd) => cmd.words[cmd.words.indexOf('create') - 1], name: created })),
  update('compute instances start|stop|suspend|resume|add-labels|add-tags|add-metadata', 'starts, stops or labels a VM (its disks are kept)'),
  update('** resize', 'scales (to at least one)'),
  update('storage cp|rsync', 'copies into a bucket (an object of the same name is replaced); from a local file only an artefact of --files'),
  update('services enable', 'enables an API'),
  update('** add-labels|update-labels', 'adds labels'),
];

/** The positionals and option values of a gcloud step (every token after the command words). */
const everyValue = (cmd: ParsedCommand) => [...cmd.rawWords.slice(wordsUpToVerb(VERBS)(cmd)), ...[...cmd.options.values()].flat()];

/** Options that make gcloud read a local file; their values must be artefacts or cloud URLs. */
const READS_FILE = /^--(?:(?:.*-)?(?:file|from-file)|source|config|template|certificate|private-key)$/;
/** Options that make gcloud write a local file. */
const WRITES_FILE = /^--(?:.*-)?(?:out-file|output-file|destination-file|local-path|output-directory)$/;

/** Why a gcloud step would read or write the user's files, or []. */
export function gcloudLocalEffects(cmd: ParsedCommand): string[] {
  const out: string[] = [];
  if (option(cmd, '--flags-file') !== undefined) out.push('--flags-file reads flags from a local file');
  if (option(cmd, '--access-token-file') !== undefined) out.push('--access-token-file reads a token from a local file');
  if (option(cmd, '--configuration') !== undefined) out.push("--configuration selects another of the CLI's own configurations (a step gets only the active one)");
  for (const [name, values] of cmd.options) {
    if (WRITES_FILE.test(name)) out.push(`${name} makes the CLI write a local file`);
    else if (READS_FILE.test(name)) for (const v of values) { const p = fileValueProblem(name, v); if (p) out.push(p); }
  }
  if (cmd.words[0] === 'storage' && ['cp', 'mv', 'rsync'].includes(cmd.words[1] ?? '')) {
    const paths = everyValue(cmd).filter((v) => !v.startsWith('-'));
    const [source, ...rest] = cmd.rawWords.slice(2);
    const target = rest.at(-1);
    const local = (p: string | undefined) => p !== undefined && !isUrl(p) && p !== '-';
    if (cmd.words[1] === 'mv' && paths.some(local)) out.push('storage mv with a local path moves (deletes) or writes a file on this machine');
    if (local(source) && !artefactIn(source!)) out.push(`storage ${cmd.words[1]} from ${source}: the CLI reads local files; name an artefact instead (<FILES>/name with --files DIR)`);
    if (local(target) && target !== source) out.push(`storage ${cmd.words[1]} to ${target}: plan steps never write your files`);
  }
  for (const v of everyValue(cmd)) if (!artefactIn(v) && looksLocal(v)) out.push(`${v}: a path on this machine (plan steps never read or write your files)`);
  return [...new Set(out)];
}

export const GCLOUD_RULE_SET: CliRuleSet = {
  tool: 'gcloud',
  rules: GCLOUD_RULES,
  decidingWords: wordsUpToVerb(VERBS),
  refusals: gcloudLocalEffects,
  refusalText: [
    'a local path anywhere in the args (absolute, `~`, `..`, `$VAR`); `--flags-file`, `--access-token-file`, `--configuration`',
    'an option that reads a file (`--…-file`, `--…-from-file`, `--source`, …) unless its value is an artefact `<FILES>/name` or a cloud URL; one that writes a file (`--out-file`, …)',
    '`storage cp|rsync` from a local path (except an artefact) or to one; `storage mv` with one',
  ],
};
