/**
 * An HTTP integration authenticated by one API token (notes, appplatform, edge): where the token comes
 * from, in order — the config section's key, its environment variables, then the credential backend
 * (`credentials store <name>`) — and the `credentials` and `sandbox` capabilities that follow from that.
 * The HTTP itself is the shared toolkit's (engine/core/kits/http/provider.ts); this only resolves the target.
 */
import type { Config } from '../../../../schemas/config.js';
import type { CredentialsCapability, SandboxCapability } from '../../capabilities.js';
import { sectionCredentials, tokenField } from '../../credential-sources.js';
import { UsageError } from '../../errors.js';
import type { ConnectOptions, Provider } from '../../provider.js';
import { registerSecret } from '../../redact.js';
import type { Plan } from '../../../../schemas/plan.js';
import { lookupStored } from './stored-credentials.js';
import { baseUrlFor, fromConfigOrEnv, httpClient, httpProvider, type HttpClient, type HttpProviderSpec, type HttpTarget } from './provider.js';

export interface TokenIntegrationSpec extends Omit<HttpProviderSpec, 'target' | 'name'> {
  name: string;
  /** The section's token key (`integration_token`). */
  tokenKey: string;
  /** The token and base URL as configured; by default `<name>.<tokenKey>` and `<name>.base_url`. */
  section?(config: Config): { token?: string; base_url?: string } | undefined;
  /** Environment variables holding the token, in order. */
  envNames: readonly string[];
  defaultBaseUrl: string;
  /** The request headers that carry the token (and any fixed header such as an API version); by default a bearer token. */
  headers?(token: string): Record<string, string>;
}

/** The configured token and base URL: the spec's own reading, or `<name>.<tokenKey>` and `<name>.base_url`. */
function sectionOf(spec: Pick<TokenIntegrationSpec, 'name' | 'tokenKey' | 'section'>, config: Config): { token?: string; base_url?: string } | undefined {
  if (spec.section) return spec.section(config);
  const section = (config as Record<string, unknown>)[spec.name] as Record<string, unknown> | undefined;
  if (!section) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { token: text(section[spec.tokenKey]), base_url: text(section.base_url) };
}

/** The next page's request: the same path with one query parameter set (`page`, `start_cursor`, `until`). */
export function nextWithParam(path: string, name: string, value: string): { path: string } {
  const url = new URL(path, 'http://x');
  url.searchParams.set(name, value);
  return { path: url.pathname + url.search };
}

type Token = { value: string; where: string };

/** The token from the config section or the environment (not the backend: that needs the network). */
function localToken(spec: TokenIntegrationSpec, opts: Pick<ConnectOptions, 'config' | 'env'>): Token | undefined {
  const found = fromConfigOrEnv(sectionOf(spec, opts.config)?.token, opts.env, spec.envNames);
  if (!found.value) return undefined;
  return { value: found.value, where: found.where === 'config' ? `${spec.name}.${spec.tokenKey} in the config file` : found.where! };
}

/** The token stored in the credential backend under `<name>/default`, or why there is none. */
async function backendToken(spec: TokenIntegrationSpec, opts: ConnectOptions): Promise<Token | string> {
  const stored = await lookupStored(spec.name, opts);
  if ('none' in stored) return stored.none;
  const value = stored.fields[spec.tokenKey];
  return value ? { value, where: `the backend credential store (${stored.record})` } : 'nothing stored';
}

function target(spec: TokenIntegrationSpec, opts: ConnectOptions, token: Token): HttpTarget {
  registerSecret(token.value);
  // A pasted line break or a smart quote would fail inside fetch as "did not answer": say what it is.
  if (!/^[\x21-\x7e]+$/.test(token.value)) {
    throw new UsageError(`${spec.name}: the token from ${token.where} has a character a token cannot have (a space, a line break or a non-ASCII letter); nothing was sent`, {
      hint: `copy the ${spec.label} token again into ${token.where}`,
    });
  }
  return {
    baseUrl: baseUrlFor(spec.name, sectionOf(spec, opts.config)?.base_url, opts.env, spec.defaultBaseUrl),
    headers: spec.headers ? spec.headers(token.value) : { authorization: `Bearer ${token.value}` },
    source: token.where,
    authenticated: true,
  };
}

/** The provider: the toolkit's verb and client, with the token found in config, environment or backend (or the sandbox fake's). */
export function tokenHttpProvider(spec: TokenIntegrationSpec): Provider<HttpClient> {
  const missing = (why?: string) =>
    new UsageError(`${spec.name}: no ${spec.label} token: set ${spec.name}.${spec.tokenKey} or ${spec.envNames.join(' / ')}${why ? ` (backend: ${why})` : ''}`, {
      hint: `or \`assistant credentials store ${spec.name}\`; \`assistant --sandbox ask --${spec.name} …\` tries the local fake`,
    });
  const httpSpec: HttpProviderSpec = {
    ...spec,
    target(opts) {
      const token = opts.override?.credentials.token ? { value: opts.override.credentials.token, where: `the sandbox fake (${opts.override.baseUrl})` } : localToken(spec, opts);
      if (!token) throw missing();
      return opts.override ? { ...target(spec, opts, token), baseUrl: opts.override.baseUrl } : target(spec, opts, token);
    },
  };
  const base = httpProvider(httpSpec);
  return {
    ...base,
    async connect(opts) {
      let t: HttpTarget;
      if (opts.override || (!opts.backendOnly && localToken(spec, opts))) t = await httpSpec.target(opts);
      else {
        const found = await backendToken(spec, opts);
        if (typeof found === 'string') throw missing(found);
        t = target(spec, opts, found);
      }
      opts.debug?.(`${spec.name}: ${t.baseUrl} (token from ${t.source})`);
      return { client: httpClient(httpSpec, t, { timeoutMs: opts.timeoutMs, debug: opts.debug }), source: t.source };
    },
  };
}

/**
 * Where the token is looked for (the section's key, then its environment variables; names only), what the
 * backend stores (the token, `credentials store <name> --<token-key>`), and a cheap read that proves it works.
 */
export function tokenCredentials(
  spec: Pick<TokenIntegrationSpec, 'name' | 'tokenKey' | 'envNames'>,
  about: { title: string; what: string },
  test: CredentialsCapability['test'],
): CredentialsCapability {
  return {
    ...sectionCredentials({ provider: spec.name, title: about.title, section: spec.name, keys: [spec.tokenKey], envFamilies: spec.envNames.map((n) => [n]) }),
    what: about.what,
    fields: [tokenField(spec.tokenKey, about.what)],
    test,
  };
}

/** The sandbox: the integration's local fake with its seeded data and its own token (under `key`, `token` by default). */
export function fakeSandbox(start: () => Promise<{ url: string; token: string; close(): Promise<void> }>, key = 'token'): SandboxCapability {
  return {
    async start() {
      const fake = await start();
      return { baseUrl: fake.url, credentials: { [key]: fake.token }, close: () => fake.close() };
    },
  };
}

/** A one-step read plan (for `credentials test`). */
export function oneRead(provider: string, args: string[], reason: string): Plan {
  return { version: 1, provider, commands: [{ args, reason }] };
}
