/**
 * What a line typed into `talk` asks for: a slash command with its argument, or (the default) a
 * question. Multi-line input: a line ending in a backslash continues on the next one.
 */

export interface SlashCommand {
  name: string;
  usage: string;
  summary: string;
  /** Other spellings that mean the same command. */
  aliases?: string[];
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'ask', usage: '/ask <question>', summary: 'answer a question from live reads (the default for a line without a slash)' },
  { name: 'maker', usage: '/maker <request>', summary: 'write a plan for a change; shows its steps and what it costs' },
  { name: 'dry-run', usage: '/dry-run', summary: 'the plan in hand with every step, its price, availability and the balance (only GETs are sent)' },
  { name: 'apply', usage: '/apply [--resume|--fresh]', summary: "apply the plan in hand after you type yes (destructive steps: start with --destroyer and type the names)" },
  { name: 'plan', usage: '/plan [show|save FILE|load FILE|drop]', summary: 'the plan in hand: print it, write it to a file, read one, forget it' },
  { name: 'provider', usage: '/provider [gpucloud|cloud_a|auto …]', summary: 'which cloud questions go to (auto: inferred from each question)' },
  { name: 'ai-profile', usage: '/ai-profile [name|builtin]', summary: 'the AI profile that answers and plans (ai.providers.<name>)' },
  { name: 'model', usage: '/model [name|default]', summary: "the model of the AI profile (or the agent's)" },
  { name: 'history', usage: '/history', summary: 'the turns of this conversation' },
  { name: 'reset', usage: '/reset', summary: 'forget the conversation so far (the plan in hand stays)' },
  { name: 'save', usage: '/save [FILE]', summary: 'where this session is saved (its ID for --resume); with FILE, also a Markdown transcript' },
  { name: 'help', usage: '/help', summary: 'this list', aliases: ['?'] },
  { name: 'exit', usage: '/exit', summary: 'end the session (also Ctrl-D, or Ctrl-C twice on an empty line)', aliases: ['quit'] },
];

export type ParsedInput = { kind: 'empty' } | { kind: 'command'; name: string; arg: string } | { kind: 'unknown'; name: string };

/** A line (or joined lines) → what it asks for. Text without a leading slash is a question. */
export function parseInput(text: string): ParsedInput {
  const trimmed = text.trim();
  if (!trimmed) return { kind: 'empty' };
  if (!trimmed.startsWith('/')) return { kind: 'command', name: 'ask', arg: trimmed };
  const m = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed)!;
  const typed = m[1]!.toLowerCase();
  const found = SLASH_COMMANDS.find((c) => c.name === typed || c.aliases?.includes(typed));
  if (!found) return { kind: 'unknown', name: typed };
  return { kind: 'command', name: found.name, arg: m[2]!.trim() };
}

/** The closest command to a mistyped one ("/aply" → "/apply"), if any is close. */
export function suggestCommand(typed: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of SLASH_COMMANDS) {
    const d = editDistance(typed, c.name);
    if (d <= 2 && (!best || d < best.d)) best = { name: c.name, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** The /help text. */
export function helpText(): string {
  const width = Math.max(...SLASH_COMMANDS.map((c) => c.usage.length));
  const lines = SLASH_COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    'Type a question, or a command:',
    ...lines,
    '',
    'A line ending in \\ continues on the next. Up/Down recall earlier lines. Ctrl-C stops the answer or',
    'run in progress (a run keeps its journal: /apply --resume continues it).',
  ].join('\n');
}

/**
 * Joins continued lines: `add(line)` returns the whole input once a line does not end in a
 * backslash, else undefined (more to come).
 */
export class MultiLine {
  private parts: string[] = [];

  get pending(): boolean {
    return this.parts.length > 0;
  }

  add(line: string): string | undefined {
    if (/\\\s*$/.test(line)) {
      this.parts.push(line.replace(/\\\s*$/, ''));
      return undefined;
    }
    const whole = [...this.parts, line].join('\n');
    this.parts = [];
    return whole;
  }

  clear(): void {
    this.parts = [];
  }
}
