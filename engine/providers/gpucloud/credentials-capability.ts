/**
 * gpucloud's `credentials` capability (engine/core/credentials-capability.ts): its sources in SPEC §5
 * order, exactly as its resolver (credentials.ts) finds them, what the backend store keeps (the OAuth
 * client), how `onboarding scan --check` and `credentials test` check them (a fresh token and the
 * balance, read through the executor), and what `config show` prints.
 */
import type { Config } from '../../../schemas/config.js';
import { emptyConfigValue } from '../../../schemas/config-defaults.js';
import type { Plan } from '../../../schemas/plan.js';
import type { CheckInput, CheckResult, CredentialSource, CredentialsCapability, SourceInput, SourceKind } from '../../core/capabilities.js';
import { configKey, envSet, halfNote, isSet, plainField, secretField, shortError, tidyPath } from '../../core/credential-sources.js';
import { AssistantError } from '../../core/errors.js';
import { maskSecret, registerSecret } from '../../core/redact.js';
import { findKind } from './catalogue.js';
import { gpucloudCredentialsFilePath, GPUCLOUD_ENV, NoCredentialsError, resolveGpuCloudCredentials, resolveGpuCloudUrls } from './credentials.js';
import { listPlan } from './static-plans.js';

/** SPEC §5: config, environment, the credentials file, then the backend store; the one the resolver would pick is `used`. */
async function gpucloudSources(input: SourceInput): Promise<CredentialSource[]> {
  const { config, env, home } = input;
  const g = config.gpucloud ?? {};
  const sources: CredentialSource[] = [];
  const cfgId = isSet(g.client_id);
  const cfgSecret = isSet(g.client_secret);
  sources.push({
    kind: 'config',
    where: configKey(input, ['gpucloud.client_id', 'gpucloud.client_secret']),
    present: cfgId && cfgSecret,
    ...(cfgId !== cfgSecret ? { note: `${cfgId ? 'gpucloud.client_id' : 'gpucloud.client_secret'} set but ${cfgId ? 'gpucloud.client_secret' : 'gpucloud.client_id'} missing` } : {}),
  });
  const envNames = [GPUCLOUD_ENV.clientId, GPUCLOUD_ENV.clientSecret];
  const envNote = halfNote(env, envNames);
  sources.push({ kind: 'env', where: envNames.join(' + '), present: envSet(env, ...envNames), ...(envNote ? { note: envNote } : {}) });

  // The credentials file, read by the resolver itself (profile from GPUCLOUD_PROFILE, else gpucloud.profile).
  const file = gpucloudCredentialsFilePath(home);
  const profile = isSet(env[GPUCLOUD_ENV.profile]) ? env[GPUCLOUD_ENV.profile]!.trim() : isSet(g.profile) ? g.profile!.trim() : 'default';
  let filePresent = false;
  let fileNote: string | undefined;
  try {
    const only: Config = emptyConfigValue();
    if (g.profile) only.gpucloud = { profile: g.profile };
    const r = await resolveGpuCloudCredentials({ config: only, env: { [GPUCLOUD_ENV.profile]: env[GPUCLOUD_ENV.profile] }, home, configPath: input.configPath });
    filePresent = r.source === 'credentials-file';
    const permission = r.warnings.find((w) => w.includes('readable by other users'));
    if (permission) fileNote = `readable by other users: run chmod 600 ${tidyPath(file, home)}`;
  } catch (err) {
    if (err instanceof NoCredentialsError) {
      const outcome = err.searched.find((s) => s.source === 'credentials-file')?.outcome;
      if (outcome && outcome !== 'file not found') fileNote = outcome;
    } else {
      filePresent = true;
      fileNote = (err as Error).message;
    }
  }
  sources.push({ kind: 'file', where: `${tidyPath(file, home)} [${profile}]`, present: filePresent, ...(fileNote ? { note: fileNote } : {}) });

  const backendKey = isSet(config.backend?.api_key) || envSet(env, 'ASSISTANT_BACKEND_API_KEY');
  if (isSet(config.backend?.api_key)) registerSecret(config.backend!.api_key);
  sources.push({
    kind: 'backend',
    where: 'backend credential store (backend.api_key or ASSISTANT_BACKEND_API_KEY)',
    present: backendKey,
    ...(backendKey ? { note: 'asked only when no source above holds credentials' } : {}),
  });

  // Which one the resolver would pick, asked of the resolver itself.
  let usedKind: SourceKind | undefined;
  try {
    const r = await resolveGpuCloudCredentials({ config, env, home, configPath: input.configPath });
    usedKind = r.source === 'credentials-file' ? 'file' : r.source;
  } catch (err) {
    if (err instanceof NoCredentialsError && backendKey) usedKind = 'backend';
    else if (!(err instanceof NoCredentialsError)) usedKind = sources.find((s) => s.present)?.kind;
  }
  const used = sources.find((s) => s.kind === usedKind && s.present);
  if (used) used.used = true;
  return sources;
}

interface GpuCloudBalance {
  amount?: unknown;
  currency?: string;
}

/** What `credentials test` reads: the balance, through the plan executor (a fresh token is fetched for it, so a wrong secret fails here). */
async function readBalance(read: (plan: Plan) => Promise<unknown[]>): Promise<GpuCloudBalance> {
  const [balance] = (await read(listPlan(findKind('balance')!))) as [GpuCloudBalance];
  return balance ?? {};
}

/** A fresh token and the balance, read through the plan executor like `credentials test`. */
async function checkGpucloud(input: CheckInput): Promise<CheckResult> {
  if (!input.sources.some((s) => s.used)) return { authenticated: false, detail: 'no credentials found' };
  try {
    const { results, source } = await input.plans.read(listPlan(findKind('balance')!), 'gpucloud', input.signal);
    const balance = results[0] as { amount?: unknown; currency?: unknown } | undefined;
    const amount = balance && balance.amount !== undefined ? ` (balance ${String(balance.amount)} ${String(balance.currency ?? '').toUpperCase()})`.replace(/ \)$/, ')') : '';
    return { authenticated: true, detail: `token issued and balance read${amount}; source: ${source}` };
  } catch (err) {
    if (input.signal.aborted) throw err;
    const code = err instanceof AssistantError ? err.code : undefined;
    // A refused secret is "not authenticated"; an unreachable API says nothing about the credentials.
    const refused = code !== undefined && /unauthori[sz]ed|invalid_client|no_credentials|forbidden|auth/i.test(code);
    return { authenticated: refused ? false : null, detail: `${code ? `${code}: ` : ''}${shortError(err)}` };
  }
}

export const gpucloudCredentials: CredentialsCapability = {
  sources: gpucloudSources,
  what: 'gpucloud OAuth client credentials (console: Project → Keys → Cloud API Credentials)',
  fields: [
    plainField('client_id', '--client-id', 'OAuth client id'),
    secretField('client_secret', '--client-secret', 'OAuth client secret'),
    plainField('project_id', '--project-id', 'project id (optional)', false),
  ],
  scan: {
    title: 'gpucloud',
    check: checkGpucloud,
    setup: (input) => [
      { why: 'gpucloud: try everything offline first, against the local emulator', command: 'assistant --sandbox gpucloud list instances' },
      {
        why: `gpucloud: create API credentials in the console (Keys → Cloud API Credentials), then export them (or put client_id and client_secret under "gpucloud:" in ${tidyPath(input.configPath, input.home)})`,
        command: `export ${GPUCLOUD_ENV.clientId}=<CLIENT_ID> ${GPUCLOUD_ENV.clientSecret}=<CLIENT_SECRET>`,
      },
      { why: 'gpucloud: then check them', command: 'assistant credentials test gpucloud' },
    ],
    login: () => [{ why: 'gpucloud: the credentials were refused; create new ones in the console (Keys → Cloud API Credentials) and check them', command: 'assistant credentials test gpucloud' }],
  },
  async test(read) {
    const balance = await readBalance(read);
    return { detail: `balance ${String(balance.amount)} ${String(balance.currency ?? '').toUpperCase()}`, data: { balance } };
  },
  async show({ config, env, home, configPath, warn }) {
    try {
      const creds = await resolveGpuCloudCredentials({ config, env, home, configPath });
      for (const w of creds.warnings) warn(w);
      return {
        source: creds.source,
        detail: creds.sourceDetail,
        client_id: creds.clientId,
        client_secret: maskSecret(creds.clientSecret),
        ...(creds.projectId ? { project_id: creds.projectId } : {}),
        base_url: creds.baseUrl,
        auth_url: creds.authUrl,
      };
    } catch (err) {
      if (!(err instanceof NoCredentialsError)) throw err;
      const urls = resolveGpuCloudUrls(config, env);
      return { source: 'none', detail: `not found: ${err.message}`, hint: err.hint, base_url: urls.baseUrl, auth_url: urls.authUrl };
    }
  },
};
