/**
 * The plan backend of the console's reads (the live page, the drift page): the one executor, with each
 * provider's client built from the signed-in tenant's stored record for the env shown
 * (ConnectOptions.stored), lazily — a record is decrypted only when a read needs that provider — and
 * closed with the page. The cloud's URL is the server's configuration, never the tenant's. Only read
 * plans run through it (machines/apply/reads.ts refuses any other step before anything is sent).
 */
import { AssistantError, OperationError } from '../../engine/core/errors.js';
import { redactText } from '../../engine/core/redact.js';
import type { ProviderClient } from '../../engine/core/provider.js';
import { PROVIDERS } from '../../engine/providers/index.js';
import type { Config } from '../../schemas/config.js';
import type { PlanBackend } from '../../machines/run/run-plan.js';

/** How the console reaches the clouds: the server's configuration and environment, and its bounds. */
export interface ReachSettings {
  /** The server's configuration and environment: the clouds' URLs (GPUCLOUD_BASE_URL, gpucloud.base_url). */
  config: Config;
  env: Record<string, string | undefined>;
  home: string;
  /** The bound on one read (the live page: one provider's whole read; the drift page: each list). */
  timeoutMs: number;
}

/** No record is stored for this provider in the tenant's env: the console cannot read that account. */
export class NoStoredCredentials extends OperationError {
  constructor(readonly provider: string) {
    super('no_credentials', `no ${provider} credentials are stored for this env`);
  }
}

/**
 * A provider's stored fields, or undefined when none are stored (NoStoredCredentials for the read that
 * needed them). May throw for a provider the caller does not allow.
 */
export type StoredFields = (provider: string) => Promise<Record<string, string> | undefined>;

export function storedBackend(fieldsOf: StoredFields, s: ReachSettings, signal: AbortSignal, predefined: Record<string, string> = {}): PlanBackend & { close(): Promise<void> } {
  const connected = new Map<string, Promise<ProviderClient<unknown>>>();
  const connect = (name: string): Promise<ProviderClient<unknown>> => {
    let client = connected.get(name);
    if (!client) {
      client = (async () => {
        const fields = await fieldsOf(name);
        if (!fields) throw new NoStoredCredentials(name);
        return (await PROVIDERS.load([name])).provider(name)!.connect({ config: s.config, env: s.env, home: s.home, stored: fields, timeoutMs: s.timeoutMs, signal });
      })();
      connected.set(name, client);
    }
    return client;
  };
  return {
    providers: PROVIDERS,
    predefined,
    runContext: () => ({ client: async (name: string) => (await connect(name)).client, signal }),
    close: async () => {
      await Promise.all([...connected.values()].map(async (c) => (await c.catch(() => undefined))?.close?.({ processEnding: false })));
    },
  };
}

/** One line for the page: the error's code and message, masked (a secret never reaches the page). */
export function readFailure(err: unknown, timedOut: boolean, timeoutMs: number): { code: string; message: string } {
  if (timedOut) return { code: 'timeout', message: `the cloud did not answer within ${Math.round(timeoutMs / 1000)} s` };
  if (err instanceof AssistantError) return { code: err.code, message: redactText(err.message) };
  return { code: 'failed', message: redactText(err instanceof Error ? err.message : String(err)) };
}
