/**
 * Shared by the tests of the HTTP integrations (repohost, errtracker, issuetracker…): a HOME with a
 * config file, removed after the test file, and the environment that points the CLI at a fake.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { configFile, runCli, type CliResult } from './cli.js';
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
