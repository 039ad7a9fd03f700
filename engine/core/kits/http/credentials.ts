/**
 * Where an HTTP integration's token comes from, in the order every integration uses: the sandbox's
 * stand-in (when `--sandbox` started one), then `<section>.<key>` in the config, then its environment
 * variables, then the credential backend (`credentials store <provider>`, stored under `default`) when
 * a backend API key is configured. `credentials test` of what is stored (`backendOnly`) skips the local
 * sources. Values are registered as secrets as soon as they are read.
 */
import type { Config } from '../../../../schemas/config.js';
import type { ConnectOptions } from '../../provider.js';
import { registerSecret } from '../../redact.js';
import { fromConfigOrEnv } from './provider.js';
import { lookupStored } from './stored-credentials.js';

export interface TokenSpec {
  /** The provider's name, also its config section and its name in the backend store (`repohost`). */
  provider: string;
  /** The config key and backend field (`token`, `auth_token`). */
  key: string;
  /** The environment variables, in order (`REPOHOST_TOKEN`). */
  env: readonly string[];
}

export interface ResolvedToken {
  token?: string;
  /** Where it came from (`repohost.token in the config`, `REPOHOST_TOKEN`, `the credential backend …`), never the value. */
  source: string;
}

const secret = (v: string): string => (registerSecret(v), v);
const section = (config: Config, name: string): Record<string, unknown> => ((config as Record<string, unknown>)[name] as Record<string, unknown> | undefined) ?? {};

/** The token for a request, or `{ source: 'none' }` when no source has one. */
export async function resolveToken(spec: TokenSpec, opts: ConnectOptions): Promise<ResolvedToken> {
  const override = opts.override?.credentials[spec.key];
  if (override) return { token: secret(override), source: `the sandbox's local ${spec.provider} stand-in` };
  if (!opts.backendOnly) {
    const configured = section(opts.config, spec.provider)[spec.key];
    const found = fromConfigOrEnv(typeof configured === 'string' ? configured : undefined, opts.env, spec.env);
    if (found.value) return { token: secret(found.value), source: found.where === 'config' ? `${spec.provider}.${spec.key} in the config` : found.where! };
  }
  const stored = await fromBackend(spec, opts);
  if (stored) return stored;
  return { source: 'none' };
}

async function fromBackend(spec: TokenSpec, opts: ConnectOptions): Promise<ResolvedToken | undefined> {
  const stored = await lookupStored(spec.provider, opts, opts.backendOnly);
  const value = 'none' in stored ? undefined : stored.fields[spec.key];
  return value && !('none' in stored) ? { token: secret(value), source: `the credential backend (${stored.url}, env ${stored.env}, ${stored.record})` } : undefined;
}
