/**
 * The README and docs/ stay true (issue 38 §1): every relative link points at a file that exists (and a
 * heading that exists, for `#anchor` links); every `assistant …` example in a shell block names flags its
 * command knows (read from the command's own `--help`); and the sandbox examples run, page by page in
 * document order, in a fresh HOME, ending 0, 3 (a refusal the page demonstrates) or 4 (drift found).
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

// The --help sweep and the walk's plain lines run the CLI in this process; the walk's other lines run in a shell.
cliInThisProcess();

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'));
const BIN = join(ROOT, 'bin', 'assistant.js');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Markdown without its fenced blocks and inline code (links inside code are not links). */
const prose = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

test('every relative link in README and docs/ points at a file and a heading that exist', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^(https?|mailto):/.test(target)) continue;
      checked++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? normalize(join(ROOT, dirname(page), path)) : join(ROOT, page);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
    }
  }
  assert.ok(checked > 40, `the check saw ${checked} links: it must see the docs`);
  assert.equal(broken, []);
});

interface Example {
  page: string;
  line: string;
}

/** `assistant …` lines of the shell blocks (a `$ ` prompt allowed), in document order. */
function examples(page: string): Example[] {
  const out: Example[] = [];
  for (const block of read(page).matchAll(/```(?:sh|bash|console|shell)\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/^\$ /, '').trim();
      if (/^(\w+=\S+ )*assistant\s/.test(line)) out.push({ page, line });
    }
  }
  return out;
}

/** Words of a shell command up to its first pipe, redirection, list operator or comment (quotes kept together). */
function words(line: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      started = true;
      continue;
    }
    if (c === '$' && line[i + 1] === '(') {
      const end = line.indexOf(')', i);
      word += line.slice(i, end + 1);
      i = end;
      started = true;
      continue;
    }
    if (/\s/.test(c)) {
      if (started) out.push(word);
      word = '';
      started = false;
      continue;
    }
    if ('|>;&<'.includes(c) || (c === '#' && !started)) break;
    word += c;
    started = true;
  }
  if (started) out.push(word);
  return out;
}

const GLOBAL_WITH_VALUE = new Set(['--config', '--context', '-o', '--output', '--timeout']);
const GLOBAL = new Set(['--config', '--context', '-o', '--output', '--debug', '--yes', '-y', '--timeout', '--sandbox', '--no-color', '--help', '-h', '--version', '-v']);

/** The flags a command's own `--help` names (the CLI run in this process: cliInThisProcess above). */
async function helpFlags(args: string[]): Promise<Set<string>> {
  const { stdout, stderr } = await runCli([...args, '--help'], { home: tempDir('docs-help-') });
  const flags = new Set<string>();
  for (const m of `${stdout}${stderr}`.matchAll(/(?:^|[\s,[(|])(--?[a-zA-Z][\w-]*)/g)) flags.add(m[1]!);
  return flags;
}

/** Runs `work` over `items`, `limit` at a time (the machine is shared: a few children, not all at once). */
async function inBatches<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

test('every assistant example in README and docs/ uses flags its command knows', async () => {
  const commands = PAGES.flatMap(examples).map(({ page, line }) => ({ page, line, args: argsOf(line), path: commandPath(argsOf(line)) }));
  const known = new Map<string, Set<string>>();
  // One at a time: each is a few milliseconds in this process (an overlapping run would be a child process).
  await inBatches([...new Set(commands.map((c) => c.path.join(' ')))], 1, async (key) => {
    known.set(key, await helpFlags(key ? key.split(' ') : []));
  });
  const unknown: string[] = [];
  for (const { page, line, args, path } of commands) {
    const flags = known.get(path.join(' '))!;
    for (const a of args) {
      if (!a.startsWith('-') || a === '-') continue;
      const flag = a.split('=')[0]!;
      const plain = flag.replace(/^--no-/, '--');
      if (GLOBAL.has(flag) || flags.has(flag) || flags.has(plain) || flags.has(`--no-${plain.slice(2)}`)) continue;
      unknown.push(`${page}: ${line}\n    ${flag} is not in 'assistant ${path.join(' ')} --help'`);
    }
  }
  assert.ok(commands.length > 50, `the check saw ${commands.length} examples: it must see the docs`);
  assert.equal(unknown, [], unknown.join('\n'));
});

/** The arguments after `assistant` (environment assignments before it dropped). */
function argsOf(line: string): string[] {
  const argv = words(line);
  return argv.slice(argv.indexOf('assistant') + 1);
}

/** The command path: the leading words (at most 3), global flags and their values skipped. */
function commandPath(args: readonly string[]): string[] {
  const path: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GLOBAL.has(a)) {
      if (GLOBAL_WITH_VALUE.has(a)) i++;
      continue;
    }
    if (a.startsWith('-') || !/^[a-z][a-z0-9-]*$/.test(a) || path.length === 3) break;
    path.push(a);
  }
  return path;
}

/** Commands that serve, wait for a person, or reach beyond the machine: not run by this test. */
const NOT_RUN = [/\s(mcp|talk|acp)(\s|$)/, /\sbox serve/, /\sbackend serve/, /\sgpucloud emulate/, /\sonboarding install(?!.*--dry-run)/, /&\s*$/, /<[A-Za-z_]+>/, /\$\(/, /\|\s*jq/];

/**
 * The arguments of a line that is one plain `assistant …` command, exactly as sh would pass them: no
 * variable, tilde, glob, escape, redirection, pipe or list (a trailing comment is fine), no environment
 * assignment before it. Undefined for any other line, which runs in sh.
 */
function plainArgs(line: string): string[] | undefined {
  let quote: string | undefined;
  let wordStart = true;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (quote === '"' && '$`\\'.includes(c)) return undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && wordStart) break;
    else if ('|><;&$`\\*?[~(){}'.includes(c)) return undefined;
    wordStart = /\s/.test(c);
  }
  const argv = words(line);
  return argv[0] === 'assistant' ? argv.slice(1) : undefined;
}

/**
 * A documented line, in `cwd` with `env` (HOME, and `assistant` first on PATH). A plain command runs the
 * CLI in this process (cliInThisProcess above: a child costs up to a second of CPU, mostly compiling
 * modules); a line that needs a shell runs in sh, which starts `assistant` from PATH.
 */
async function run(line: string, cwd: string, env: NodeJS.ProcessEnv & { HOME: string; PATH: string }): Promise<{ code: number; stderr: string }> {
  const args = plainArgs(line);
  if (args) {
    const r = await runCli(args, { home: env.HOME, cwd, env: { PATH: env.PATH, NO_COLOR: '1' } });
    return { code: r.code ?? 1, stderr: r.stderr };
  }
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd, env, timeout: 120_000, maxBuffer: 16 << 20 }, (err, _stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stderr: String(stderr) });
    });
  });
}

test('the sandbox examples of each page run in order in a fresh HOME (exit 0, or 3/4 where a page shows a refusal or drift)', async () => {
  const failures: string[] = [];
  let ran = 0;
  // Pages are independent (a HOME each), but one at a time: the plain lines run in this process, where
  // an overlapping run would be a child process. Within a page, in order.
  await inBatches(PAGES, 1, async (page) => {
    const runnable = examples(page).filter((e) => e.line.includes('--sandbox') && !NOT_RUN.some((re) => re.test(e.line)));
    if (!runnable.length) return;
    const dir = tempDir('docs-walk-');
    const home = join(dir, 'home');
    const bin = join(dir, 'bin');
    const cwd = join(dir, 'work');
    for (const d of [home, bin, cwd]) mkdirSync(d, { recursive: true });
    writeFileSync(join(bin, 'assistant'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'assistant'), 0o755);
    symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
    const env = { ...process.env, HOME: home, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' };
    for (const { line } of runnable) {
      ran++;
      const { code, stderr } = await run(line, cwd, env);
      if (![0, 3, 4].includes(code)) failures.push(`${page}: ${line}\n    exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
  });
  assert.ok(ran > 15, `ran ${ran} sandbox examples: the walk must see the docs`);
  assert.equal(failures, [], failures.join('\n'));
});

test.run();
