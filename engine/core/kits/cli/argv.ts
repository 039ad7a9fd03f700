/**
 * The parsed form of a cloud CLI's argument vector (`aws`, `gcloud`, `az`), shared by every CLI
 * provider's classifier. A destroyer rule must not be hidden by how a command is written, so the
 * parse brings every spelling to one form: global options may stand before the command words
 * (`aws --region x ec2 terminate-instances`), options may be written `--opt=value`, words and option
 * names are matched lower case, and an option written as a prefix (`--desired-c`, `--e`, which
 * argparse-based CLIs accept) is found by `option()`. What cannot be parsed with certainty is listed in
 * `undecidable`, and the classifier treats such a step as destructive.
 */
import { hasPlaceholder } from '../../plan/bindings.js';

/** The shape of one CLI's command line. */
export interface CliSyntax {
  /** The executable (`aws`): the first arg of every step. */
  tool: string;
  /** Options that may stand before the command words and take a value (`--region`, `--profile`). */
  globalValueOptions: ReadonlySet<string>;
  /** Options that may stand before the command words and take none (`--debug`). */
  globalFlags: ReadonlySet<string>;
  /** A first command word that only selects a variant of the same command (gcloud's `alpha`, `beta`): left out of `words`. */
  tracks?: ReadonlySet<string>;
  /**
   * Whether the CLI expands an option written as a prefix (argparse's default: aws-cli takes `--e URL`
   * as `--endpoint-url`). Left out: it does (the cautious reading). gcloud turns abbreviations off.
   */
  abbreviations?: boolean;
}

export interface ParsedCommand {
  /** Every arg after the tool name, as written and in order (for CLIs whose positionals follow options, such as `aws s3 cp`). */
  args: readonly string[];
  /** The command words as written (service, operation, and positionals before the first option). */
  rawWords: string[];
  /** The same, lower case: what rules match. */
  words: string[];
  /** Every option (lower case, without `=value`) with the values that follow it, global ones included. */
  options: Map<string, string[]>;
  /** Why the command's meaning cannot be decided from the argv (placeholders in deciding places, unknown globals). */
  undecidable: string[];
  /** The CLI expands prefixes of option names (CliSyntax.abbreviations). */
  abbreviates: boolean;
}


function isOption(token: string): boolean {
  // A lone `-` is stdin for some tools and negative numbers are values, not options.
  return token.startsWith('-') && token.length > 1 && !/^-\d/.test(token);
}

/**
 * A global option as the CLI reads it: its own name, or the one global it is an unambiguous prefix of
 * (argparse expands `--endpoint` to `--endpoint-url`); other spellings stay as written.
 */
function globalName(name: string, syntax: CliSyntax): string {
  if (syntax.globalValueOptions.has(name) || syntax.globalFlags.has(name) || !name.startsWith('--') || name.length < 3 || syntax.abbreviations === false) return name;
  const all = [...syntax.globalValueOptions, ...syntax.globalFlags].filter((o) => o.startsWith(name));
  return all.length === 1 ? all[0]! : name;
}

/** Parses `args` (the step's args without the tool name) per `syntax`. */
export function parseCommand(args: readonly string[], syntax: CliSyntax): ParsedCommand {
  const rawWords: string[] = [];
  const options = new Map<string, string[]>();
  const undecidable: string[] = [];
  const add = (name: string, value?: string) => {
    const list = options.get(name) ?? [];
    if (value !== undefined) list.push(value);
    options.set(name, list);
  };
  let i = 0;
  // Globals and command words: the words run until the first option after them.
  while (i < args.length) {
    const token = args[i]!;
    if (!isOption(token)) {
      rawWords.push(token);
      i++;
      continue;
    }
    const eq = token.indexOf('=');
    const name = globalName((eq < 0 ? token : token.slice(0, eq)).toLowerCase(), syntax);
    if (hasPlaceholder(eq < 0 ? token : token.slice(0, eq))) undecidable.push(`option name ${JSON.stringify(token)} is decided at run time`);
    if (syntax.globalValueOptions.has(name)) {
      if (eq >= 0) add(name, token.slice(eq + 1));
      else {
        add(name, args[i + 1]);
        i++;
      }
      i++;
      continue;
    }
    if (syntax.globalFlags.has(name)) {
      add(name);
      i++;
      continue;
    }
    if (rawWords.length === 0) {
      // An option we do not know before the command: whether it takes a value decides which token is the service.
      undecidable.push(`unknown option ${JSON.stringify(token)} before the command: cannot tell which word is the command`);
    }
    break;
  }
  // Options after the command words: each takes the non-option tokens that follow it.
  let current: string | undefined;
  for (; i < args.length; i++) {
    const token = args[i]!;
    if (isOption(token)) {
      const eq = token.indexOf('=');
      current = (eq < 0 ? token : token.slice(0, eq)).toLowerCase();
      if (hasPlaceholder(eq < 0 ? token : token.slice(0, eq))) undecidable.push(`option name ${JSON.stringify(token)} is decided at run time`);
      add(current, eq < 0 ? undefined : token.slice(eq + 1));
      if (eq >= 0) current = undefined;
    } else if (current) add(current, token);
    else add('', token);
  }
  // `gcloud beta compute instances delete` is `compute instances delete` to every rule.
  if (syntax.tracks?.has(rawWords[0]?.toLowerCase() ?? '')) rawWords.shift();
  return { args, rawWords, words: rawWords.map((w) => w.toLowerCase()), options, undecidable, abbreviates: syntax.abbreviations !== false };
}

/**
 * The values of option `name` (`--desired-count`), also when written as any prefix of it that the CLI
 * may expand (`--desired-c`; aws-cli's argparse takes `--e URL` as `--endpoint-url` and `--ac` as
 * `--acl`): undefined when absent. A prefix that another option shares is ambiguous to the CLI (it
 * refuses the step), so counting it here only ever over-matches. For a CLI without abbreviations
 * (gcloud), only the name itself.
 */
export function option(cmd: ParsedCommand, name: string): string[] | undefined {
  let found: string[] | undefined;
  for (const [given, values] of cmd.options) {
    if (given === name || (cmd.abbreviates && given.startsWith('--') && given.length >= 3 && name.startsWith(given))) found = [...(found ?? []), ...values];
  }
  return found;
}

const WILDCARDS = new Map<string, RegExp>();

/** Whether `word` matches a rule word: exact, with `*` for any characters (`delete-*`, `schedule-*-deletion`), or alternatives `a|b-*`. */
function wordMatches(pattern: string, word: string): boolean {
  if (pattern.includes('|')) return pattern.split('|').some((p) => wordMatches(p, word));
  if (pattern === '*') return true;
  if (pattern.includes('*')) {
    // `delete-*`, `*-deletion`, `schedule-*-deletion`: each `*` stands for any run of characters.
    let re = WILDCARDS.get(pattern);
    if (!re) WILDCARDS.set(pattern, (re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)));
    return re.test(word);
  }
  return word === pattern;
}

/**
 * Whether the command words start with `pattern` (space-separated rule words; `*` is one word,
 * `**` any number of words, `delete-*` a word with that prefix, `rm|rb` either word).
 */
export function wordsMatch(pattern: string, words: readonly string[]): boolean {
  const want = pattern.split(' ').filter(Boolean);
  const match = (p: number, w: number): boolean => {
    if (p === want.length) return true;
    if (want[p] === '**') {
      for (let k = w; k <= words.length; k++) if (match(p + 1, k)) return true;
      return false;
    }
    return w < words.length && wordMatches(want[p]!, words[w]!) && match(p + 1, w + 1);
  };
  return match(0, 0);
}
