/**
 * Loads `~/.assistant.yaml` (or `--config <path>`): YAML with positions, then the zod schema it is given
 * (the build's, composed from the providers' sections by engine/providers/config.ts: the core knows no
 * provider's section).
 *
 * Every problem is reported at once as `<file>:<line>:<col>: <key.path>: <problem>` so a user fixes the
 * file in one pass. A misspelt key (one or two edits from a known one: `budgte`) is an error with
 * "did you mean"; any other unknown key is a warning, since a newer config must not break an older binary.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { lazyYaml, yaml } from '../yaml.js';
import type { core } from 'zod';
import type { Config, ConfigSchemaType } from '../../../schemas/config.js';
import { emptyConfigValue, isSecretKey } from '../../../schemas/config-defaults.js';
import { InvalidInputError } from '../errors.js';
import { registerSecret } from '../redact.js';
import { closest } from '../did-you-mean.js';
import { schemaNodeAt } from './keys.js';
import { formerNamesIn, type ConfigRenames } from './migrate.js';

export interface LoadConfigOptions {
  /** `--config <path>`; when given, the file must exist. */
  path?: string;
  home: string;
  /**
   * Accepted for symmetry with the resolvers; the loader returns the file as written (plus schema
   * defaults). Environment fallbacks are applied by each consumer in its own SPEC order.
   */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file that was (or would have been) read. */
  path: string;
  exists: boolean;
  warnings: string[];
}

export interface ConfigProblem {
  line: number;
  col: number;
  keyPath: string;
  problem: string;
}

export const DEFAULT_CONFIG_FILE = '.assistant.yaml';

export function defaultConfigPath(home: string): string {
  return join(home, DEFAULT_CONFIG_FILE);
}

/** `~/x` → `<home>/x`; relative paths resolve against the working directory, as a shell would. */
export function resolveConfigPath(path: string | undefined, home: string): string {
  if (path === undefined) return defaultConfigPath(home);
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(path);
}

/** The schema of the whole file, asked for (imported) only when there is a file to parse (it loads zod). */
export type ConfigSchemaSource = () => Promise<ConfigSchemaType>;

/** The original tool's names this build renames (engine/providers/config.ts, from the manifest), asked for only when a file is parsed. */
export type ConfigRenamesSource = () => Promise<ConfigRenames>;

export async function loadConfigWith(schema: ConfigSchemaSource, options: LoadConfigOptions, renames?: ConfigRenamesSource): Promise<LoadedConfig> {
  const explicit = options.path !== undefined;
  const path = resolveConfigPath(options.path, options.home);

  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { config: emptyConfigValue(), path, exists: false, warnings: [] };
    if (code === 'ENOENT') {
      throw new InvalidInputError('config_not_found', `config file not found: ${path}`, {
        hint: 'check the --config path, or leave --config out to use ~/.assistant.yaml',
      });
    }
    if (code === 'EISDIR') throw new InvalidInputError('invalid_config', `${path}: is a directory, not a config file`);
    throw new InvalidInputError('invalid_config', `${path}: cannot read: ${(err as Error).message}`, { cause: err });
  }

  const { config, warnings, holdsSecrets } = await parseConfigTextWith(schema, text, path, renames);
  if (holdsSecrets) {
    const permissionWarning = permissionProblem(path);
    if (permissionWarning) warnings.push(permissionWarning);
  }
  return { config, path, exists: true, warnings };
}

/**
 * Parses and validates config text; `file` is only used in messages. Throws InvalidInputError
 * `invalid_config` listing every problem; returns unknown-key and YAML warnings otherwise.
 */
// yaml and the schema (zod with it) load only when there is a file to parse (engine/core/yaml.ts).
const [isMap, isScalar, isSeq, parseDocument] = [lazyYaml('isMap'), lazyYaml('isScalar'), lazyYaml('isSeq'), lazyYaml('parseDocument')];

export async function parseConfigTextWith(schemaOf: ConfigSchemaSource, text: string, file: string, renamesOf?: ConfigRenamesSource): Promise<{ config: Config; warnings: string[]; holdsSecrets: boolean }> {
  const schema = await schemaOf();
  const lineCounter = new (yaml().LineCounter)();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const warnings = doc.warnings.map((w) => `${file}:${yamlLinePos(w, lineCounter)}: ${firstLine(w.message)}`);

  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => `${file}:${yamlLinePos(e, lineCounter)}: ${firstLine(e.message)}`);
    throw invalidConfig(file, lines, doc.errors.map((e) => ({ code: e.code, message: firstLine(e.message) })));
  }

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw invalidConfig(file, [`${file}:1:1: (top level): ${(err as Error).message}`], undefined);
  }
  // An empty file (or one with only comments) is an empty config.
  if (raw === null || raw === undefined) raw = {};
  const data = normaliseNulls(raw);
  const holdsSecrets = collectSecrets(data);
  // Sections under the original tool's names (`verda:`, `infra.aws`) are not typos: one warning names
  // them all and the command that renames them, and they are otherwise ignored like any unknown key.
  const former = renamesOf ? formerNamesIn(data, await renamesOf()) : [];
  const isFormer = (path: PropertyKey[], key: string) => former.some((f) => f.from === formatKeyPath([...path, key]));
  const migrateHint = former.length > 0 ? ` (sections under the original tool's names: run 'assistant migrate config')` : '';
  if (former.length > 0 && !warnedFormer.has(file)) {
    warnedFormer.add(file);
    warnings.push(`${file}: ${former.map((f) => `${f.from} is ${f.to} here`).join(', ')}; those sections are ignored until renamed: run 'assistant migrate config' to see the change, --write to make it`);
  }

  const first = schema.safeParse(data, { reportInput: true });
  if (first.success) return { config: first.data, warnings, holdsSecrets };

  const problems: ConfigProblem[] = [];
  const unknown: Array<{ path: PropertyKey[]; key: string }> = [];
  for (const issue of first.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) unknown.push({ path: [...issue.path], key });
    } else {
      problems.push(problemFor(doc, lineCounter, issue));
    }
  }
  // Unknown keys sorted by line. One a known key is one or two edits away from (`budgte`) is a typo, and a
  // typo silently ignored is a setting the user believes in but does not have (a budget that never
  // guards): it is an error naming the key it probably meant. One that resembles nothing may be a key
  // of a newer version: a warning, so a newer config does not break an older binary.
  let holdsMoreSecrets = false;
  const misspelt: { line: number; text: string }[] = [];
  const unknownWarnings = unknown
    .map(({ path, key }) => {
      const line = keyLine(doc, lineCounter, path, key);
      if (isFormer(path, key)) return { line, text: '' };
      const suggestion = closest(key, knownKeysAt(schema, path));
      // A misspelt secret key (`client_secert`) still holds a secret: keep it out of every output.
      if ((suggestion && isSecretKey(suggestion)) || SECRET_LOOKING_KEY.test(key)) {
        const value = (getAt(data, path) as Record<string, unknown> | undefined)?.[key];
        if (typeof value === 'string' && value.trim() !== '') {
          registerSecret(value);
          holdsMoreSecrets = true;
        }
      }
      if (suggestion) misspelt.push({ line, text: `${file}:${line}: unknown key "${formatKeyPath([...path, key])}"; did you mean "${formatKeyPath([...path, suggestion])}"?` });
      return { line, text: suggestion ? '' : `${file}:${line}: unknown key "${formatKeyPath([...path, key])}" (ignored)` };
    })
    .filter((w) => w.text)
    .sort((a, b) => a.line - b.line)
    .map((w) => w.text);

  if (problems.length > 0 || misspelt.length > 0) {
    // Unknown keys are listed too: a misspelt key is often why a required one is "missing".
    const lines = [...problems.map((p) => ({ line: p.line, col: p.col, text: `${file}:${p.line}:${p.col}: ${p.keyPath}: ${p.problem}` })), ...misspelt.map((m) => ({ ...m, col: 0 }))]
      .sort((a, b) => a.line - b.line || a.col - b.col)
      .map((l) => l.text);
    throw invalidConfig(file, [...lines, ...unknownWarnings], problems, migrateHint);
  }

  // Only unknown keys: warn about each, drop them, and validate what is left.
  warnings.push(...unknownWarnings);
  const holdsAnySecret = holdsSecrets || holdsMoreSecrets;
  for (const { path, key } of unknown) {
    const parent = getAt(data, path);
    if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[key];
  }
  const second = schema.safeParse(data, { reportInput: true });
  if (!second.success) {
    // Not expected (removing keys cannot create type errors), but never return an unvalidated config.
    const again = second.error.issues.map((i) => problemFor(doc, lineCounter, i));
    throw invalidConfig(file, again.map((p) => `${file}:${p.line}:${p.col}: ${p.keyPath}: ${p.problem}`), again);
  }
  return { config: second.data, warnings, holdsSecrets: holdsAnySecret };
}

const SECRET_LOOKING_KEY = /secret|secert|token|passw|api_?key$|private_?key/i;

/** Files whose former names were warned about in this process: a command that reads its config twice says it once. */
const warnedFormer = new Set<string>();

/** Warns again, as a new process would: for a program that runs several commands in one process (test/support/in-process.ts). */
export function forgetFormerNameWarnings(): void {
  warnedFormer.clear();
}

function invalidConfig(file: string, lines: string[], details: unknown, more = ''): InvalidInputError {
  return new InvalidInputError('invalid_config', lines.join('\n'), {
    hint: `fix ${file} (see examples/assistant.example.yaml for every key), or pass --config <path> to use another file${more}`,
    details,
  });
}

/** A key written with no value (`client_id:`) means "not set"; YAML gives null for it. */
function normaliseNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = v === null ? undefined : normaliseNulls(v);
    return out;
  }
  return value;
}

/** Registers every secret-named string value (known keys and unknown ones alike); true when any is non-empty. */
function collectSecrets(value: unknown, key?: string): boolean {
  if (typeof value === 'string' || typeof value === 'number') {
    // A number under a secret key is an error later, but its digits are still a secret.
    const text = String(value);
    if (key !== undefined && isSecretKey(key) && text.trim() !== '') {
      registerSecret(text);
      return true;
    }
    return false;
  }
  let found = false;
  if (Array.isArray(value)) for (const v of value) found = collectSecrets(v) || found;
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) found = collectSecrets(v, k) || found;
  }
  return found;
}

/** Like ssh: a file holding secrets must not be readable by group or others. */
function permissionProblem(path: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    if ((statSync(path).mode & 0o077) !== 0) {
      return `${path} is readable by other users and holds secrets; run chmod 600 ${path}`;
    }
  } catch {
    // The file was just read; a failing stat is not worth an error.
  }
  return undefined;
}

function problemFor(doc: Document, lineCounter: LineCounter, issue: core.$ZodIssue): ConfigProblem {
  const path = [...issue.path];
  const { line, col } = positionOf(doc, lineCounter, path);
  const written = path.length === 0 || doc.hasIn(path);
  const last = path[path.length - 1];
  const secret = typeof last === 'string' && isSecretKey(last);
  return { line, col, keyPath: formatKeyPath(path), problem: describeIssue(issue, written, secret) };
}

/** What is wrong, in words; the offending value is quoted unless the key holds a secret. */
function describeIssue(issue: core.$ZodIssue, written: boolean, secret: boolean): string {
  const describeValue = (value: unknown): string =>
    secret && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      ? `a ${typeof value} (value not shown: secret)`
      : describeScalar(value);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = ({ int: 'a whole number', object: 'a mapping (key: value)', array: 'a list' } as Record<string, string>)[issue.expected] ?? issue.expected;
      if (issue.input === undefined && !written) return `required (expected ${expected})`;
      const got = describeValue(issue.input);
      if (issue.input === undefined) return `expected ${expected}, got an empty value`;
      const quote = issue.expected === 'string' && (typeof issue.input === 'number' || typeof issue.input === 'boolean');
      return `expected ${expected}, got ${got}${quote ? ' (put the value in quotes to make it a string)' : ''}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(issue.input)}`;
    default:
      return issue.message;
  }
}

function describeScalar(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `"${value.length > 40 ? value.slice(0, 37) + '...' : value}"`;
  return `${typeof value} ${String(value)}`;
}

/** Position of the value at `path`, or of the nearest ancestor that exists (a missing key points at its parent). */
function positionOf(doc: Document, lineCounter: LineCounter, path: PropertyKey[]): { line: number; col: number } {
  for (let n = path.length; n >= 0; n--) {
    const prefix = path.slice(0, n);
    const node = n === 0 ? (doc.contents as YamlNode | null) : (doc.getIn(prefix, true) as YamlNode | undefined);
    const valueStart = node && typeof node === 'object' && node.range ? node.range[0] : undefined;
    // A key with an empty value has a null scalar at the key's end; point at the key instead.
    const keyStart = n > 0 ? keyNodeStart(doc, prefix.slice(0, -1), prefix[n - 1]!) : undefined;
    const isEmpty = node && isScalar(node) && (node.value === null || node.value === undefined);
    // Falling back to an ancestor (the key itself is missing): point at the ancestor's key line.
    const preferKey = isEmpty || n < path.length;
    const offset = preferKey && keyStart !== undefined ? keyStart : (valueStart ?? keyStart);
    if (offset !== undefined) {
      const pos = lineCounter.linePos(offset);
      return { line: pos.line, col: pos.col };
    }
  }
  return { line: 1, col: 1 };
}

function keyNodeStart(doc: Document, parentPath: PropertyKey[], key: PropertyKey): number | undefined {
  const parent = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath, true);
  if (isMap(parent)) {
    for (const pair of parent.items) {
      const k = pair.key;
      const name = isScalar(k) ? k.value : k;
      if (String(name) === String(key) && isScalar(k) && k.range) return k.range[0];
    }
  }
  if (isSeq(parent) && typeof key === 'number') {
    const item = parent.items[key] as YamlNode | undefined;
    if (item && typeof item === 'object' && 'range' in item && item.range) return item.range[0];
  }
  return undefined;
}

function keyLine(doc: Document, lineCounter: LineCounter, parentPath: PropertyKey[], key: string): number {
  const start = keyNodeStart(doc, parentPath, key);
  if (start !== undefined) return lineCounter.linePos(start).line;
  return positionOf(doc, lineCounter, parentPath).line;
}

function yamlLinePos(e: { linePos?: [{ line: number; col: number }, ...unknown[]]; pos: [number, number] }, lc: LineCounter): string {
  const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
  return `${pos.line}:${pos.col}`;
}

/** yaml's pretty messages end with " at line N, column M:" and a source excerpt; the position is printed separately. */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').trim();
}

/** `gpucloud.rate_limit.per_path`, `cloud_a.service_keywords.compute[2]`; the root is "(top level)". */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += (out ? '.' : '') + String(segment);
  }
  return out;
}

function getAt(value: unknown, path: PropertyKey[]): unknown {
  let cur = value;
  for (const segment of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[segment as string];
  }
  return cur;
}

/** Keys that may appear at `path` of `schema` (object keys along the way; record entries as any name), for "did you mean" hints. */
export function knownKeysAt(schema: unknown, path: ReadonlyArray<PropertyKey>): string[] {
  const node = schemaNodeAt(schema, path);
  return node?.type === 'object' ? Object.keys(node.def.shape as Record<string, unknown>) : [];
}
