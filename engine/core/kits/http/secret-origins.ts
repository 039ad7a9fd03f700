/**
 * A secret belongs to its host (DESIGN §8). Every credential this tool sends over HTTP — the gpucloud
 * client secret and its tokens, the AI providers' keys, the integrations' tokens, the backend key —
 * carries the origins it may go to (its provider's base URL, or the URL the user configured), and this
 * is the one layer that sends it: `secretFetch` refuses a request to any other origin before a byte
 * leaves, and never follows a redirect (a 3xx comes back to the caller as it is, so a server cannot
 * pass the credential on to another host, or to the same host over plain http).
 *
 * Origins are compared in their canonical form (WHATWG URL `origin`: scheme, lower-case punycode host,
 * default port dropped), so `HTTPS://API.Example.com:443/` is `https://api.example.com`, a look-alike
 * written in another script is its own `xn--…` host, and `https://api.example.com@evil/` is `evil`.
 * Plain http is refused except to this machine's loopback (engine/core/loopback.ts).
 */
import { AssistantError, ExitCode, InvalidInputError } from '../../errors.js';
import { isLoopbackHost } from '../../loopback.js';

export interface SecretOrigins {
  /** What the secret is, for messages: `the gpucloud credentials`, `the openai API key`. Never the value. */
  what: string;
  /** Canonical origins (`https://api.example.com`) the secret may be sent to. */
  origins: readonly string[];
}

/** A request that would have carried a secret to an origin not its own: nothing was sent (exit 3). */
export class SecretOriginRefused extends AssistantError {
  constructor(what: string, origin: string, allowed: readonly string[]) {
    super('secret_origin_refused', `${what} may be sent only to ${allowed.join(', ')}, not to ${origin}; nothing was sent`, ExitCode.refused, {
      hint: 'a credential goes only to its own provider: configure the base URL of the service it belongs to',
    });
  }
}

function parse(url: string | URL, what: string, setting?: string): URL {
  try {
    return url instanceof URL ? url : new URL(url);
  } catch {
    throw new InvalidInputError('invalid_config', `${setting ?? 'the URL'} for ${what} is not a URL: "${String(url)}"`);
  }
}

/** Whether a secret may travel to this URL at all: https anywhere, plain http only to this machine. */
export function carriesSecretsSafely(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/**
 * The origins of a secret. Each URL must be https, or http to this machine's loopback; otherwise the
 * secret would cross the network in clear, which is refused here (exit 2), before anything is sent.
 */
export function secretOrigins(what: string, urls: readonly (string | URL)[], opts: { setting?: string; hint?: string } = {}): SecretOrigins {
  const origins = new Set<string>();
  for (const raw of urls) {
    const url = parse(raw, what, opts.setting);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError('invalid_config', `${opts.setting ?? 'the URL'} for ${what} must be http(s) (got ${url.protocol})`);
    if (!carriesSecretsSafely(url)) {
      throw new InvalidInputError('insecure_url', `${what} would travel in clear to ${url.origin} (plain http to another host); nothing was sent`, {
        hint: opts.hint ?? `use https://${url.host}${opts.setting ? ` in ${opts.setting}` : ''} (plain http is allowed only to this machine)`,
      });
    }
    origins.add(url.origin);
  }
  return { what, origins: [...origins] };
}

export function mayCarry(secret: SecretOrigins, url: string | URL): boolean {
  let u: URL;
  try {
    u = url instanceof URL ? url : new URL(url);
  } catch {
    return false;
  }
  return secret.origins.includes(u.origin) && carriesSecretsSafely(u);
}

/** Throws SecretOriginRefused unless `url` is one of the secret's origins. */
export function refuseElsewhere(secret: SecretOrigins, url: string | URL): void {
  if (mayCarry(secret, url)) return;
  let origin: string;
  try {
    origin = (url instanceof URL ? url : new URL(url)).origin;
  } catch {
    origin = 'an unparsable URL';
  }
  throw new SecretOriginRefused(secret.what, origin, secret.origins);
}

function urlOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return String((input as { url?: unknown }).url);
}

/** Any fetch-shaped function: the global fetch, an SDK's, the sandbox's in-process one. */
type Fetcher = (input: never, init: never) => Promise<unknown>;

/**
 * `fetch` for requests that carry the secret: each request's URL is checked against its origins
 * before it is sent, and redirects are never followed. Give it to SDKs as their `fetch`.
 */
export function secretFetch<F extends Fetcher = typeof fetch>(secret: SecretOrigins, inner?: F): F {
  const send = (inner ?? fetch) as unknown as (input: unknown, init: RequestInit) => Promise<unknown>;
  const allowed = new AllowedUrls();
  const bound = (input: unknown, init?: RequestInit): Promise<unknown> => {
    const url = urlOf(input);
    if (!allowed.has(url)) {
      try {
        refuseElsewhere(secret, url);
      } catch (err) {
        return Promise.reject(err);
      }
      allowed.add(url);
    }
    return send(input, { ...init, redirect: 'manual' });
  };
  return bound as unknown as F;
}

/**
 * URLs already let through, exactly as written: the verdict is a function of the URL text alone (its
 * WHATWG parse), so the same text gets the same verdict without parsing it again. A client sends the
 * same few URLs over and over (every MCP list is one GET of the same path), and the parse was ~3% of a
 * list call's own work (issue 40 item 3). Only allowed URLs are kept, at most MAX of them (then it starts
 * over), so a refused URL is parsed and refused every time, and memory stays bounded.
 */
class AllowedUrls {
  private static readonly MAX = 256;
  private readonly urls = new Set<string>();

  has(url: string): boolean {
    return this.urls.has(url);
  }

  add(url: string): void {
    if (this.urls.size >= AllowedUrls.MAX) this.urls.clear();
    this.urls.add(url);
  }
}
