/**
 * The allowlist of `az` steps (the same table shape and classifier as cloud_a, engine/core/kits/cli/rules.ts;
 * default deny: a command no row names needs `--destroyer`). The command path has no fixed length
 * (`az vm delete`, `az storage blob delete-batch`): `**` rows match a verb anywhere in the command
 * words. Any argument written `@path` makes az read that file: refused unless it is an artefact.
 */
import { option, type CliSyntax, type ParsedCommand } from '../../core/kits/cli/argv.js';
import { artefactIn, artefactProblem } from '../../core/kits/cli/artefacts.js';
import { isZero } from '../../core/kits/cli/decode.js';
import { fileValueProblem, looksLocal } from '../../core/kits/cli/local-paths.js';
import { wordsUpToVerb, type CliRule, type CliRuleSet } from '../../core/kits/cli/rules.js';

export const AZ_SYNTAX: CliSyntax = {
  tool: 'az',
  globalValueOptions: new Set(['--subscription', '--output', '-o', '--query']),
  globalFlags: new Set(['--debug', '--verbose', '--only-show-errors', '--help', '-h']),
};

const zeroIn = (...opts: string[]) => (cmd: ParsedCommand) => opts.some((o) => (option(cmd, o) ?? []).some((v) => /<[A-Z][A-Z0-9_]*>/.test(v) || isZero(v)));

const VERBS = new Set([
  'create', 'delete', 'delete-*', 'list', 'list-*', 'show', 'show-*', 'update', 'set', 'start', 'stop', 'restart', 'deallocate', 'purge', 'remove', 'remove-*',
  'add', 'add-*', 'scale', 'invoke', 'sync', 'upload', 'upload-batch', 'download', 'download-batch', 'exists', 'wait', 'query', 'get-*', 'revoke', 'revoke-*',
  'generalize', 'redeploy', 'reimage', 'resize', 'login', 'logout', 'reset', 'renew', 'regenerate', 'restore', 'swap', 'import', 'run-command', 'deploy', 'up',
]);

/**
 * Creates known to be harmless (issue 35): each makes a new resource and neither runs code on the
 * subscription, grants or changes access, nor deletes data later. A create no row names needs --destroyer.
 */
const HARMLESS_CREATES: readonly string[] = [
  'group create',
  'vm|vmss|disk|snapshot|image create',
  'network vnet|nsg|public-ip|nic|lb|route-table create',
  'network vnet subnet create',
  'network nsg rule create',
  'network lb rule|probe|address-pool create',
  'network dns|private-dns zone create',
  'network nat gateway create',
  'storage account create',
  'storage container|share|queue|table|share-rm create',
  'aks create',
  'aks nodepool add',
  'acr create',
  'keyvault create',
  'sql server create',
  'sql db create',
  'postgres|mysql flexible-server create',
  'cosmosdb create',
  'redis create',
  'appservice plan create',
];

/** The `az rest` options a cost query uses, spelled in full (az would expand a prefix; none is accepted here). */
const COST_QUERY_OPTIONS = new Set(['--method', '-m', '--url', '--uri', '-u', '--body', '-b', '--output', '-o']);
/** Resource Manager of the public and sovereign clouds: where az sends its own token for `az rest`. */
const ARM_HOSTS = new Set(['management.azure.com', 'management.usgovcloudapi.net', 'management.chinacloudapi.cn']);
const GUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const COST_QUERY_PATH = new RegExp(`^/subscriptions/${GUID}(?:/resourcegroups/[-\\w.()]{1,90})?/providers/microsoft\\.costmanagement/query$`, 'i');
const COST_QUERY_TEXT = '`--method post` to `https://management.azure.com/subscriptions/<id>[/resourceGroups/<name>]/providers/Microsoft.CostManagement/query` (only `api-version` and `$skiptoken` in the query; the URL as written is its canonical form), no option but `--method`, `--url`, `--body`';

/**
 * `az rest` that is Cost Management's query and nothing else, decided from the one canonical URL: the
 * URL as written must be what the WHATWG parser makes of it (no `..`, no escapes it would rewrite, no
 * user or port), on Resource Manager, at the query's path. az replaces `{subscriptionId}` by its
 * current subscription: it stands for a subscription ID here.
 */
export function isCostQuery(cmd: ParsedCommand): boolean {
  if (cmd.words.length !== 1 || [...cmd.options.keys()].some((k) => !COST_QUERY_OPTIONS.has(k))) return false;
  const one = (...names: string[]) => {
    const vals = names.flatMap((n) => cmd.options.get(n) ?? []);
    return vals.length === 1 ? vals[0]! : undefined;
  };
  if (one('--method', '-m')?.toLowerCase() !== 'post' || one('--body', '-b') === undefined) return false;
  const raw = one('--url', '--uri', '-u');
  if (!raw || raw.split('{subscriptionId}').length > 2) return false;
  const written = raw.replace('{subscriptionId}', '00000000-0000-0000-0000-000000000000');
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    return false;
  }
  if (url.href !== written || url.protocol !== 'https:' || !ARM_HOSTS.has(url.hostname) || url.port || url.username || url.password || url.hash) return false;
  if (!COST_QUERY_PATH.test(url.pathname)) return false;
  const keys = [...url.searchParams.keys()];
  return keys.includes('api-version') && keys.every((k) => k === 'api-version' || k === '$skiptoken') && new Set(keys).size === keys.length;
}

const refused = (command: string, why: string): CliRule => ({ command, effect: 'refused', why });
const destroy = (command: string, why: string, when?: CliRule['when']): CliRule => ({ command, effect: 'destroy', why, when });
const read = (command: string, why: string, secrets?: CliRule['secrets']): CliRule => ({ command, effect: 'read', why, secrets });
const update = (command: string, why: string): CliRule => ({ command, effect: 'update', why });

export const AZ_RULES: readonly CliRule[] = [
  refused('login|logout|config|configure|extension|alias|upgrade|self-test|interactive|init|cache|feedback|bicep', "changes the az CLI's own sign-in, configuration, extensions or installation"),
  refused('account set|clear', "changes the az CLI's default subscription (its own configuration)"),
  refused('ssh', 'writes SSH keys or configuration on this machine'),
  refused('acr login', 'writes the docker configuration on this machine'),
  refused('aks install-cli|browse', 'installs or runs something on this machine'),
  refused('webapp up', 'deploys the current directory of this machine'),
  refused('** download|download-batch', 'writes files on this machine'),
  destroy('** delete|delete-*|purge|remove|remove-*|revoke|revoke-*|reset|renew|regenerate|restore|swap|import', 'deletes, purges, removes, revokes, resets or replaces something'),
  destroy('** deallocate|reimage', 'deallocates a VM (its temporary disk and dynamic IP are lost) or rebuilds it'),
  destroy('storage blob sync', 'deletes destination blobs missing from the source (the default)', {
    text: 'unless `--delete-destination false`',
    test: (cmd) => !(option(cmd, '--delete-destination') ?? []).some((v) => v.toLowerCase() === 'false'),
  }),
  destroy('** scale', 'scales to 0', { text: '`--new-capacity 0` or `--node-count 0`', test: zeroIn('--new-capacity', '--node-count') }),
  // Creates that run code, grant access or delete data later (issue 35): named for a clear reason; any
  // create no list below names needs --destroyer too ("not known to be safe").
  ...['deployment * create', 'group deployment create', 'stack * create'].map((command) =>
    destroy(command, 'a template deployment makes whatever its template says (role assignments, deployment scripts that run code); complete mode and deployment stacks also delete what the template does not list'),
  ),
  destroy('functionapp|webapp|containerapp|container create', 'runs code (a function, web app or container) with its identity'),
  destroy('eventgrid event-subscription create', 'sends events to a handler that runs code'),
  destroy('backup policy create|set', 'a backup policy deletes recovery points beyond its retention'),
  destroy('storage account management-policy create|update', 'a lifecycle policy deletes blobs when its rules say'),
  destroy('vm|vmss create', 'gives the machine\'s identity a role (a role assignment)', { text: '`--role` or `--scope`', test: (cmd) => option(cmd, '--role') !== undefined || option(cmd, '--scope') !== undefined }),
  destroy('aks create', 'gives the cluster pull access to a registry (a role assignment)', { text: '`--attach-acr`', test: (cmd) => option(cmd, '--attach-acr') !== undefined }),
  destroy('storage container create', 'makes the container readable by anyone', {
    text: '`--public-access` other than `off`',
    test: (cmd) => (option(cmd, '--public-access') ?? []).some((v) => v.trim().toLowerCase() !== 'off'),
  }),
  destroy('vm|vmss run-command', 'runs commands on VMs; what they do cannot be decided'),
  destroy('** invoke|deploy', 'runs or deploys code; what it does cannot be decided'),
  destroy('role|ad|identity|policy', 'changes identities, credentials or who may do what (a policy assignment may also deploy resources)', {
    text: 'anything but a read',
    test: (cmd) => !/^(list|show|exists|get-|list-|show-)/.test(cmd.words[wordsUpToVerb(VERBS)(cmd) - 1] ?? ''),
  }),
  update('aks get-credentials', 'adds a context to your kubeconfig: the CLI writes a scratch copy, which is sanitised and merged'),
  read('keyvault secret show', 'reads a secret (its value is masked)', ['value']),
  read('storage account keys list', 'reads the account keys (masked)', ['value']),
  read('account get-access-token', 'makes an access token (masked)'),
  read('** list|list-*|show|show-*|exists|wait|query|get-*', 'reads'),
  {
    command: 'rest',
    when: { text: COST_QUERY_TEXT, test: isCostQuery },
    effect: 'read',
    why: "reads costs: Cost Management's query is a POST that changes nothing",
  },
  ...HARMLESS_CREATES.map(
    (command): CliRule => ({
      command,
      effect: 'create',
      why: command === 'aks nodepool add' ? 'adds a node pool' : 'creates',
      kind: (cmd) => cmd.words.slice(0, cmd.words.findIndex((w) => w === 'create' || w === 'add')).join(' ') || undefined,
      name: (cmd) => {
        const name = (option(cmd, '--name') ?? option(cmd, '-n'))?.[0];
        return name ? { name, at: '--name' } : undefined;
      },
    }),
  ),
  update('vm start|stop|restart', 'starts, stops (still allocated) or restarts a VM (its disks are kept)'),
  update('** scale|resize', 'scales (to at least one)'),
  update('storage blob upload|upload-batch|sync', 'uploads blobs (a blob of the same name is replaced); from a local file only an artefact of --files'),
  update('keyvault secret set', 'adds a secret version (the old one is kept)'),
  update('** tag|add-tag|update-tags', 'adds tags'),
];

/** Options that name a local file az reads; their values must be artefacts or URLs. */
const READS_FILE = /^--(?:(?:.*-)?(?:file|file-path)|src|src-path)$/;
/** `--source` is a local directory for uploads and syncs (a container or URL elsewhere). */
const uploadsFrom = (cmd: ParsedCommand) => cmd.words.some((w) => w === 'upload-batch' || w === 'sync');
/** Options that name a local file or directory az writes. */
const WRITES_FILE = /^--(?:output-file|out-file|kubeconfig)$/;
/** az resource IDs start with a slash; they are not paths. */
const RESOURCE_ID = [/^\/subscriptions\//i, /^\/providers\//i, /^\/tenants\//i];

/** Why an az step would read or write the user's files, or []. */
export function azLocalEffects(cmd: ParsedCommand): string[] {
  const out: string[] = [];
  const values = [...cmd.rawWords.slice(wordsUpToVerb(VERBS)(cmd)), ...[...cmd.options.values()].flat()];
  for (const v of values) {
    if (v.startsWith('@')) {
      const ref = artefactIn(v);
      const problem = ref ? artefactProblem(ref.relative) : `${v}: az reads the file after "@"; name an artefact instead (@<FILES>/name with --files DIR)`;
      if (problem) out.push(problem);
    } else if (!artefactIn(v) && looksLocal(v, RESOURCE_ID)) out.push(`${v}: a path on this machine (plan steps never read or write your files)`);
  }
  for (const [name, vals] of cmd.options) {
    if (name === '--file' && cmd.words[0] === 'aks' && cmd.words[1] === 'get-credentials') out.push('--file makes the CLI write a kubeconfig on this machine (assistant merges it itself)');
    else if (WRITES_FILE.test(name)) out.push(`${name} makes the CLI write a local file`);
    else if (READS_FILE.test(name) || (name === '--source' && uploadsFrom(cmd))) {
      for (const v of vals) {
        if (v.startsWith('@')) continue; // checked above
        const p = fileValueProblem(name, v);
        if (p) out.push(p);
      }
    }
  }
  return [...new Set(out)];
}

export const AZ_RULE_SET: CliRuleSet = {
  tool: 'az',
  rules: AZ_RULES,
  decidingWords: wordsUpToVerb(VERBS),
  refusals: azLocalEffects,
  refusalText: [
    'an argument written `@path` (az reads the file), except `@<FILES>/name` with `--files DIR`; a local path anywhere (absolute, `~`, `..`)',
    'an option that reads a file (`--file`, `--source`, `--template-file`, …) unless its value is an artefact `<FILES>/name` or a URL; one that writes one (`--destination`, `--output-file`, `aks get-credentials --file`), any `download`',
  ],
};
