/**
 * The last place an integration's credentials can come from: the team's credential backend
 * (`credentials store <provider>`), looked up only when config and environment have none, and only
 * when a backend API key is configured. Loaded lazily: a command that finds its token locally never
 * loads the backend client.
 */
import { AssistantError } from '../../errors.js';
import type { ConnectOptions } from '../../provider.js';

export interface StoredFields {
  fields: Record<string, string>;
  /** `backend https://… (env production, vps_a/default)`, for messages (never a value). */
  where: string;
}

/** The fields stored for `provider` under the default name, or undefined (no backend key, nothing stored, unreachable). */
export async function storedFields(provider: string, opts: Pick<ConnectOptions, 'config' | 'env' | 'signal' | 'debug'>): Promise<StoredFields | undefined> {
  const { resolveBackendSettings, BackendClient, DEFAULT_CREDENTIAL_NAME } = await import('../../config/backend-store.js');
  const settings = resolveBackendSettings(opts.config, opts.env);
  if (!settings.apiKey) return undefined;
  const where = `backend ${settings.url} (env ${settings.env}, ${provider}/${DEFAULT_CREDENTIAL_NAME})`;
  try {
    const record = await new BackendClient({ ...settings, apiKey: settings.apiKey }, { signal: opts.signal, debug: opts.debug }).get(provider, DEFAULT_CREDENTIAL_NAME);
    if (!record) return undefined;
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(record.fields)) if (typeof v === 'string' && v.trim()) fields[k] = v.trim();
    return { fields, where };
  } catch (err) {
    // The deadline, Ctrl-C and an unsafe or unreadable store end the command; an unreachable store is one more empty place.
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    if (err instanceof AssistantError && err.code !== 'insecure_backend_url' && err.code !== 'decrypt_failed') {
      opts.debug?.(`${provider}: the credential backend had nothing usable (${err.message})`);
      return undefined;
    }
    throw err;
  }
}
