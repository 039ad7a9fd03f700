/**
 * cloud_c's (az's) `credentials` capability: the project only adds --subscription; az logs in with its own
 * profile, which is what the sources report, and `onboarding scan --check` asks it (`az account show`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckInput, CheckResult, CredentialsCapability, SourceInput, CredentialSource } from '../../core/capabilities.js';
import { isSet, markUsed, notInstalled, parseJson, tidyPath } from '../../core/credential-sources.js';
import { childEnvironment } from '../../core/process/child-env.js';
import { failureLine, runChild } from '../../core/process/run-child.js';

function cloudCSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const sub = config.infra?.cloud_c?.subscription_id;
  const dir = env.AZURE_CONFIG_DIR || join(home, '.azure');
  const file = join(dir, 'azureProfile.json');
  let count = 0;
  let note: string | undefined;
  try {
    // az writes the file with a byte-order mark.
    const profile = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as { subscriptions?: unknown[] };
    count = Array.isArray(profile.subscriptions) ? profile.subscriptions.length : 0;
    note = `${count} subscription${count === 1 ? '' : 's'}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') note = 'cannot be read as JSON';
  }
  return markUsed(
    [
      { kind: 'config', where: 'infra.cloud_c.subscription_id', present: isSet(sub), ...(isSet(sub) ? { note: 'selects the subscription; az logs in on its own' } : {}) },
      { kind: 'cli-profile', where: `az login (${tidyPath(file, home)}${env.AZURE_CONFIG_DIR ? ', from AZURE_CONFIG_DIR' : ''})`, present: count > 0, ...(note ? { note } : {}) },
    ],
    (s) => s.kind === 'cli-profile',
  );
}

/** `az account show` (of infra.cloud_c.subscription_id when set). */
async function checkCloudC(input: CheckInput): Promise<CheckResult> {
  const az = input.toolPath('az');
  if (!az) return notInstalled('az');
  const sub = input.config.infra?.cloud_c?.subscription_id?.trim();
  const args = ['account', 'show', '-o', 'json', ...(sub ? ['--subscription', sub] : [])];
  const env = childEnvironment(input.env, { names: ['AZURE_CONFIG_DIR'], set: { AZURE_CORE_NO_COLOR: 'true', AZURE_CORE_OUTPUT: 'json', AZURE_CORE_COLLECT_TELEMETRY: 'false' } });
  const run = await runChild(az, args, { env, timeoutMs: input.timeoutMs, signal: input.signal });
  input.debug?.(`onboarding: az ${args.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  if (run.code !== 0) return { authenticated: run.timedOut || run.aborted || run.notFound ? null : false, detail: failureLine(run, input.timeoutMs) };
  const account = parseJson<{ name?: string; id?: string; user?: { name?: string } }>(run.stdout);
  const identity = [account?.user?.name, account?.name ? `subscription "${account.name}"` : undefined].filter(Boolean).join(', ');
  return { authenticated: true, ...(identity ? { identity } : {}), detail: 'az account show answered' };
}

export const cloudCCredentials: CredentialsCapability = {
  sources: cloudCSources,
  scan: {
    title: 'cloud_c (Azure, through az)',
    check: checkCloudC,
    setup: () => [{ why: 'cloud_c: log in the az CLI', command: 'az login' }],
    login: () => [{ why: 'cloud_c: az is not logged in (or the subscription is not available to you)', command: 'az login' }],
  },
};
