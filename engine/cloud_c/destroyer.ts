/**
 * What an `az` step does, decided from its parsed argument vector (the same rules-table shape and
 * classifier as cloud_a, engine/cli/rules.ts). The command path has no fixed length (`az vm delete`,
 * `az storage blob delete-batch`): rows match a verb anywhere in the command words.
 */
import { option, type CliSyntax, type ParsedCommand } from '../cli/argv.js';
import { wordsUpToVerb, type CliRule, type CliRuleSet } from '../cli/rules.js';

export const AZ_SYNTAX: CliSyntax = {
  tool: 'az',
  globalValueOptions: new Set(['--subscription', '--output', '-o', '--query']),
  globalFlags: new Set(['--debug', '--verbose', '--only-show-errors', '--help', '-h']),
};

const zeroIn = (...opts: string[]) => (cmd: ParsedCommand) => opts.some((o) => (option(cmd, o) ?? []).some((v) => /^\s*0+\s*$/.test(v)));

const VERBS = new Set([
  'create', 'delete', 'delete-*', 'list', 'list-*', 'show', 'show-*', 'update', 'set', 'start', 'stop', 'restart', 'deallocate', 'purge', 'remove', 'remove-*',
  'add', 'add-*', 'scale', 'invoke', 'sync', 'upload', 'upload-batch', 'download', 'download-batch', 'exists', 'wait', 'query', 'get-*', 'revoke', 'revoke-*',
  'generalize', 'redeploy', 'reimage', 'resize', 'login', 'logout',
]);

export const AZ_RULES: readonly CliRule[] = [
  { command: '** delete|delete-*|purge|remove|remove-*|revoke|revoke-*', effect: 'destroy', why: 'deletes, purges, removes or revokes something' },
  { command: '** deallocate|reimage', effect: 'destroy', why: 'deallocates a VM (its temporary disk and dynamic IP are lost) or rebuilds it' },
  {
    command: 'storage blob sync',
    effect: 'destroy',
    why: 'deletes destination blobs missing from the source (the default)',
    when: { text: 'unless `--delete-destination false`', test: (cmd) => !(option(cmd, '--delete-destination') ?? []).some((v) => v.toLowerCase() === 'false') },
  },
  { command: '** scale', effect: 'destroy', why: 'scales to 0', when: { text: '`--new-capacity 0` or `--node-count 0`', test: zeroIn('--new-capacity', '--node-count') } },
  {
    command: 'deployment * create',
    effect: 'destroy',
    why: 'complete mode deletes resources the template does not list',
    when: { text: '`--mode Complete`', test: (cmd) => (option(cmd, '--mode') ?? []).some((v) => v.toLowerCase() === 'complete') },
  },
  { command: 'vm|vmss run-command', effect: 'destroy', why: 'runs commands on VMs; what they do cannot be decided' },
  { command: '** list|list-*|show|show-*|exists|wait|query|get-*', effect: 'read', why: 'reads' },
  {
    command: '** create',
    effect: 'create',
    why: 'creates',
    kind: (cmd) => cmd.words.slice(0, cmd.words.indexOf('create')).join(' ') || undefined,
    name: (cmd) => {
      const name = (option(cmd, '--name') ?? option(cmd, '-n'))?.[0];
      return name ? { name, at: '--name' } : undefined;
    },
  },
];

export const AZ_RULE_SET: CliRuleSet = { tool: 'az', rules: AZ_RULES, decidingWords: wordsUpToVerb(VERBS) };
