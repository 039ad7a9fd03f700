/**
 * The last place an integration's credentials can come from: the team's credential backend
 * (`credentials store <provider>`), looked up only when config and environment have none, and only
 * when a backend API key is configured. The one backend look-up every integration's token resolution
 * uses (credentials.ts, token-target.ts, token-integration.ts, cloud_d). Loaded lazily: a command that
 * finds its token locally never loads the backend client.
 */
import { AssistantError } from '../../errors.js';
import type { ConnectOptions } from '../../provider.js';

export interface StoredFields {
  fields: Record<string, string>;
  /** `backend https://… (env production, vps_a/default)`, for messages (never a value). */
  where: string;
  /** The backend's URL, environment and the record's `<provider>/<name>`, for callers that word `where` their own way. */
  url: string;
  env: string;
  record: string;
}

export type StoredLookup = StoredFields | { none: string };

type LookupOptions = Pick<ConnectOptions, 'config' | 'env' | 'signal' | 'debug' | 'timeoutMs'>;

/**
 * The fields stored for `provider` under the default name, or why there are none (no backend key,
 * nothing stored, an unreachable store). The deadline, Ctrl-C and an unsafe or unreadable store end
 * the command; with `strict` (a check of what is stored) any failure does.
 */
export async function lookupStored(provider: string, opts: LookupOptions, strict = false): Promise<StoredLookup> {
  const { resolveBackendSettings, BackendClient, DEFAULT_CREDENTIAL_NAME } = await import('../../config/backend-store.js');
  const settings = resolveBackendSettings(opts.config, opts.env);
  if (!settings.apiKey) return { none: 'no backend API key configured' };
  const record = `${provider}/${DEFAULT_CREDENTIAL_NAME}`;
  try {
    const found = await new BackendClient({ ...settings, apiKey: settings.apiKey }, { signal: opts.signal, debug: opts.debug, timeoutMs: opts.timeoutMs }).get(provider, DEFAULT_CREDENTIAL_NAME);
    if (!found) return { none: 'nothing stored' };
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(found.fields)) if (typeof v === 'string' && v.trim()) fields[k] = v.trim();
    return { fields, where: `backend ${settings.url} (env ${settings.env}, ${record})`, url: settings.url, env: settings.env, record };
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    if (!strict && err instanceof AssistantError && err.code !== 'insecure_backend_url' && err.code !== 'decrypt_failed') {
      opts.debug?.(`${provider}: the credential backend had nothing usable (${err.message})`);
      return { none: err.message };
    }
    throw err;
  }
}

/** The fields stored for `provider` under the default name, or undefined (no backend key, nothing stored, unreachable). */
export async function storedFields(provider: string, opts: LookupOptions): Promise<StoredFields | undefined> {
  const found = await lookupStored(provider, opts);
  return 'none' in found ? undefined : found;
}
