/**
 * Shallow clone of the repository to deploy, with the git CLI run as an argument vector (no shell),
 * into a temporary directory that is always removed (also on an error or Ctrl-C: the caller's signal
 * kills git and the `finally` removes the directory).
 *
 * A token for a private https repository (config `repohost.token`) reaches git only through its
 * environment (GIT_CONFIG_COUNT/KEY/VALUE: an `http.extraHeader`), never through argv, the URL, a
 * plan, a log or an error: it is registered with the redactor and masked in git's own messages too.
 * It goes only to the code host it belongs to (`tokenOrigins`, engine/core/kits/http/secret-origins.ts):
 * git is then given the URL in the canonical form that was checked (so git cannot read another host
 * out of it than the one judged) and follows no redirect; any other host is cloned anonymously, and
 * a failure says so.
 */
import { withoutSecrets } from '../../core/process/env.js';
import { killGroup, OWN_GROUP } from '../../core/process/group.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OperationError, UsageError } from '../../core/errors.js';
import { abortReason } from '../../core/deadline.js';
import { redactText, registerSecret } from '../../core/redact.js';
import { mayCarry } from '../../core/kits/http/secret-origins.js';
import { processAlive as alive } from '../../core/process/probe.js';
import { tempRoot } from '../../core/process/temp-root.js';

export interface CloneOptions {
  url: string;
  /** Branch, tag or full commit sha. */
  ref?: string;
  /** Sent as an Authorization header to https remotes of `tokenOrigins` only (and http to this machine). */
  token?: string;
  /** The code host's origins (`https://github.com`): where the token may go. */
  tokenOrigins?: readonly string[];
  signal?: AbortSignal;
  /** Where temp dirs go (tests point it somewhere they can inspect). */
  tmpRoot?: string;
  /**
   * The command's environment (ctx.env), which git inherits less this tool's secrets: the ssh agent,
   * proxies, git's own settings. Never process.env: the command's environment is the one it was given.
   */
  env: Readonly<Record<string, string | undefined>>;
}

export interface Clone {
  dir: string;
  /** The commit checked out (`git rev-parse HEAD`). */
  sha: string;
}

const FULL_SHA = /^[0-9a-f]{40}$/i;
/** Prefix of every temp dir, so a test (or a person after kill -9) can find leftovers. */
export const CLONE_DIR_PREFIX = 'assistant-deploy-';

/** What kind of remote a URL is; anything else is refused before git runs. */
export function remoteKind(url: string): 'https' | 'http' | 'ssh' | 'git' | 'file' | 'local' {
  if (/[\u0000-\u001f\u007f]/.test(url)) throw new UsageError('the repository URL contains a control character');
  if (url.startsWith('-')) throw new UsageError(`"${url}" is not a repository URL`, { hint: 'give an https, ssh, git:// or file:// URL, or a local path' });
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'http' || scheme === 'ssh' || scheme === 'git' || scheme === 'file') return scheme;
  if (scheme) throw new UsageError(`unsupported repository URL scheme "${scheme}://"`, { hint: 'use https://, ssh://, git://, file:// or a local path' });
  if (/^[\w.-]+@[\w.-]+:/.test(url)) return 'ssh'; // scp-like: git@host:owner/repo.git
  if (/^[a-z][a-z0-9+.-]*::/i.test(url)) throw new UsageError(`"${url}" uses a git remote helper, which deploy does not run`);
  return 'local';
}

/** The host a remote URL reaches (undefined for a path or file:// on this machine). */
export function remoteHost(url: string): string | undefined {
  const kind = remoteKind(url);
  if (kind === 'local' || kind === 'file') return undefined;
  const scp = /^[\w.-]+@([\w.-]+):/.exec(url);
  if (kind === 'ssh' && scp && !url.includes('://')) return scp[1];
  try {
    return new URL(url).hostname;
  } catch {
    return url; // not parsable: treated as remote
  }
}

/** The URL without user info (a token pasted into it), for plans, scripts and messages. */
export function publicUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** The repository's name from its URL: `https://host/me/My_App.git` → `My_App`. */
export function repoName(url: string): string {
  const path = publicUrl(url).replace(/[?#].*$/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  return path.split(/[/:\\]/).filter(Boolean).pop() ?? 'app';
}

/**
 * Clones `url` at `ref` (default branch when absent), runs `fn` on the checkout and removes it
 * whatever happens. Errors are exit 1 (`clone_failed`) with git's message, the token masked.
 */
export async function withClone<T>(opts: CloneOptions, fn: (clone: Clone) => Promise<T>): Promise<T> {
  const kind = remoteKind(opts.url);
  if (opts.token) registerSecret(opts.token);
  const root = opts.tmpRoot ?? tempRoot(opts.env);
  sweepOrphans(root);
  const dir = mkdtempSync(join(root, `${CLONE_DIR_PREFIX}${process.pid}-`));
  const work = join(dir, 'repo');
  // Removal on process exit covers an uncaught throw after this point; Ctrl-C aborts the signal, git dies, finally runs.
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    const auth = tokenFor(kind, opts);
    const env = gitEnv(kind, auth.token, opts.env);
    const git = (args: string[], cwd?: string) => runGit(args, { cwd, env, signal: opts.signal, anonymous: auth.anonymous });
    const remote = auth.url;
    if (opts.ref && FULL_SHA.test(opts.ref)) {
      // A sha is not a ref `clone --branch` accepts: fetch exactly that commit.
      await git(['init', '--quiet', work]);
      await git(['remote', 'add', 'origin', '--', remote], work);
      await git(['fetch', '--quiet', '--depth', '1', 'origin', opts.ref], work);
      await git(['checkout', '--quiet', '--detach', 'FETCH_HEAD'], work);
    } else {
      const branch = opts.ref ? ['--branch', opts.ref] : [];
      await git(['clone', '--quiet', '--depth', '1', '--no-tags', ...branch, '--', remote, work]);
    }
    const sha = (await git(['rev-parse', 'HEAD'], work)).trim();
    return await fn({ dir: work, sha });
  } finally {
    cleanup();
    process.removeListener('exit', cleanup);
  }
}

/**
 * Whether the token goes with this clone: only over http(s) to one of the code host's origins (https,
 * or http to this machine), decided on the URL's canonical form, which is then what git is given.
 * Otherwise the clone is anonymous, and `anonymous` says why for the error of a failed clone.
 */
function tokenFor(kind: ReturnType<typeof remoteKind>, opts: CloneOptions): { url: string; token?: string; anonymous?: string } {
  if (!opts.token || (kind !== 'https' && kind !== 'http')) return { url: opts.url };
  const origins = opts.tokenOrigins ?? [];
  const url = new URL(opts.url);
  if (mayCarry({ what: 'the code host token', origins }, url)) return { url: url.href, token: opts.token };
  const where = origins.length ? `the code host the token belongs to is ${origins.join(', ')}` : 'no code host is configured for the token';
  return { url: opts.url, anonymous: `cloned without the code host token: ${url.origin} is not its host (${where})` };
}

/**
 * Removes clones left by a deploy that was killed (kill -9 runs no cleanup): each dir carries its
 * process id, and a dir whose process is gone is an orphan. A live process with a reused id keeps its dir.
 */
function sweepOrphans(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${CLONE_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}


/**
 * git's environment: no prompts (a pipe must not hang on a password question), no system or user
 * config that could rewrite the URL, and for https the token as an extra header given by env.
 */
function gitEnv(kind: ReturnType<typeof remoteKind>, token: string | undefined, userEnv: CloneOptions['env']): NodeJS.ProcessEnv {
  // The user's environment (ssh agent, proxies, git's own settings) but none of this tool's secrets (engine/core/process/env.ts).
  const env: NodeJS.ProcessEnv = { ...withoutSecrets(userEnv), GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', GCM_INTERACTIVE: 'never', LC_ALL: 'C' };
  // ssh must not ask either (BatchMode), unless the user configured their own command.
  if (kind === 'ssh' && !env.GIT_SSH_COMMAND) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  // Never inherit a config count from the caller (it would shift our index 0).
  for (const k of Object.keys(env)) if (/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(k)) delete env[k];
  if (token && (kind === 'https' || kind === 'http')) {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    registerSecret(basic);
    // The header goes with every request git makes, so git must not follow a redirect to another host.
    env.GIT_CONFIG_COUNT = '2';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
    env.GIT_CONFIG_KEY_1 = 'http.followRedirects';
    env.GIT_CONFIG_VALUE_1 = 'false';
  }
  return env;
}

function runGit(args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv; signal?: AbortSignal; anonymous?: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(abortReason(opts.signal, { while: 'cloning' }));
    // Its own process group: an interrupt kills git and its transport helpers (git-remote-http, ssh) together.
    const child = spawn('git', args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], ...OWN_GROUP });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const onAbort = () => killGroup(child, 'SIGTERM');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new OperationError('git_not_found', missing ? 'git is not installed (deploy clones with the git CLI)' : redactText(e.message), { hint: 'install git and make sure it is on the PATH' }));
    });
    child.on('close', (code) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) return reject(abortReason(opts.signal, { while: 'cloning' }));
      if (code === 0) return resolve(out);
      const message = redactText(err.trim().split('\n').filter(Boolean).slice(-3).join('; ') || `git ${args[0]} exited with ${code}`);
      const denied = /auth|403|401|permission denied|could not read username/i.test(err);
      reject(
        new OperationError('clone_failed', `git ${args[0]} failed: ${message}${opts.anonymous ? ` (${opts.anonymous})` : ''}`, {
          hint: opts.anonymous
            ? 'a token goes only to its own code host: if this is your code host, set repohost.base_url to its API (e.g. https://host/api/v3)'
            : denied
              ? 'for a private https repository set repohost.token in the config (or REPOHOST_TOKEN); for ssh, load a key the host accepts'
              : 'check the URL and --ref (a branch, a tag or a full 40-character commit sha)',
        }),
      );
    });
  });
}
