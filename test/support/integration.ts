/**
 * Shared by the tests of the HTTP integrations (repohost, errtracker, issuetracker…): a HOME with a
 * config file, removed after the test file, and the environment that points the CLI at a fake.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { configFile, runCli, type CliResult } from './cli.js';
import { askBuiltinOverMcp, textOf } from './mcp.js';
import { removeTempDir, tempDir } from './temp.js';

const made: string[] = [];

/** A fresh HOME holding `~/.assistant.yaml` with `config` (mode 0600); removed by `removeHomes` (or at exit). */
export function homeWithConfig(config: string, prefix = 'assistant-integration-'): string {
  const home = tempDir(prefix);
  made.push(home);
  writeFileSync(join(home, '.assistant.yaml'), config || '{}\n', { mode: 0o600 });
  return home;
}

/** Removes every HOME made by this test file (call from `test.after`). */
export function removeHomes(): void {
  for (const h of made.splice(0)) removeTempDir(h);
}

/** Every secret given must be absent from every text (stdout, stderr, files, MCP results). */
export function assertNoSecret(texts: readonly string[], secrets: readonly string[]): void {
  for (const s of secrets) for (const t of texts) if (t.includes(s)) throw new Error(`a secret (${s.slice(0, 4)}…) appeared in the output:\n${t.slice(0, 2000)}`);
}

/** Something a test starts and must stop (an integration fake, a server). */
export interface Closable {
  close(): Promise<void>;
}

const started: Closable[] = [];

/**
 * Starts a fake that lives until `closeStarted` (hand that to `test.after`): for test files whose
 * tests each start their own and would otherwise repeat the bookkeeping.
 */
export async function startKept<F extends Closable>(start: () => Promise<F>): Promise<F> {
  const f = await start();
  started.push(f);
  return f;
}

/** Closes every fake started by `startKept`, and removes the HOMEs made by `homeWithConfig`. */
export async function closeStarted(): Promise<void> {
  await Promise.all(started.splice(0).map((f) => f.close()));
  removeHomes();
}

/** Starts a fake, hands it and the environment that points the CLI at it to `fn`, and closes it after, pass or fail. */
export async function withStarted<F extends Closable, T>(start: () => Promise<F>, envOf: (fake: F) => Record<string, string>, fn: (fake: F, env: Record<string, string>) => Promise<T>): Promise<T> {
  const fake = await start();
  try {
    return await fn(fake, envOf(fake));
  } finally {
    await fake.close();
  }
}

/** `assistant ask --ai-profile builtin <args>` (answers without a model) in a fresh HOME. */
export function askBuiltin(args: string[], opts: { env?: Record<string, string | undefined>; home?: string; config?: string } = {}): Promise<CliResult> {
  return runCli(['ask', '--ai-profile', 'builtin', ...args], { env: opts.env as Record<string, string> | undefined, home: opts.home ?? (opts.config !== undefined ? homeWithConfig(opts.config) : tempDir('assistant-integration-')) });
}

/** A `--config` file whose `ai` section answers without a model, then `text`. */
export const builtinConfig = (text: string): string => configFile(`ai:\n  default_provider: builtin\n${text}`);

/**
 * The CLI with `--config <config>` in a fresh HOME, asserting that `secret` (the fake's token)
 * appears nowhere in what it printed.
 */
export async function runWithConfig(config: string, args: string[], secret: string, env?: Record<string, string>): Promise<CliResult> {
  const r = await runCli(['--config', config, ...args], { env, home: tempDir('assistant-integration-') });
  assert.not.ok((r.stdout + r.stderr).includes(secret), 'the token never appears in any output');
  return r;
}

/** A fake that answers with a token, at an address the CLI is pointed at. */
export interface TokenFake extends Closable {
  url: string;
  token: string;
}

/**
 * The set-up of a test file for one HTTP integration whose tests share its fakes until the file ends:
 * `fake(opts)` starts one (kept, closed by `closeStarted`, which the caller hands to `test.after`),
 * `envFor(f, token?)` points the CLI at it with its token (or another), and `ask(f, args, o)` is
 * `ask --ai-profile builtin` with `config` (or `o.config`) in a fresh HOME, `o.env` on top.
 */
export function keptFakes<F extends TokenFake, O>(start: (opts: O) => Promise<F>, config: string, envOf: (f: F, token: string) => Record<string, string>) {
  const envFor = (f: F, token = f.token) => envOf(f, token);
  return {
    fake: (opts?: O) => startKept(() => start(opts ?? ({} as O))),
    envFor,
    ask: (f: F, args: string[], o: { token?: string; config?: string; env?: Record<string, string> } = {}) =>
      askBuiltin(args, { config: o.config ?? config, env: { ...envFor(f, o.token), ...(o.env ?? {}) } }),
  };
}

/**
 * The set-up of a test file for one HTTP integration whose tests each start their own fake:
 * `withFake(fn, opts)` starts one, hands `fn` it and the environment that points the CLI at it, and
 * closes it after, pass or fail; `ask(args, env)` is `ask --ai-profile builtin` in a fresh HOME
 * (`home()`, named with `prefix`).
 */
export function fakePerTest<F extends Closable, O>(prefix: string, start: (opts: O) => Promise<F>, envOf: (f: F) => Record<string, string>) {
  const home = () => tempDir(prefix);
  return {
    home,
    withFake: <T>(fn: (fake: F, env: Record<string, string>) => Promise<T>, opts?: O): Promise<T> => withStarted(() => start(opts ?? ({} as O)), envOf, fn),
    ask: (args: string[], env: Record<string, string | undefined>) => askBuiltin(args, { env, home: home() }),
    /** `ask` (with `args` after the built-in profile) against a fake that never finishes: it ends at `--timeout 2`, exit 1. */
    async timesOut(args: string[], env: Record<string, string>): Promise<void> {
      const slow = await runCli(['ask', '--timeout', '2', '--ai-profile', 'builtin', ...args], { env, home: home() });
      assert.is(slow.code, 1);
      assert.match(slow.stderr, /^error: timeout: timeout after 2 s \(--timeout\)/m);
    },
    /** The MCP ask tool's answer to `question`, which must come from `provider` alone and hold nothing of `secret`. */
    async mcpAnswer(env: Record<string, string>, question: string, provider: string, secret: string): Promise<string> {
      const r = await askBuiltinOverMcp({ env, home: home(), question });
      assert.not.ok(r.isError, textOf(r));
      assert.equal(r.structuredContent.providers, [provider]);
      assert.not.ok(JSON.stringify(r).includes(secret));
      return r.structuredContent.answer as string;
    },
  };
}

/** What points the CLI at a vps_a fake: its own tests, and the combined views of the others. */
export const vpsAEnv = (fake: TokenFake): Record<string, string> => ({ ASSISTANT_VPS_A_BASE_URL: fake.url, VPS_A_API_TOKEN: fake.token });
