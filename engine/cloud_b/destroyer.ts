/**
 * What a `gcloud` step does, decided from its parsed argument vector (the same rules-table shape and
 * classifier as cloud_a, engine/cli/rules.ts). gcloud's command path has no fixed length
 * (`gcloud compute instances delete NAME`): rows match a verb anywhere in the command words, so a
 * positional that happens to be such a word makes the step a destroy (over-cautious, never the reverse).
 * gcloud itself refuses command flags before the command and words in another case.
 */
import { option, type CliSyntax, type ParsedCommand } from '../cli/argv.js';
import { wordsUpToVerb, type CliRule, type CliRuleSet } from '../cli/rules.js';

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
  ]),
  globalFlags: new Set(['--quiet', '-q', '--log-http', '--no-log-http', '--user-output-enabled', '--no-user-output-enabled', '--help']),
};

const zeroIn = (...opts: string[]) => (cmd: ParsedCommand) => opts.some((o) => (option(cmd, o) ?? []).some((v) => /^\s*0+\s*$/.test(v)));

const VERBS = new Set([
  'create', 'delete', 'delete-*', 'list', 'list-*', 'describe', 'update', 'patch', 'stop', 'start', 'reset', 'resize', 'suspend', 'resume', 'restart',
  'rm', 'rb', 'ls', 'cp', 'mv', 'cat', 'rsync', 'get-*', 'set-*', 'add-*', 'remove-*', 'attach-*', 'detach-*', 'enable', 'disable', 'deploy',
  'ssh', 'scp', 'import', 'export', 'cancel', 'wait', 'abandon-instances', 'recreate-instances', 'get-value', 'set', 'unset',
]);

/** The resource a create makes: the word before `create`, and its name (the first positional after it, or --name). */
function created(cmd: ParsedCommand): { name: string; at: string } | undefined {
  const at = cmd.words.indexOf('create');
  const positional = cmd.rawWords[at + 1];
  if (positional) return { name: positional.replace(/^gs:\/\//i, '').replace(/\/$/, ''), at: 'the NAME argument' };
  const named = option(cmd, '--name')?.[0];
  return named ? { name: named, at: '--name' } : undefined;
}

export const GCLOUD_RULES: readonly CliRule[] = [
  { command: '** delete|delete-*|remove-*|detach-*|cancel|abandon-instances|recreate-instances', effect: 'destroy', why: 'deletes, removes, detaches, cancels or recreates something' },
  { command: '** rm|rb', effect: 'destroy', why: 'deletes objects or buckets' },
  {
    command: 'storage rsync',
    effect: 'destroy',
    why: 'deletes destination objects missing from the source',
    when: { text: '`--delete-unmatched-destination-objects`', test: (cmd) => option(cmd, '--delete-unmatched-destination-objects') !== undefined },
  },
  { command: '** resize', effect: 'destroy', why: 'scales to 0', when: { text: '`--size 0` or `--num-nodes 0`', test: zeroIn('--size', '--num-nodes') } },
  { command: 'services disable', effect: 'destroy', why: 'disabling an API stops what uses it (with --force, its resources)' },
  { command: '** set-iam-policy', effect: 'destroy', why: 'replaces the whole policy: access not in the file is removed' },
  { command: 'compute ssh', effect: 'destroy', why: 'runs commands on a VM; what they do cannot be decided' },
  { command: '** list|list-*|describe|get-*|ls|cat|get-value', effect: 'read', why: 'reads' },
  { command: '** create', effect: 'create', why: 'creates', kind: (cmd) => cmd.words[cmd.words.indexOf('create') - 1], name: created },
];

export const GCLOUD_RULE_SET: CliRuleSet = { tool: 'gcloud', rules: GCLOUD_RULES, decidingWords: wordsUpToVerb(VERBS) };
