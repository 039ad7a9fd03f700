/**
 * `assistant config get|set|unset KEY` and `config use|contexts`: the config file edited by key, as
 * `git config` and `kubectl config` do. A key is checked against this build's schema before anything is
 * read or written (a wrong one is refused with "did you mean"); a change is validated as a whole file
 * before it is written, so `set` never leaves a file the next command refuses. Edits go through the
 * YAML Document, so the user's comments and order survive; the file is written whole and 0600.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Document } from 'yaml';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { BUILTIN_CONTEXTS, contextConfigPath, listContexts, readCurrentContext, useContext } from '../engine/core/config/contexts.js';
import { resolveConfigKey } from '../engine/core/config/keys.js';
import { InvalidInputError, OperationError, UsageError } from '../engine/core/errors.js';
import { ensurePrivateDir, writePrivateFile } from '../engine/core/private-file.js';
import { maskSecret, redactText } from '../engine/core/redact.js';
import { yaml } from '../engine/core/yaml.js';
import { configSchema, loadConfig, parseConfigText } from '../engine/providers/config.js';
import { isSecretKey } from '../schemas/config-defaults.js';
import { warn, writeLine, type CommandContext } from './context.js';
import { renderTable } from '../engine/core/render/records.js';

/** `config get KEY`: the effective value (defaults applied), secrets masked; exit 1 when it is not set. */
export async function getKey(ctx: CommandContext, key: string): Promise<number> {
  const { path } = resolveConfigKey(await configSchema(), key);
  const loaded = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of loaded.warnings) warn(ctx, redactText(w));
  let value: unknown = loaded.config;
  for (const segment of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  if (value === undefined) throw new OperationError('not_set', `${key} is not set in ${loaded.path}`, { hint: `assistant config set ${key} <value>` });
  const shown = maskConfig(value, path[path.length - 1]);
  const scalar = typeof shown !== 'object' || shown === null;
  ctx.out.value({ key, value: shown }, { table: scalar ? `${String(shown)}\n` : yaml().stringify(shown, { lineWidth: 0 }) });
  return 0;
}

/** `config set KEY VALUE` (`-` reads the value from stdin, for secrets). */
export async function setKey(ctx: CommandContext, key: string, raw: string | undefined): Promise<number> {
  const { path, kind } = resolveConfigKey(await configSchema(), key);
  const leaf = path[path.length - 1]!;
  if (kind === 'section') throw new UsageError(`${key} is a section, not a value`, { hint: `set one of its keys: assistant config set ${key}.<key> <value>` });
  const secret = isSecretKey(leaf);
  const fromStdin = raw === undefined || raw === '-';
  const text = fromStdin ? await readValue(ctx, key) : raw;
  if (secret && !fromStdin) warn(ctx, `the value of ${key} is now in your shell's history; next time leave the value out and pipe it in (printf %s "$VALUE" | assistant config set ${key})`);
  // A string key keeps what was typed (`123` stays "123"); other keys read it as YAML (30, true, [a, b]).
  const value = kind === 'string' ? text : yaml().parse(text);
  return edit(ctx, key, (doc) => {
    makeSections(doc, path.slice(0, -1));
    doc.setIn(path, value);
    return true;
  }, `set ${key}`);
}

/** `config unset KEY`: removed from the file (a key that is not there is said, and is not an error). */
export async function unsetKey(ctx: CommandContext, key: string): Promise<number> {
  const { path } = resolveConfigKey(await configSchema(), key);
  return edit(ctx, key, (doc) => (doc.hasIn(path) ? doc.deleteIn(path) : false), `unset ${key}`);
}

async function edit(ctx: CommandContext, key: string, change: (doc: Document) => boolean, done: string): Promise<number> {
  const file = resolveConfigPath(ctx.globals.config, ctx.home);
  // A dotfiles manager's symlink stays a symlink: the file it points at is the one rewritten.
  const target = existsSync(file) ? realpathSync(file) : file;
  const before = existsSync(target) ? readFileSync(target, 'utf8') : '';
  const doc = yaml().parseDocument(before);
  if (doc.errors.length > 0) await parseConfigText(before, file); // says what is wrong, as every command would
  if (doc.contents === null) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  if (!change(doc)) {
    writeLine(ctx.io.stderr, `note: ${key} is not set in ${file}; nothing to change`);
    ctx.out.value({ file, key, changed: false }, { table: '' });
    return 0;
  }
  const after = doc.toString({ lineWidth: 0 });
  // The whole file must still load: a wrong value is refused here, with the loader's own message, and nothing is written.
  const { warnings } = await validateEdit(after, file, key);
  for (const w of warnings) warn(ctx, redactText(w));
  ensurePrivateDir(dirname(target) === ctx.home ? ctx.home : dirname(target));
  writePrivateFile(target, after);
  ctx.out.value({ file, key, changed: true }, { table: `${done} in ${file}\n` });
  return 0;
}

/** The loader's own verdict on the edited file, said of the change (the file on disk was not touched). */
async function validateEdit(text: string, file: string, key: string): Promise<{ warnings: string[] }> {
  try {
    return await parseConfigText(text, file);
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err;
    const problems = err.message.split('\n').map((line) => (line.startsWith(file) ? line.slice(file.length).replace(/^:\d+(:\d+)?: /, '') : line));
    throw new InvalidInputError('invalid_config', `${problems.join('; ')}; nothing was written`, { hint: `assistant config get ${key.split('.')[0]} shows what is there; examples/assistant.example.yaml lists every key` });
  }
}

/** `gpucloud:` written with no value is null in YAML: make each section on the way a mapping before setting under it. */
function makeSections(doc: Document, sections: string[]): void {
  for (let n = 1; n <= sections.length; n++) {
    const prefix = sections.slice(0, n);
    const node = doc.getIn(prefix, true) as { value?: unknown } | undefined;
    if (node !== undefined && yaml().isScalar(node) && (node.value === null || node.value === undefined)) doc.setIn(prefix, doc.createNode({}));
  }
}

const MAX_VALUE_BYTES = 64 * 1024;

/** A value that must stay out of argv and shell history: a hidden prompt on a terminal, else stdin (one trailing newline dropped). */
export async function readValue(ctx: CommandContext, what: string): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    const { prompt } = await import('./prompt.js');
    const typed = (await prompt(ctx, `${what}: `, true)).trim();
    if (!typed) throw new UsageError(`${what}: no value given; nothing was written`);
    return typed;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > MAX_VALUE_BYTES) throw new InvalidInputError('invalid_input', `more than ${MAX_VALUE_BYTES} bytes on stdin`);
    chunks.push(b);
  }
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!value) throw new UsageError(`${what}: stdin was empty; nothing was written`, { hint: 'pipe the value in: printf %s "$VALUE" | assistant config set KEY' });
  return value;
}

/** Secret-named keys are shown as maskSecret does (prefix + ***); other strings still pass the registered-secret filter. */
export function maskConfig(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key !== undefined && isSecretKey(key) ? maskSecret(value) : redactText(value);
  if (Array.isArray(value)) return value.map((v) => maskConfig(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, maskConfig(v, k)]),
    );
  }
  return value;
}

// ---- contexts ------------------------------------------------------------------------------------

/** `config use NAME`: later commands run in that context. */
export function use(ctx: CommandContext, name: string): number {
  useContext(ctx.home, name);
  const shadow = ctx.env.ASSISTANT_CONTEXT?.trim();
  if (shadow && shadow !== name) warn(ctx, `ASSISTANT_CONTEXT=${shadow} is set in this shell and wins over the current context until it is unset`);
  ctx.out.value({ context: name }, { table: `switched to context "${name}"\n` });
  return 0;
}

/** `config contexts`: every context, the one in use marked (and why it is the one). */
export function contexts(ctx: CommandContext): number {
  const current = readCurrentContext(ctx.home) ?? 'default';
  const rows = listContexts(ctx.home).map((name) => ({
    current: name === ctx.globals.context ? '*' : '',
    name,
    config: name === 'default' || name === 'sandbox' ? resolveConfigPath(undefined, ctx.home) : contextConfigPath(ctx.home, name),
    sandbox: name === 'sandbox',
    about: BUILTIN_CONTEXTS[name] ?? '',
  }));
  const from = ctx.globals.contextFrom;
  ctx.out.value(
    { current: ctx.globals.context, from, saved: current, contexts: rows },
    {
      table: () =>
        renderTable(
          rows,
          [
            { header: 'CURRENT', path: 'current', priority: 9 },
            { header: 'NAME', path: 'name', priority: 9 },
            { header: 'CONFIG', path: 'config', priority: 5 },
            { header: 'ABOUT', path: 'about', priority: 1 },
          ],
          ctx.io.stdoutIsTTY ? ctx.io.columns : Number.POSITIVE_INFINITY,
        ) + (from && from !== 'current-context' && from !== 'default' ? `(in use because of ${from})\n` : ''),
    },
  );
  return 0;
}
