/**
 * Where a token-authenticated integration (vps_a, vps_b) finds its API and token: `<name>.base_url`
 * or ASSISTANT_<NAME>_BASE_URL (else the public API), the token from `<name>.api_token`, then the
 * environment variable, then the credential backend (`credentials store <name>`). The sandbox's fake
 * overrides both. The same order is what the `credentials` capability lists.
 *
 * Such an integration is one spec (`tokenApiProvider`): its token, how its lists page, its catalogue of
 * reads, a cheap read that proves a token works and its local fake; the provider is built from it.
 */
import type { Config } from '../../../../schemas/config.js';
import type { CredentialsCapability } from '../../capabilities.js';
import { UsageError } from '../../errors.js';
import type { ConnectOptions, Provider } from '../../provider.js';
import { apiCapabilities, type ApiCapabilitySpec } from './api-reads.js';
import { baseUrlFor, fromConfigOrEnv, httpProvider, type HttpClient, type HttpProviderSpec, type HttpTarget } from './provider.js';
import { storedFields } from './stored-credentials.js';
import { fakeSandbox, tokenCredentials } from './token-integration.js';

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

export interface TokenApiSpec extends Pick<HttpProviderSpec, 'page' | 'maxPages'> {
  token: TokenTargetSpec;
  /** What questions it answers and from which reads (the provider's name routes to it). */
  reads: Omit<ApiCapabilitySpec, 'provider'>;
  /** What the token is called (`vps_a API token`) and a cheap read that proves it works (`credentials test`). */
  credentials: { what: string; test: CredentialsCapability['test'] };
  /** Starts the integration's local fake (`--sandbox`), loaded only when asked for. */
  fake(): Promise<{ url: string; token: string; close(): Promise<void> }>;
}

/** The provider of a token-authenticated HTTP JSON API: the toolkit's verb and client, its reads, credentials and sandbox. */
export function tokenApiProvider(spec: TokenApiSpec): Provider<HttpClient> {
  const { name, label, envNames, storedField } = spec.token;
  return httpProvider({
    name,
    label,
    target: (opts) => tokenTarget(spec.token, opts),
    page: spec.page,
    maxPages: spec.maxPages,
    capabilities: {
      ...apiCapabilities({ provider: name, ...spec.reads }),
      credentials: tokenCredentials({ name, tokenKey: storedField, envNames }, { title: name, what: spec.credentials.what }, spec.credentials.test),
      sandbox: fakeSandbox(spec.fake),
    },
  });
}
