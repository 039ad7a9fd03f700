/**
 * Named contexts, as kubectl has them: `assistant config use work` and every later command reads
 * `~/.assistant/contexts/work.yaml` instead of `~/.assistant.yaml`; `config use sandbox` makes every
 * command run as under `--sandbox`; `config use default` goes back. One command moves between the
 * sandbox and a real account, and `--context NAME` (or ASSISTANT_CONTEXT) picks one for one command.
 *
 * Called "contexts", not "profiles" (issue 38 asked for `--profile`): `--profile` already means a
 * cloud_a CLI profile on `ask` and `k8s` (as in the original tool and the aws CLI), and one flag must not
 * mean two things.
 *
 * Which one applies, first match wins: `--config <path>` (a file named outright; no context), then
 * `--context`, then ASSISTANT_CONTEXT, then the current context (`~/.assistant/current-context`), then
 * `default`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closest } from '../did-you-mean.js';
import { UsageError } from '../errors.js';
import { ensurePrivateDir, writePrivateFile } from '../private-file.js';

/** Contexts every install has: they need no file of their own. */
export const BUILTIN_CONTEXTS: Readonly<Record<string, string>> = {
  default: 'the config file ~/.assistant.yaml, real accounts',
  sandbox: 'the local sandbox (as --sandbox), with ~/.assistant.yaml',
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export function contextsDir(home: string): string {
  return join(home, '.assistant', 'contexts');
}

/** The config file of a named context (not a built-in one). */
export function contextConfigPath(home: string, name: string): string {
  return join(contextsDir(home), `${checkContextName(name)}.yaml`);
}

function currentContextFile(home: string): string {
  return join(home, '.assistant', 'current-context');
}

/** A name that is a file name and nothing more (no `..`, no `/`). */
export function checkContextName(name: string): string {
  if (!NAME.test(name) || name.includes('..')) {
    throw new UsageError(`"${name}" is not a context name`, { hint: 'use letters, digits, _ . and -, starting with a letter or digit' });
  }
  return name;
}

/** Every context: the built-in ones, then the files under ~/.assistant/contexts, sorted. */
export function listContexts(home: string): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(contextsDir(home)).filter((f) => f.endsWith('.yaml') && NAME.test(f.slice(0, -5))).map((f) => f.slice(0, -5));
  } catch {
    // No folder: no named contexts yet.
  }
  return [...Object.keys(BUILTIN_CONTEXTS), ...files.filter((f) => !(f in BUILTIN_CONTEXTS)).sort()];
}

export function readCurrentContext(home: string): string | undefined {
  try {
    const name = readFileSync(currentContextFile(home), 'utf8').trim();
    return name || undefined;
  } catch {
    return undefined;
  }
}

/** `config use NAME`: later commands use it. The name must exist (a typo must not switch to nothing). */
export function useContext(home: string, name: string): void {
  checkContextName(name);
  if (!listContexts(home).includes(name)) throw unknownContext(home, name);
  ensurePrivateDir(join(home, '.assistant'));
  writePrivateFile(currentContextFile(home), `${name}\n`);
}

export interface ChosenContext {
  name: string;
  from: '--config' | '--context' | 'ASSISTANT_CONTEXT' | 'current-context' | 'default';
  /** The config file it reads (undefined: ~/.assistant.yaml). */
  config?: string;
  sandbox: boolean;
  /** Said once on stderr: a current context that no longer exists fell back to default. */
  warning?: string;
}

/**
 * Which context this command runs in. A context asked for by flag or environment that does not exist is
 * a usage error; a current context whose file was removed falls back to `default` with a warning, so
 * `config use` itself can always run.
 */
export function chooseContext(options: { flag?: string; config?: string; env: NodeJS.ProcessEnv; home: string; /** `config init` makes the context's file */ creating?: boolean }): ChosenContext {
  const { flag, env, home } = options;
  if (options.config !== undefined) {
    if (flag !== undefined) throw new UsageError('--config and --context both name a config file; give one');
    return { name: 'default', from: '--config', config: options.config, sandbox: false };
  }
  const envName = env.ASSISTANT_CONTEXT?.trim() || undefined;
  const asked = flag !== undefined ? { name: flag, from: '--context' as const } : envName ? { name: envName, from: 'ASSISTANT_CONTEXT' as const } : undefined;
  if (asked) return { ...resolve(home, asked.name, options.creating), from: asked.from };
  const current = readCurrentContext(home);
  if (current === undefined) return { name: 'default', from: 'default', sandbox: false };
  try {
    return { ...resolve(home, current), from: 'current-context' };
  } catch {
    return { name: 'default', from: 'default', sandbox: false, warning: `the current context "${current}" no longer exists; using default (assistant config use <name> to pick another)` };
  }
}

function resolve(home: string, name: string, creating = false): { name: string; config?: string; sandbox: boolean } {
  checkContextName(name);
  if (name === 'default') return { name, sandbox: false };
  if (name === 'sandbox') return { name, sandbox: true };
  const config = contextConfigPath(home, name);
  if (!creating && !existsSync(config)) throw unknownContext(home, name);
  return { name, config, sandbox: false };
}

function unknownContext(home: string, name: string): UsageError {
  const known = listContexts(home);
  const meant = closest(name, known);
  return new UsageError(`no context "${name}"${meant ? `; did you mean "${meant}"?` : ''}`, {
    hint: `contexts: ${known.join(', ')}; 'assistant --context ${name} config init' makes it`,
  });
}
