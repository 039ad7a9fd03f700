/**
 * cloud_b's (gcloud's) `credentials` capability: the project only adds --project; gcloud logs in with its
 * own configuration, which is what the sources report, and `onboarding scan --check` asks it who is
 * active (`gcloud auth list`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckInput, CheckResult, CredentialSource, CredentialsCapability, SourceInput } from '../../core/capabilities.js';
import { defaultConfigDir, fileExists, iniSections, isSet, markUsed, notInstalled, parseJson, tidyPath } from '../../core/credential-sources.js';
import { expandHome } from '../../core/home-path.js';
import { childEnvironment } from '../../core/process/child-env.js';
import { failureLine, runChild } from '../../core/process/run-child.js';

function gcloudDir(input: SourceInput): string {
  return input.env.CLOUDSDK_CONFIG || defaultConfigDir(input, 'gcloud');
}

async function cloudBSources(input: SourceInput): Promise<CredentialSource[]> {
  const { config, env, home } = input;
  const sources: CredentialSource[] = [];
  const project = config.infra?.cloud_b?.project_id;
  sources.push({ kind: 'config', where: 'infra.cloud_b.project_id', present: isSet(project), ...(isSet(project) ? { note: 'selects the project; gcloud logs in on its own' } : {}) });
  const tokenFile = env.CLOUDSDK_AUTH_ACCESS_TOKEN_FILE;
  sources.push({
    kind: 'env',
    where: 'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
    present: isSet(tokenFile) && fileExists(expandHome(tokenFile!, home)),
    ...(isSet(tokenFile) && !fileExists(expandHome(tokenFile!, home)) ? { note: 'set, but the file does not exist' } : {}),
  });
  const dir = gcloudDir(input);
  let active = isSet(env.CLOUDSDK_ACTIVE_CONFIG_NAME) ? env.CLOUDSDK_ACTIVE_CONFIG_NAME!.trim() : '';
  if (!active) {
    try {
      active = readFileSync(join(dir, 'active_config'), 'utf8').trim();
    } catch {
      // no active_config file: gcloud uses "default"
    }
  }
  active ||= 'default';
  const file = join(dir, 'configurations', `config_${active}`);
  const account = (await iniSections(file))?.get('core')?.account;
  const envAccount = isSet(env.CLOUDSDK_CORE_ACCOUNT);
  sources.push({
    kind: 'cli-profile',
    where: `gcloud configuration "${active}" (${tidyPath(file, home)}: core/account${envAccount ? ', or CLOUDSDK_CORE_ACCOUNT' : ''})`,
    present: envAccount || isSet(account as string),
    ...(existsSync(join(dir, 'credentials.db')) ? {} : { note: `no gcloud login found (${tidyPath(join(dir, 'credentials.db'), home)} missing)` }),
  });
  return markUsed(sources, (s) => s.kind !== 'config');
}

/** `gcloud auth list`: an active account. */
async function checkCloudB(input: CheckInput): Promise<CheckResult> {
  const gcloud = input.toolPath('gcloud');
  if (!gcloud) return notInstalled('gcloud');
  const env = childEnvironment(input.env, { prefixes: ['CLOUDSDK_'], set: { CLOUDSDK_CORE_DISABLE_PROMPTS: '1' } });
  const args = ['auth', 'list', '--format=json'];
  const run = await runChild(gcloud, args, { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: gcloud ${args.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const accounts = parseJson<{ account?: string; status?: string }[]>(run.stdout) ?? [];
  const active = Array.isArray(accounts) ? accounts.find((a) => String(a.status).toUpperCase() === 'ACTIVE') : undefined;
  if (!active) return { authenticated: false, detail: Array.isArray(accounts) && accounts.length ? 'gcloud has accounts but none is active' : 'gcloud has no credentialed accounts' };
  return { authenticated: true, ...(active.account ? { identity: active.account } : {}), detail: 'gcloud auth list shows an active account' };
}

export const cloudBCredentials: CredentialsCapability = {
  sources: cloudBSources,
  scan: {
    title: 'cloud_b (Google Cloud, through gcloud)',
    check: checkCloudB,
    setup: () => [
      { why: 'cloud_b: log in the gcloud CLI', command: 'gcloud auth login' },
      { why: 'cloud_b: and name the project in ~/.assistant.yaml (infra.cloud_b.project_id) or gcloud', command: 'gcloud config set project <PROJECT_ID>' },
    ],
    login: () => [{ why: 'cloud_b: gcloud has no active account', command: 'gcloud auth login' }],
  },
};
