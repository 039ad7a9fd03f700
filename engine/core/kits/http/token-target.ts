/**
 * Where a token-authenticated integration (vps_a, vps_b) finds its API and token: `<name>.base_url`
 * or ASSISTANT_<NAME>_BASE_URL (else the public API), the token from `<name>.api_token`, then the
 * environment variable, then the credential backend (`credentials store <name>`). The sandbox's fake
 * overrides both. The same order is what the `credentials` capability lists.
 */
import type { Config } from '../../../../schemas/config.js';
import { UsageError } from '../../errors.js';
import type { ConnectOptions } from '../../provider.js';
import { baseUrlFor, fromConfigOrEnv, type HttpTarget } from './provider.js';
import { storedFields } from './stored-credentials.js';

export interface TokenTargetSpec {
  name: string;
  label: string;
  /** The token in the config section (`vps_a.api_token`). */
  configToken(config: Config): string | undefined;
  configBaseUrl(config: Config): string | undefined;
  envNames: readonly string[];
  defaultBaseUrl: string;
  /** The field `credentials store` keeps the token in. */
  storedField: string;
}

export async function tokenTarget(spec: TokenTargetSpec, opts: ConnectOptions): Promise<HttpTarget> {
  if (opts.override) {
    return { baseUrl: opts.override.baseUrl, headers: { authorization: `Bearer ${opts.override.credentials.token}` }, source: 'the sandbox fake', authenticated: true };
  }
  const baseUrl = baseUrlFor(spec.name, spec.configBaseUrl(opts.config), opts.env, spec.defaultBaseUrl);
  // `credentials test --backend`-style checks of what is stored skip the local sources.
  const local = opts.backendOnly ? {} : fromConfigOrEnv(spec.configToken(opts.config), opts.env, spec.envNames);
  let token = local.value;
  let source = local.where === 'config' ? `${spec.name}.api_token in the config file` : local.where;
  if (!token) {
    const stored = await storedFields(spec.name, opts);
    token = stored?.fields[spec.storedField];
    source = stored?.where;
  }
  if (!token) {
    throw new UsageError(`${spec.name}: no ${spec.label} token configured`, {
      hint: `set ${spec.name}.api_token in ~/.assistant.yaml or ${spec.envNames.join(' / ')} (or \`assistant credentials store ${spec.name}\`)`,
    });
  }
  return { baseUrl, headers: { authorization: `Bearer ${token}` }, source: source ?? 'unknown', authenticated: true };
}
