/**
 * A provider whose steps are requests to one HTTP JSON API (the integrations of SPEC 2.5: repohost,
 * errtracker, issuetracker, notes, appplatform, edge, vps_a, vps_b, cloud_d): one verb named
 * `<provider>-api`, args `["<provider>-api", METHOD, PATH, BODY?]`. A service supplies only what
 * differs: where its API is and how it authenticates, which requests only read, and how it pages.
 *
 * Default deny: a GET (or a request the service lists as a read, such as a search POST) is `read`;
 * anything else is `destroy` ("not known to be safe") and needs --destroyer. The client is bounded:
 * pages and bytes per step are capped (the result says when it was cut), 429 waits out Retry-After
 * under the command's deadline, 401/403 are clear errors, a plain-HTTP base URL to a non-loopback
 * host is refused while a token is configured, and redirects are not followed.
 */
import { abortReason } from '../../deadline.js';
import { OperationError, UsageError } from '../../errors.js';
import { registerSecret } from '../../redact.js';
import type { ArgProblem, ConnectOptions, Provider, StepClass, StepVerb } from '../../provider.js';
import type { ProviderCapabilities } from '../../capabilities.js';
import { PLACEHOLDER_PATTERN } from '../../../../schemas/plan.js';
import { hasPlaceholder, substituteBody } from '../../plan/bindings.js';
import { isLoopbackHost } from '../../loopback.js';
import { readBounded } from './body.js';
import { secretFetch, secretOrigins } from './secret-origins.js';
import { sleep } from './sleep.js';

/** Where the API is and how to reach it, resolved from config and environment when a step first needs it. */
export interface HttpTarget {
  baseUrl: string;
  /** Headers for every request (Authorization…); their values are registered as secrets. */
  headers: Record<string, string>;
  /** Where the settings came from, for `credentials test` and --debug (never a value). */
  source: string;
  /** Whether a secret travels with the requests (then plain HTTP off loopback is refused). */
  authenticated: boolean;
}

/** One page of a response and where the next one is. */
export interface Page {
  /** The items of this page (merged across pages), or the whole body when the response is not a list. */
  items?: unknown[];
  body: unknown;
  /** The next page's request: a path (GET) or a body for the same request (cursor POSTs). */
  next?: { path?: string; body?: string };
}

export interface HttpProviderSpec {
  name: string;
  /** The service's kind in words (`code host`), for messages. */
  label: string;
  /** Resolves base URL and auth (may look in the credential backend); throws a UsageError naming the config keys and variables when unset. */
  target(opts: ConnectOptions): HttpTarget | Promise<HttpTarget>;
  /**
   * Requests besides GET that only read: a search POST (`POST /v1/databases/{id}/query`), a GraphQL
   * `query` (never a `mutation`). Decided from the request as written; when unsure, answer false.
   */
  isRead?(method: string, path: string, body: string | undefined): boolean;
  /** Reads a page: its items and the next page, from body and headers (default: a JSON array, Link rel="next"). */
  page?(body: unknown, headers: Headers, request: { path: string; body?: string }): Page;
  /** Most pages a step follows (default 10) and most bytes it reads (default 5 MB). */
  maxPages?: number;
  maxBytes?: number;
  /**
   * What an error answer means when its status alone does not say (GraphQL APIs answer 400 with
   * `extensions.code: "RATELIMITED"` or an authentication error): then it is waited out or reported
   * like a 429 or a 401.
   */
  errorKind?(status: number, body: string): 'rate_limited' | 'unauthorized' | undefined;
  /** Extra checks of a request's args. */
  check?(method: string, path: string): ArgProblem[];
  capabilities?: ProviderCapabilities;
}

export interface HttpClient {
  request(method: string, path: string, body: string | undefined, signal: AbortSignal): Promise<{ status: number; data: unknown; truncated?: string }>;
}

const CREDENTIAL_HEADER = /auth|token|key|secret|cookie|session|password/i;
const MAX_RETRY_AFTER_S = 120;

/** The default pager: a JSON array body, the next page in `Link: <…>; rel="next"` (GitHub, DigitalOcean-style). */
export function linkHeaderPage(body: unknown, headers: Headers): Page {
  const link = headers.get('link') ?? '';
  const next = /<([^>]+)>;\s*rel="?next"?/i.exec(link)?.[1];
  return { items: Array.isArray(body) ? body : undefined, body, next: next ? { path: next } : undefined };
}

/**
 * A step's path under the base URL, keeping the base's own path (GitHub Enterprise's `/api/v3`);
 * an absolute URL (a next-page link) stays as it is, and its origin is checked by the caller.
 */
export function resolveUrl(path: string, base: URL): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) return new URL(path, base);
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${prefix}${path.startsWith('/') ? '' : '/'}${path}`, base.origin);
}

function checkBase(spec: HttpProviderSpec, target: HttpTarget): URL {
  let url: URL;
  try {
    url = new URL(target.baseUrl);
  } catch {
    throw new UsageError(`${spec.name}: base_url "${target.baseUrl}" is not a URL`, { hint: `set ${spec.name}.base_url (or ASSISTANT_${spec.name.toUpperCase()}_BASE_URL) to https://…` });
  }
  if (url.protocol === 'http:' && target.authenticated && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${spec.name}: base_url ${url.origin} is plain HTTP to another host, and a token is configured: it would travel in clear; nothing was sent`, {
      hint: `use https:// for ${spec.name}.base_url (plain http is allowed only to this machine)`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${spec.name}: base_url must be http(s) (got ${url.protocol})`);
  return url;
}

/**
 * How long a rate-limited answer asks to wait (s), or undefined when the answer is not a rate limit:
 * a 429 (Retry-After, else 1 s), or a 403 that carries Retry-After or an exhausted
 * `x-ratelimit-remaining: 0` with its reset time (GitHub's primary and secondary limits).
 */
function rateLimitWait(res: Response, known = false, attempt = 0): number | undefined {
  if (!known && res.status !== 429 && res.status !== 403) return undefined;
  const after = res.headers.get('retry-after');
  if (after !== null && after.trim() !== '') {
    const s = Number(after);
    if (Number.isFinite(s) && s >= 0) return s;
    const at = Date.parse(after); // Retry-After may be an HTTP date
    if (Number.isFinite(at)) return Math.max(0, (at - Date.now()) / 1000);
  }
  if (res.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset - Date.now() / 1000);
  }
  // No Retry-After (DigitalOcean-style APIs send ratelimit-reset instead): back off 1, 2, 4 s.
  return res.status === 429 || known ? 2 ** attempt : undefined;
}

/** The server's own short error message (`{"message": "Bad credentials"}`, `{"detail": …}`, GraphQL `errors`), for error lines. */
function serverMessage(text: string): string {
  let msg: unknown;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const first = Array.isArray(body.errors) ? (body.errors[0] as Record<string, unknown> | undefined) : undefined;
    msg = body.message ?? body.detail ?? body.error_description ?? first?.message ?? body.error;
  } catch {
    return '';
  }
  return typeof msg === 'string' && msg.trim() ? `: ${msg.trim().slice(0, 160).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')}` : '';
}

/** The client: one request, pages followed and bounded, 429 waited out, errors made clear. */
export function httpClient(spec: HttpProviderSpec, target: HttpTarget, opts: { timeoutMs?: number; debug?: (line: string) => void; fetch?: typeof fetch } = {}): HttpClient {
  const base = checkBase(spec, target);
  // Credential headers are secrets; the others (`accept`, `x-github-api-version: 2022-11-28`) are not,
  // or every date and media type equal to one would be masked in every output.
  for (const [name, v] of Object.entries(target.headers)) if (CREDENTIAL_HEADER.test(name)) registerSecret(v.replace(/^(Bearer|Basic|token)\s+/i, ''));
  const maxPages = spec.maxPages ?? 10;
  const maxBytes = spec.maxBytes ?? 5 * 1024 * 1024;
  const pager = spec.page ?? ((b: unknown, h: Headers) => linkHeaderPage(b, h));
  // The token goes only to the API's own origin (engine/core/kits/http/secret-origins.ts); the checks
  // below say more precisely why a next page or a redirect is not followed.
  const doFetch = target.authenticated ? secretFetch(secretOrigins(`the ${spec.label} token`, [base], { setting: `${spec.name}.base_url` }), opts.fetch ?? fetch) : (opts.fetch ?? fetch);

  async function once(method: string, path: string, body: string | undefined, signal: AbortSignal, budget: { bytes: number }): Promise<{ status: number; headers: Headers; data: unknown; cut?: boolean }> {
    const url = resolveUrl(path, base);
    // A next-page link must stay on the API's origin: a hostile server cannot send the token elsewhere.
    if (url.origin !== base.origin) throw new OperationError('http_redirect_refused', `${spec.name}: the server pointed to ${url.origin}, another origin than ${base.origin}; not followed`);
    for (let attempt = 0; ; attempt++) {
      const perRequest = AbortSignal.any([signal, AbortSignal.timeout(opts.timeoutMs ?? 30_000)]);
      opts.debug?.(`${spec.name}: ${method} ${url.pathname}${url.search}`);
      let res: Response;
      try {
        res = await doFetch(url, { method, headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...target.headers }, body, signal: perRequest, redirect: 'manual' });
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw new OperationError('http_unreachable', `${spec.name}: ${url.origin} did not answer (${(err as Error).message})`, { hint: `check ${spec.name}.base_url and the network` });
      }
      const waitOut = async (waitS: number) => {
        if (waitS > MAX_RETRY_AFTER_S) {
          throw new OperationError('rate_limited', `${spec.name}: rate limited; the server asks to wait ${Math.ceil(waitS)} s, longer than ${MAX_RETRY_AFTER_S} s`, { hint: 'try again later' });
        }
        if (attempt >= 3) throw new OperationError('rate_limited', `${spec.name}: still rate limited after waiting three times`, { hint: 'try again later' });
        opts.debug?.(`${spec.name}: rate limited; waiting ${waitS} s (Retry-After)`);
        await sleep(waitS * 1000, signal);
      };
      const waitS = rateLimitWait(res, false, attempt);
      if (waitS !== undefined) {
        await res.body?.cancel();
        await waitOut(waitS);
        continue;
      }
      const { text, cut } = await readBounded(res, budget, (err) => {
        // The body stalled or broke: the command's deadline says why, else it is this server's fault.
        if (signal.aborted) throw abortReason(signal);
        throw new OperationError('http_unreachable', `${spec.name}: ${url.origin} stopped answering in the middle of a response (${err.message})`, { hint: `check ${spec.name}.base_url and the network` });
      });
      // A service that says "rate limited" or "not authenticated" in its body (GraphQL APIs answer 400).
      const kind = res.status >= 400 && !cut ? spec.errorKind?.(res.status, text) : undefined;
      if (kind === 'rate_limited') {
        await waitOut(rateLimitWait(res, true, attempt) ?? 1);
        continue;
      }
      if (res.status === 401 || res.status === 403 || kind === 'unauthorized') {
        const why = !target.authenticated ? 'needs a token, and none is configured' : res.status === 401 || kind === 'unauthorized' ? 'the token was not accepted' : 'the token may not read this';
        throw new OperationError('unauthorized', `${spec.name}: ${res.status} ${why} (${url.pathname})${serverMessage(text)}`, {
          hint: target.authenticated ? `check the ${spec.label} token (${target.source}); \`assistant credentials test ${spec.name}\` checks it` : `configure a ${spec.label} token (${target.source})`,
        });
      }
      if (res.status >= 300 && res.status < 400) throw new OperationError('http_redirect_refused', `${spec.name}: the server answered ${res.status} (a redirect); redirects are not followed`, { hint: `set ${spec.name}.base_url to the API's own address` });
      if (res.status >= 400) {
        throw Object.assign(new OperationError('http_error', `${spec.name}: ${method} ${url.pathname} answered ${res.status}${serverMessage(text) || (text.trim() ? `: ${text.slice(0, 200).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')}` : '')}`), { status: res.status });
      }
      if (cut) return { status: res.status, headers: res.headers, data: undefined, cut };
      let data: unknown = text;
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        /* a text answer stays text */
      }
      return { status: res.status, headers: res.headers, data };
    }
  }

  return {
    async request(method, path, body, signal) {
      const budget = { bytes: maxBytes };
      const first = await once(method, path, body, signal, budget);
      if (first.cut) return { status: first.status, data: null, truncated: `the answer was larger than ${maxBytes} bytes and was not read` };
      let page = pager(first.data, first.headers, { path, body });
      if (!page.items) return { status: first.status, data: page.body };
      const items = [...page.items];
      let pages = 1;
      let truncated: string | undefined;
      while (page.next) {
        if (pages >= maxPages) {
          truncated = `only the first ${maxPages} pages (${items.length} items) were read`;
          break;
        }
        const next = await once(page.next.body !== undefined ? method : 'GET', page.next.path ?? path, page.next.body ?? (page.next.path ? undefined : body), signal, budget);
        if (next.cut) {
          truncated = `stopped at ${maxBytes} bytes (${items.length} items read)`;
          break;
        }
        page = pager(next.data, next.headers, { path: page.next.path ?? path, body: page.next.body });
        items.push(...(page.items ?? []));
        pages++;
      }
      return { status: first.status, data: items, truncated };
    },
  };
}

/** ` (query OpenIssues)`: a GraphQL request's first operation, so progress and --debug say what it reads. */
function operationOf(body: string | undefined): string {
  try {
    const query = (JSON.parse(body ?? '') as { query?: unknown }).query;
    if (typeof query !== 'string') return '';
    const m = /^\s*(?:#[^\n]*\n\s*)*(query|mutation|subscription)?\s*([A-Za-z_]\w*)?/.exec(query);
    return ` (${m?.[1] ?? 'query'}${m?.[2] ? ` ${m[2]}` : ''})`;
  } catch {
    return '';
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function requestArgs(args: readonly string[]): { method: string; path: string; body?: string } {
  return { method: (args[1] ?? '').toUpperCase(), path: args[2] ?? '', body: args[3] };
}

/** The step verb `<name>-api`: classified by method (GET and the listed read POSTs read; the rest destroy). */
export function httpVerb(spec: HttpProviderSpec): StepVerb<HttpClient> {
  const verb = `${spec.name.replace(/_/g, '-')}-api`;
  return {
    verb,
    checkArgs(args) {
      const problems: ArgProblem[] = [];
      const { method, path, body } = requestArgs(args);
      if (args.length < 3 || args.length > 4) problems.push({ field: 'args', message: `${verb} steps are ["${verb}", METHOD, PATH, BODY?]` });
      if (!/^(GET|HEAD|POST|PUT|PATCH|DELETE)$/.test(method) && !hasPlaceholder(method)) problems.push({ field: 'args[1]', message: `unknown HTTP method "${args[1]}"` });
      if (!path.startsWith('/') || path.startsWith('//')) problems.push({ field: 'args[2]', message: 'the path must start with one / (the base URL comes from the config)' });
      if (/[\u0000-\u001f\u007f]/.test(path)) problems.push({ field: 'args[2]', message: 'a control character in the path' });
      // `..` (or `%2e%2e`) would move the request to another path of the API than the one written.
      if (/(^|\/)(\.|%2e){1,2}(\/|\?|#|$)/i.test(path.split('?')[0]!)) problems.push({ field: 'args[2]', message: 'a "." or ".." segment in the path' });
      if (body !== undefined) {
        // Placeholders live inside JSON strings (substituteBody escapes the value), so the body as written parses.
        if (!parses(body) && !parses(body.replace(PLACEHOLDER_PATTERN, '"x"'))) problems.push({ field: 'args[3]', message: 'the body is not JSON' });
      }
      problems.push(...(spec.check?.(method, path) ?? []));
      return problems;
    },
    classify(args): StepClass {
      const { method, path, body } = requestArgs(args);
      if (method === 'GET' || method === 'HEAD') return { effect: 'read', reasons: [] };
      if (spec.isRead?.(method, path, body)) return { effect: 'read', reasons: [] };
      return { effect: 'destroy', reasons: [`${method} ${path}: not known to be safe (${spec.name} steps only read without --destroyer)`] };
    },
    substitute(args, bindings) {
      return args.map((a, i) => (i === 3 ? substituteBody(a, bindings) : i === 2 ? a.replace(PLACEHOLDER_PATTERN, (w, n: string) => (n in bindings ? encodeURIComponent(bindings[n]!) : w)) : a));
    },
    async run(args, ctx) {
      const { method, path, body } = requestArgs(args);
      const client = await ctx.client();
      const out = await client.request(method, path, body, ctx.signal);
      if (out.truncated) ctx.waiting({ reason: 'retry', waitMs: 0, message: `${spec.name}: ${out.truncated}` });
      return { status: out.status, data: out.truncated ? { items: out.data, truncated: out.truncated } : out.data };
    },
    describe: (args) => {
      const { method, path, body } = requestArgs(args);
      return `${spec.name} ${method} ${path}${operationOf(body)}`;
    },
    detail: (args) => {
      const body = requestArgs(args).body;
      if (body === undefined) return undefined;
      try {
        return JSON.parse(body) as unknown;
      } catch {
        return body;
      }
    },
  };
}

export function httpProvider(spec: HttpProviderSpec): Provider<HttpClient> {
  return {
    name: spec.name,
    verbs: [httpVerb(spec)],
    capabilities: spec.capabilities,
    async connect(opts) {
      const target = await spec.target(opts);
      opts.debug?.(`${spec.name}: ${target.baseUrl} (settings from ${target.source})`);
      return { client: httpClient(spec, target, { timeoutMs: opts.timeoutMs, debug: opts.debug }), source: target.source };
    },
  };
}

/** A config value, else the first environment variable set: the usual order of an integration's keys. */
export function fromConfigOrEnv(value: string | undefined, env: Record<string, string | undefined>, names: readonly string[]): { value?: string; where?: string } {
  if (value?.trim()) return { value: value.trim(), where: 'config' };
  for (const n of names) if (env[n]?.trim()) return { value: env[n]!.trim(), where: n };
  return {};
}

/** `<section>.base_url`, else ASSISTANT_<SECTION>_BASE_URL, else the service's public default. */
export function baseUrlFor(name: string, configured: string | undefined, env: Record<string, string | undefined>, fallback: string): string {
  return (configured?.trim() || env[`ASSISTANT_${name.toUpperCase()}_BASE_URL`]?.trim() || fallback).replace(/\/+$/, '');
}

