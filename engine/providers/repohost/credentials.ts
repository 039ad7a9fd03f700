/**
 * Where repohost's token comes from as `onboarding scan` reports it: the project's own (repohost.token,
 * REPOHOST_TOKEN: what deploy uses) and gh's (read by gh, not by deploy); the check asks `gh auth
 * status`, with the project's own token when that is the one in use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckInput, CheckResult, CredentialScan, CredentialSource, SourceInput } from '../../core/capabilities.js';
import { configKey, defaultConfigDir, envSet, isSet, markUsed, notInstalled, tidyPath } from '../../core/credential-sources.js';
import { childEnvironment } from '../../core/process/child-env.js';
import { failureLine, runChild } from '../../core/process/run-child.js';
import { registerSecret } from '../../core/redact.js';

export function repohostSources(input: SourceInput): CredentialSource[] {
  const { env, home } = input;
  const token = input.config.repohost?.token;
  if (isSet(token)) registerSecret(token);
  const ghDir = env.GH_CONFIG_DIR || defaultConfigDir(input, 'gh', 'GitHub CLI');
  const hosts = join(ghDir, 'hosts.yml');
  let loggedIn = false;
  try {
    loggedIn = /oauth_token|user:/.test(readFileSync(hosts, 'utf8'));
  } catch {
    // not logged in with gh
  }
  return markUsed([
    { kind: 'config', where: configKey(input, ['repohost.token']), present: isSet(token) },
    { kind: 'env', where: 'REPOHOST_TOKEN', present: envSet(env, 'REPOHOST_TOKEN') },
    { kind: 'env', where: 'GH_TOKEN', present: envSet(env, 'GH_TOKEN'), note: 'read by gh, not by deploy' },
    { kind: 'env', where: 'GITHUB_TOKEN', present: envSet(env, 'GITHUB_TOKEN'), note: 'read by gh, not by deploy' },
    { kind: 'cli-profile', where: `gh auth login (${tidyPath(hosts, home)})`, present: loggedIn, note: 'read by gh, not by deploy' },
  ]);
}

/**
 * `gh auth status`. When the project's own token is what deploy would use (repohost.token,
 * REPOHOST_TOKEN), that token is the one checked: it reaches gh as GH_TOKEN in its environment, never
 * on its command line.
 */
async function checkRepohost(input: CheckInput): Promise<CheckResult> {
  const gh = input.toolPath('gh');
  if (!gh) return notInstalled('gh');
  const used = input.sources.find((s) => s.used);
  const set: Record<string, string> = { GH_PROMPT_DISABLED: '1', NO_COLOR: '1' };
  const names = ['GH_CONFIG_DIR', 'GH_HOST'];
  if (used?.where.endsWith('repohost.token') && input.config.repohost?.token) set.GH_TOKEN = input.config.repohost.token.trim();
  else if (used?.where === 'REPOHOST_TOKEN' && input.env.REPOHOST_TOKEN) set.GH_TOKEN = input.env.REPOHOST_TOKEN.trim();
  else if (used?.where === 'GH_TOKEN') names.push('GH_TOKEN');
  else if (used?.where === 'GITHUB_TOKEN') names.push('GITHUB_TOKEN');
  const env = childEnvironment(input.env, { names, set });
  const run = await runChild(gh, ['auth', 'status'], { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: gh auth status -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const text = `${run.stdout}\n${run.stderr}`;
  const m = /Logged in to (\S+) (?:account|as) ([\w-]+)/.exec(text);
  return { authenticated: true, ...(m ? { identity: `${m[2]} on ${m[1]}` } : {}), detail: 'gh auth status: logged in' };
}

export const repohostScan: CredentialScan = {
  title: 'repohost (code host)',
  check: checkRepohost,
  setup: () => [{ why: 'repohost: log in the gh CLI (deploy of a private repository reads repohost.token or REPOHOST_TOKEN)', command: 'gh auth login' }],
  login: () => [{ why: 'repohost: the code host refused the token', command: 'gh auth login' }],
};
