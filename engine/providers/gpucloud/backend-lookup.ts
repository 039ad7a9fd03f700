/**
 * Step 4 of gpucloud's credential resolution (SPEC 5, credentials.ts): the OAuth client stored in the team's
 * credential backend under `gpucloud/default`, asked only when a backend API key is configured. The
 * backend's client is the core's (engine/core/config/backend-store.ts); what is stored is gpucloud's.
 */
import type { CredentialRecord } from '../../../schemas/backend-api.js';
import { BACKEND_ENV_VARS, BackendClient, DEFAULT_CREDENTIAL_NAME, resolveBackendSettings } from '../../core/config/backend-store.js';
import { AssistantError } from '../../core/errors.js';
import type { ResolveGpuCloudCredentialsOptions, SearchedPlace } from './credential-types.js';

const nonEmpty = (v: string | undefined | null): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * SPEC 5 step 4: the gpucloud credentials stored in the backend, when a backend API key is configured.
 * Returns what it found, or the place it searched and why nothing came of it (listed in `no_credentials`).
 */
export async function lookupGpuCloudInBackend(
  options: ResolveGpuCloudCredentialsOptions & { signal?: AbortSignal; debug?: (line: string) => void },
): Promise<{ clientId: string; clientSecret: string; projectId?: string; sourceDetail: string } | SearchedPlace> {
  const settings = resolveBackendSettings(options.config, options.env);
  const where = `backend credential store ${settings.url} (env ${settings.env}, gpucloud/${DEFAULT_CREDENTIAL_NAME})`;
  if (!settings.apiKey) return { source: 'backend', where: 'backend credential store', outcome: `no backend API key configured (${BACKEND_ENV_VARS.apiKey}, backend.api_key)` };
  const client = new BackendClient({ ...settings, apiKey: settings.apiKey }, { signal: options.signal, debug: options.debug });
  let record: CredentialRecord | undefined;
  try {
    record = await client.get('gpucloud', DEFAULT_CREDENTIAL_NAME);
  } catch (err) {
    // The command's deadline or Ctrl-C ends the command (exit 1 / 130); so do a refused transport and an
    // unreadable record. Anything else (unreachable, refused key) is one more place that had nothing.
    if (options.signal?.aborted) throw options.signal.reason ?? err;
    if (err instanceof AssistantError && err.code !== 'insecure_backend_url' && err.code !== 'decrypt_failed') return { source: 'backend', where, outcome: err.message };
    throw err;
  }
  if (!record) return { source: 'backend', where, outcome: 'nothing stored' };
  const id = nonEmpty(record.fields.client_id);
  const secret = nonEmpty(record.fields.client_secret);
  if (!id || !secret) return { source: 'backend', where, outcome: 'the stored record lacks client_id or client_secret' };
  return { clientId: id, clientSecret: secret, projectId: nonEmpty(record.fields.project_id), sourceDetail: `${settings.url}, env ${settings.env}, gpucloud/${DEFAULT_CREDENTIAL_NAME}` };
}
