/**
 * The one output sink of a command (issue 23 item 4). `-o table|json|yaml` is decided here, once: a
 * command hands over what it found (`records`, `value`, `text`, `stream`) with, where it has one, a
 * human rendering, and the sink prints the table for people or the JSON/YAML for programs. Everything
 * it writes goes to stdout only: text for people through `redactText` (registered secrets, secret
 * fields, URL passwords) like every other writer, JSON/YAML data with the registered secrets masked
 * (the rest is the data as asked for); `reveal` is the one way out, for a secret the user asked to see.
 *
 * Everything it writes is sanitised first (issue 36 §6, engine/core/render/sanitise.ts): text loses
 * every control sequence, and then is masked (in that order, so a secret cut in two by an escape
 * sequence is whole again when the masker looks); its own colours (`colors`) survive because they are
 * marked; JSON and YAML keep the data exact and write DEL and C1 characters as escapes. A stream keeps
 * the parser's state from one piece to the next, so a sequence split across tokens is removed too.
 *
 * Tables fit a terminal and nothing else (issue 38 §2): when stdout is a pipe or a file (`columns` is
 * Infinity, decided in cli.ts) or `-o wide` was given, every column is printed, as wide as its content,
 * like gh and kubectl; on a terminal, the columns dropped to fit are named in one dim line on stderr
 * (`hiddenNotice`), so a reader knows they exist and how to see them.
 *
 * The one debug sink is here too: `debug: ` lines on stderr, sanitised and masked, written only with --debug.
 */
import type { Column, TableSpec } from '../engine/core/render/columns.js';
import type { Colors } from '../engine/core/render/color.js';
import { renderKindTable, renderRecord, renderTable, type OutputFormat, type TableOptions } from '../engine/core/render/records.js';
import { createRedactingStream, maskSecretLooking, maskSecretsInText, redactRegistered, redactText, redactValue, secretSpans } from '../engine/core/redact.js';
import { createControlStripper, jsonForTerminal, ownColors, restoreOwn, terminalText } from '../engine/core/render/sanitise.js';
import { toYaml } from '../engine/core/yaml.js';
import { colorsFor, rawStream } from './terminal.js';

/** Where the sink writes and how wide and colourful a table may be (a subset of the command's Io). */
export interface OutputTarget {
  stdout: NodeJS.WritableStream;
  /** Terminal width for tables (Infinity when stdout is not a terminal: every column is printed). */
  columns: number;
  /** Colour on stdout (a TTY without --no-color / NO_COLOR). */
  stdoutColor?: boolean;
  /** Where the "columns hidden" line goes (nowhere without it). */
  stderr?: NodeJS.WritableStream;
  /** Colour on stderr (the hidden-columns line is dim with it). */
  color?: boolean;
}

/** The one line that says which columns a terminal-wide table left out, and how to see them. */
export function hiddenNotice(headers: readonly string[]): string {
  return `${headers.length} column${headers.length === 1 ? '' : 's'} hidden to fit the terminal: ${headers.join(', ')} (-o wide shows every column)`;
}

/** A human rendering: text, or a function of the stdout palette (called only when a table is wanted). */
export type Human = string | ((colors: Colors) => string);

export interface ValueOptions {
  /** What people see with -o table (the default): the text or its renderer. Without it, a FIELD / VALUE view. */
  table?: Human;
  /**
   * What is printed when -o was not given, when it differs from the table (gpucloud get: masked YAML;
   * gpucloud balance: the raw JSON line; an action: nothing). An explicit -o table still gets `table`.
   */
  unasked?: Human;
  /**
   * Secrets the user asked to see (apply's `reveal: true` steps), the one part written unredacted:
   * added to the (redacted) value as `field` for JSON/YAML, `table` after the human rendering.
   */
  revealed?: { field: string; value: unknown; table: string };
  /** Notes for people that go with the table (stderr summaries, hints), run after it is written; JSON and YAML carry the facts. */
  withTable?: () => void;
}

export interface RecordsOptions extends Omit<TableOptions, 'colors'> {
  /** The table when there are no rows (default "No resources found."). */
  empty?: string;
  /** Table width other than the terminal's (a log file gets every column). */
  width?: number;
  /** As for `value`: what is printed when -o was not given, if not the table. */
  unasked?: Human;
}

/** Text written as it arrives (an answer's tokens, a log followed), redacted before it leaves. */
export interface OutputStream {
  write(text: string): void;
  /** Writes what is held back (a partial word) and ends an open line. */
  end(): void;
}

export interface Output {
  /** The format -o asked for ('table' when it was not given). */
  readonly format: OutputFormat;
  /** Whether -o was given (a command may print something else by default: see `unasked`). */
  readonly explicit: boolean;
  /** -o json or -o yaml: a program reads stdout, so a command gathers the whole result instead of streaming it. */
  readonly structured: boolean;
  /** The palette for stdout (plain for pipes, files and NO_COLOR). */
  readonly colors: Colors;
  /** Width for tables: the terminal's, or Infinity (a pipe, a file, -o wide), where every column is printed. */
  readonly columns: number;
  /**
   * A table at the sink's width and colours, as text for a human rendering (`value`'s `table`); the
   * columns it drops to fit the terminal are named on stderr when the sink next writes.
   */
  table(rows: unknown[], columns: Column[], opts?: Omit<TableOptions, 'colors' | 'onHidden'>): string;
  /** Rows: a table of `columns` (or a kind's table, secret-looking values masked), else the list as JSON/YAML. */
  records(rows: unknown, columns: Column[] | TableSpec, opts?: RecordsOptions): void;
  /** One value: JSON/YAML as it is, or its human rendering. */
  value(value: unknown, opts?: ValueOptions): void;
  /** Text that is the result whatever -o says (a plan document, a script, a diagram); `reveal` for a secret asked for (a new API key). */
  text(text: string, opts?: { reveal?: boolean }): void;
  /**
   * A document that is the result whatever -o says, written as data (JSON for table and json, YAML for
   * yaml): exact but for the registered secrets, never with secret-looking text masked — a plan piped
   * into a file must be the plan. For producers that keep secrets out of what they make (box manifest).
   */
  document(value: unknown): void;
  /**
   * A stream of text, redacted as it arrives: an answer a few words behind (so a secret split over two
   * tokens is still masked); with `lines` (a followed log) each line as soon as it is complete.
   */
  stream(opts?: { lines?: boolean }): OutputStream;
}

/** `wide`: -o wide, a table with every column however narrow the terminal. */
export function createOutput(target: OutputTarget, format: OutputFormat, explicit: boolean, wide = false): Output {
  // The sink sanitises and masks itself, so it writes to the stream under a guard (a second pass would drop its colours).
  const stdout = rawStream(target.stdout);
  const colors = ownColors(Boolean(target.stdoutColor));
  const columns = wide ? Infinity : target.columns;
  // Headers of columns left out of the tables rendered since the last write, in order, each once.
  const hidden = new Set<string>();
  const onHidden = (headers: string[]) => headers.forEach((h) => hidden.add(h));
  const sayHidden = () => {
    if (!hidden.size) return;
    const notice = hiddenNotice([...hidden]);
    hidden.clear();
    if (target.stderr) target.stderr.write(`${colorsFor(target.stderr, Boolean(target.color)).dim(notice)}\n`);
  };
  const write = (text: string, reveal = false) => {
    if (text) stdout.write(terminalText(text, reveal ? undefined : redactText));
    sayHidden();
  };
  // JSON and YAML are the data as asked for (a startup script's `password=` is the user's to see), so only
  // the secrets this process registered (credentials, tokens, keys) are masked in them.
  const writeData = (text: string) => {
    hidden.clear(); // a table rendered for people but not printed hides nothing
    stdout.write(redactRegistered(text));
  };
  const human = (h: Human) => (typeof h === 'string' ? h : h(colors));
  const structuredText = (value: unknown) => (format === 'json' ? jsonForTerminal(JSON.stringify(value, null, 2)) + '\n' : yamlForTerminal(value));
  return {
    format,
    explicit,
    structured: format !== 'table',
    colors,
    columns,
    table: (rows, cols, opts = {}) => renderTable(rows, cols, columns, { ...opts, colors, onHidden }),
    records(rows, kind, opts = {}) {
      if (!explicit && opts.unasked !== undefined) return write(human(opts.unasked));
      if (format !== 'table') return writeData(structuredText(rows));
      const list = Array.isArray(rows) ? rows : [rows];
      if (list.length === 0 && opts.empty !== undefined) return write(opts.empty);
      const width = opts.width ?? columns;
      if (Array.isArray(kind)) return write(renderTable(list, kind, width, { ...opts, colors, onHidden }));
      // A table is read over someone's shoulder: secret-looking values (API_KEY=… in a startup script) are masked.
      write(renderKindTable(maskSecretLooking(list), kind, width, colors, onHidden));
    },
    value(value, opts = {}) {
      const { revealed } = opts;
      if (!explicit && opts.unasked !== undefined) write(human(opts.unasked));
      else if (format !== 'table' && revealed) {
        // The value redacted, then the asked-for secrets added as they are.
        return write(structuredText({ ...(redactValue(value) as object), [revealed.field]: revealed.value }), true);
      } else if (format !== 'table') writeData(structuredText(value));
      else write(opts.table === undefined ? renderRecord(value, 'table', colors) : human(opts.table));
      if (revealed && (format === 'table' || !explicit)) write(revealed.table, true);
      if (format === 'table') opts.withTable?.();
    },
    text(text, opts = {}) {
      write(text, opts.reveal);
    },
    document(value) {
      writeData(format === 'yaml' ? yamlForTerminal(value) : jsonForTerminal(JSON.stringify(value, null, 2)) + '\n');
    },
    stream: (opts = {}) => sanitisedStream((opts.lines ? completeLines : lineStream)((text) => stdout.write(restoreOwn(text)))),
  };
}

/**
 * YAML for a terminal: the yaml package escapes C0 but writes DEL and C1 as they are. When the text has
 * any, it is written again with every scalar double-quoted, where `\u009b` is the same value.
 */
function yamlForTerminal(value: unknown): string {
  const text = toYaml(value);
  if (!/[\u007f-\u009f]/.test(text)) return text;
  return jsonForTerminal(toYaml(value, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'QUOTE_DOUBLE' }));
}

/** A stream sanitised before it is masked: the parser's state carried across pieces, so a sequence split over tokens goes too. */
function sanitisedStream(inner: OutputStream): OutputStream {
  const stripper = createControlStripper();
  return {
    write: (text) => inner.write(stripper.push(text)),
    end() {
      inner.write(stripper.end());
      inner.end();
    },
  };
}

/** The sink's stream: engine/core/redact.ts's redacting stream (the last words held back until no secret can span the cut), its open line ended on `end`. */
function lineStream(emit: (text: string) => void): OutputStream {
  let lineOpen = false;
  const inner = createRedactingStream((text) => {
    if (!text) return;
    emit(text);
    lineOpen = !text.endsWith('\n');
  });
  return {
    write: (text) => inner.write(text),
    end() {
      inner.end();
      if (lineOpen) emit('\n');
      lineOpen = false;
    },
  };
}

/**
 * A followed log: every complete line written at once (a log's last line must not wait for the next),
 * a line without an end only once it is long, but for a tail that no secret could span.
 */
function completeLines(emit: (text: string) => void): OutputStream {
  let held = '';
  const release = (cut: number) => {
    emit(redactText(held.slice(0, cut)));
    held = held.slice(cut);
  };
  return {
    write(text) {
      held += text;
      let cut = held.lastIndexOf('\n') + 1;
      if (cut === 0 && held.length > 2048) {
        cut = held.length - 256;
        for (const [a, b] of secretSpans(held)) if (a < cut && cut < b) cut = a;
      }
      if (cut > 0) release(cut);
    },
    end() {
      if (held) release(held.length);
    },
  };
}

/** `ctx.debug(line)`: a `debug: ` line on stderr with --debug, else nothing. */
export interface DebugSink {
  (line: string): void;
  /** Whether --debug was given (for work done only to be shown). */
  readonly on: boolean;
  /** The sink as an optional callback for engine code that skips its work when no one listens. */
  readonly callback: ((line: string) => void) | undefined;
}

/**
 * Every line sanitised, then masked (secret-looking text too: debug shows request bodies and startup
 * scripts), then written; remote text could hold escape sequences or a secret cut in two by one.
 */
export function createDebug(stderr: NodeJS.WritableStream, on: boolean): DebugSink {
  const raw = rawStream(stderr);
  const sink = (line: string) => {
    if (!on) return;
    const text = terminalText(String(line), maskSecretsInText).replace(/\n+$/, '');
    raw.write(
      text
        .split('\n')
        .map((l) => `debug: ${l}\n`)
        .join(''),
    );
  };
  return Object.assign(sink, { on, callback: on ? sink : undefined });
}
