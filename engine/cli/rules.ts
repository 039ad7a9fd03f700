/**
 * The shape of a CLI provider's rules table and the one classifier that reads it. Each cloud
 * (engine/cloud_a/destroyer.ts, …) writes its table; the README's table for it is generated from the
 * same rows (`rulesMarkdown`) and a test checks they agree.
 */
import type { StepClass, StepEffect } from '../provider.js';
import { hasPlaceholder, type ParsedCommand, wordsMatch } from './argv.js';

export interface CliRule {
  /** Command words this row applies to (`* delete-*`, `s3 sync`, `** delete`); see wordsMatch. */
  command: string;
  /** When the row applies only to some uses: what it checks (for the table) and the check. */
  when?: { text: string; test(cmd: ParsedCommand): boolean };
  effect: StepEffect;
  /** Why (a destroy's reason on the gate; the table's last column). */
  why: string;
  /** For a create: the kind and, from the argv, the name (duplicate-name check, exactly-once). */
  kind?: string | ((cmd: ParsedCommand) => string | undefined);
  name?: (cmd: ParsedCommand) => { name: string; at: string } | undefined;
}

export interface CliRuleSet {
  tool: string;
  rules: readonly CliRule[];
  /** How many leading words decide the command (aws: service and operation); a placeholder there is undecidable. */
  decidingWords: number | ((cmd: ParsedCommand) => number);
  /** Extra reasons a command cannot be decided (an unknown service that may be an alias). */
  undecidable?(cmd: ParsedCommand): string[];
}

/** The step class of a parsed command: first matching row wins; anything that cannot be decided is a destroy. */
export function classifyCommand(set: CliRuleSet, cmd: ParsedCommand): StepClass {
  const shown = `${set.tool} ${cmd.rawWords.join(' ')}`.trim();
  const deciding = typeof set.decidingWords === 'number' ? set.decidingWords : set.decidingWords(cmd);
  const undecidable = [...cmd.undecidable];
  if (cmd.words.length < deciding) undecidable.push(`"${shown}" does not name a full command`);
  for (const word of cmd.rawWords.slice(0, deciding)) {
    if (hasPlaceholder(word)) undecidable.push(`command word "${word}" is decided at run time`);
  }
  if (!undecidable.length) undecidable.push(...(set.undecidable?.(cmd) ?? []));
  if (undecidable.length) return { effect: 'destroy', reasons: undecidable.map((r) => `${r}; treated as destructive`) };
  for (const rule of set.rules) {
    if (!wordsMatch(rule.command, cmd.words)) continue;
    if (rule.when && !rule.when.test(cmd)) continue;
    const kind = typeof rule.kind === 'function' ? rule.kind(cmd) : rule.kind;
    if (rule.effect === 'destroy') return { effect: 'destroy', kind, reasons: [`${shown}: ${rule.why}`] };
    const named = rule.effect === 'create' ? rule.name?.(cmd) : undefined;
    return { effect: rule.effect, kind, name: named?.name, nameAt: named?.at, reasons: [] };
  }
  return { effect: 'update', reasons: [] };
}

/** The rules as a Markdown table (README "Other clouds"), one row per rule. */
export function rulesMarkdown(set: CliRuleSet): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = set.rules.map((r) => `| \`${cell(`${set.tool} ${r.command}`)}\` | ${cell(r.when?.text ?? '')} | ${r.effect} | ${cell(r.why)} |`);
  return ['| command | when | effect | why |', '|---|---|---|---|', ...rows, `| anything else | | update | shown in the dry run |`].join('\n');
}

/**
 * For CLIs whose command path has no fixed length (`gcloud compute instances delete NAME`, `az vm
 * delete`): the words up to and including the first leaf verb decide the command, the words after it
 * are positionals (names) that may be placeholders. Without a known verb every word decides.
 */
export function wordsUpToVerb(verbs: ReadonlySet<string>): (cmd: ParsedCommand) => number {
  return (cmd) => {
    const at = cmd.words.findIndex((w) => verbs.has(w) || [...verbs].some((v) => v.endsWith('*') && w.startsWith(v.slice(0, -1))));
    return at < 0 ? cmd.words.length : at + 1;
  };
}
