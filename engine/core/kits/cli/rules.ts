/**
 * The allowlist of a CLI provider (DESIGN §7, default deny) and the one classifier that reads it.
 * Each cloud (engine/providers/cloud_a/destroyer.ts, …) writes its table of operations: what is known to only
 * read, what is known to create or change without removing anything, what is known to destroy, and
 * what may never run from a plan at all (the CLI's own configuration and credentials, local files).
 * An operation no row names is `destroy` with the reason "not known to be safe": it needs
 * `--destroyer`, and the dry run says so. docs/safety.md's tables are generated from the same rows
 * (`rulesMarkdown`) and a test checks they agree.
 *
 * Before the rows, the cloud's own checks run on the parsed command: parameters the gate cannot decode
 * as the CLI would (the step is invalid), and local side effects (a path on the user's machine, a
 * `file://` reference) that refuse the step whatever the row says.
 */
import { refusedStep, unknownStep, type StepClass, type StepEffect } from '../../provider.js';
import { type ParsedCommand, wordsMatch } from './argv.js';
import { hasPlaceholder } from '../../plan/bindings.js';
import type { SecretDeclaration } from './secrets.js';

/** What a row says about an operation: a step effect, or `refused` (never run from a plan, --destroyer or not). */
export type RuleEffect = StepEffect | 'refused';

export interface CliRule {
  /** Command words this row applies to (`* delete-*`, `s3 sync`, `** delete`); see wordsMatch. */
  command: string;
  /** When the row applies only to some uses: what it checks (for the table) and the check. */
  when?: { text: string; test(cmd: ParsedCommand): boolean };
  effect: RuleEffect;
  /** Why (a destroy's or refusal's reason on the gate; the table's last column). */
  why: string;
  /** For a create: the kind and, from the argv, the name (duplicate-name check, exactly-once). */
  kind?: string | ((cmd: ParsedCommand) => string | undefined);
  name?: (cmd: ParsedCommand) => { name: string; at: string } | undefined;
  /**
   * Output that is a secret besides what secret-named fields hold (engine/core/kits/cli/secrets.ts): `all` for a
   * command that prints only a credential (`ecr get-login-password`), or keys whose string values are.
   */
  secrets?: SecretDeclaration;
}

export interface CliRuleSet {
  tool: string;
  rules: readonly CliRule[];
  /** How many leading words decide the command (aws: service and operation); a placeholder there is undecidable. */
  decidingWords: number | ((cmd: ParsedCommand) => number);
  /** Extra reasons a command cannot be decided (an unknown service that may be an alias). */
  undecidable?(cmd: ParsedCommand): string[];
  /** Parameters the gate cannot decode the way the CLI would: the step is invalid (exit 2), never passed through. */
  decodeProblems?(cmd: ParsedCommand): string[];
  /** Local side effects (a path on this machine, a `file://` reference): the step is refused whatever its row says. */
  refusals?(cmd: ParsedCommand): string[];
  /** What `refusals` checks, one line each, for the docs table (docs/safety.md). */
  refusalText?: readonly string[];
}

/** The row that decides a command (first match wins), or undefined when none does. */
export function matchRule(set: CliRuleSet, cmd: ParsedCommand): CliRule | undefined {
  for (const rule of set.rules) {
    if (!wordsMatch(rule.command, cmd.words)) continue;
    if (rule.when && !rule.when.test(cmd)) continue;
    return rule;
  }
  return undefined;
}

/** The step class of a parsed command: what cannot be decided or decoded is a destroy, a refusal refuses, then the first matching row, else "not known to be safe". */
export function classifyCommand(set: CliRuleSet, cmd: ParsedCommand): StepClass {
  const shown = `${set.tool} ${cmd.rawWords.slice(0, typeof set.decidingWords === 'number' ? set.decidingWords : set.decidingWords(cmd)).join(' ')}`.trim();
  const deciding = typeof set.decidingWords === 'number' ? set.decidingWords : set.decidingWords(cmd);
  const undecidable = [...cmd.undecidable];
  if (cmd.words.length < deciding) undecidable.push(`"${shown}" does not name a full command`);
  for (const word of cmd.rawWords.slice(0, deciding)) {
    if (hasPlaceholder(word)) undecidable.push(`command word "${word}" is decided at run time`);
  }
  if (!undecidable.length) undecidable.push(...(set.undecidable?.(cmd) ?? []));
  if (undecidable.length) return { effect: 'destroy', reasons: undecidable.map((r) => `${r}; treated as destructive`) };
  const undecodable = set.decodeProblems?.(cmd) ?? [];
  if (undecodable.length) return { effect: 'destroy', reasons: undecodable.map((r) => `${shown}: ${r}; treated as destructive`) };
  const refusals = set.refusals?.(cmd) ?? [];
  const rule = matchRule(set, cmd);
  if (refusals.length || rule?.effect === 'refused') {
    return refusedStep([...refusals, ...(rule?.effect === 'refused' ? [rule.why] : [])].map((r) => `${shown}: ${r}`));
  }
  if (!rule) return unknownStep(shown);
  const kind = typeof rule.kind === 'function' ? rule.kind(cmd) : rule.kind;
  if (rule.effect === 'destroy') return { effect: 'destroy', kind, reasons: [`${shown}: ${rule.why}`] };
  const named = rule.effect === 'create' ? rule.name?.(cmd) : undefined;
  return { effect: rule.effect as Exclude<RuleEffect, 'refused' | 'destroy'>, kind, name: named?.name, nameAt: named?.at, reasons: [] };
}

const EFFECT_TEXT: Record<RuleEffect, string> = {
  read: 'runs freely (reads)',
  create: 'runs freely (creates)',
  update: 'runs freely (changes, removes nothing)',
  destroy: 'needs --destroyer',
  refused: 'refused outright',
};

/**
 * The table as Markdown (docs/safety.md, "The destroyer gate"): one row per rule, first match wins, then the
 * local side effects every step is checked for, then the default for anything else.
 */
export function rulesMarkdown(set: CliRuleSet): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = set.rules.map((r) => `| \`${cell(`${set.tool} ${r.command}`)}\` | ${cell(r.when?.text ?? '')} | ${EFFECT_TEXT[r.effect]} | ${cell(r.why)} |`);
  const local = (set.refusalText ?? []).map((t) => `| any step | ${cell(t)} | ${EFFECT_TEXT.refused} | a plan step never reads or writes your files |`);
  return [
    '| command | when | effect | why |',
    '|---|---|---|---|',
    ...local,
    ...rows,
    `| anything else | | ${EFFECT_TEXT.destroy} | not known to be safe (the dry run says so) |`,
  ].join('\n');
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
