/**
 * The gpucloud HTTP client: the one place that talks to the REST API (DESIGN.md §1).
 *
 * One request goes through these layers, outermost first:
 *   create de-duplication (dedupe.ts) → 5xx/network schedule (retry.ts, SPEC 7.4) →
 *   401 re-authentication once and 429 Retry-After waits (here) → token (auth.ts) →
 *   sliding-window rate limiter (rate-limiter.ts, then the record shared by every process of the project,
 *   limits/shared.ts) → one HTTP exchange (Node's own fetch) → body decoding (response.ts).
 * Node's fetch rather than ofetch: every request here already sets its own method, headers, body,
 * timeout, redirect policy and status handling, so ofetch added nothing but 6 modules (~28 ms) to start-up.
 * Debug lines and events never carry the client secret or a token (redact.ts).
 */
import { normaliseBaseUrl } from './credentials.js';
import { InvalidInputError, isAbortError, OperationError } from '../../core/errors.js';
import { assistantVersion } from '../../core/version.js';
import { redactText } from '../../core/redact.js';
import { SecretOriginRefused, secretFetch, secretOrigins } from '../../core/kits/http/secret-origins.js';
import { TokenManager, type Grant } from './auth.js';
import { normalizeApiPath } from './catalogue.js';
import { createDedupeFor, type CreateDedupe } from './dedupe.js';
import { GpuCloudError, NetworkError } from './errors.js';
import { LayeredLimiter, SharedLimiter, limitNamespace, type RequestLimiter } from './limits/shared.js';
import { SlidingWindowLimiter, type Slot } from './rate-limiter.js';
import { assertAllSucceeded, decodeBody, errorFromResponse, headersToRecord } from './response.js';
import { abortError, final, isAmbiguous, networkCode, parseRetryAfter, retrySchedule, sleep } from './retry.js';
import { TokenFileCache } from './token-cache.js';
import {
  DEFAULT_RATE_LIMIT,
  DEFAULT_RETRY,
  type ClientEvent,
  type WaitEvent,
  type GpuCloudClient,
  type GpuCloudClientOptions,
  type GpuCloudRequest,
  type GpuCloudResponse,
  type RateLimitSettings,
  type RetrySettings,
} from './types.js';
import { waitNotice } from './types.js';
import type { FetchLike, WaitNotice } from '../../core/provider.js';

/** Requests in flight at once; bounds open sockets however generous the rate limits are. */
const DEFAULT_MAX_CONCURRENT = 32;

export type GpuCloudClientStats = GpuCloudClient['stats'];

/** The origin without a trailing `/` or `/v1` (DESIGN.md §2: a trailing /v1 is tolerated), checked to be http(s). */
export function normalizeBaseUrl(baseUrl: string): string {
  const base = normaliseBaseUrl(baseUrl);
  try {
    const u = new URL(base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new InvalidInputError('invalid_config', `gpucloud base URL is not an http(s) URL: ${baseUrl}`);
  }
  return base;
}

/** The low-level code of a fetch failure (undici nests it in `cause`). */
function failureCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e; depth++) {
    const o = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && o.code) return o.code;
    if (typeof o.message === 'string' && /socket hang up/i.test(o.message)) return 'ECONNRESET';
    e = o.cause;
  }
  return 'ERR_NETWORK';
}

const NO_SLOT: Slot = { release: () => undefined };

/** Plain words for the usual low-level failure codes (Node and undici). */
const NETWORK_CODES: Record<string, string> = {
  ECONNRESET: 'connection reset',
  ECONNREFUSED: 'connection refused',
  UND_ERR_SOCKET: 'connection closed by the server',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
};

/** Per-request bookkeeping shared by the retry layers. */
interface RequestState {
  method: string;
  /** Path as sent (with query), for messages. */
  path: string;
  attempts: number;
  count429: number;
  /** The caller's listener for this request's waits (a plan step's observer). */
  onWait?: (notice: WaitNotice) => void;
}

/** An API call in progress. */
interface ApiCall extends RequestState {
  body: string | undefined;
  signal: AbortSignal | undefined;
  reauthenticated: boolean;
}

interface RawExchange {
  status: number;
  headers: Record<string, string>;
  text: string;
  attempts: number;
}

class HttpGpuCloudClient implements GpuCloudClient {
  readonly stats: GpuCloudClientStats = { requests: 0, tokenRequests: 0, retries: 0, rateLimitWaits: 0, status429: 0 };
  private readonly base: string;
  private readonly authUrl: string;
  private readonly authPath: string;
  private readonly retry: RetrySettings;
  private readonly limiter: RequestLimiter;
  private readonly tokens: TokenManager;
  /** The one way requests leave: only to the API's and the token endpoint's origins (secret-origins.ts). */
  private readonly send: FetchLike;
  private readonly userAgent = `assistant/${assistantVersion()}`;

  constructor(private readonly opts: GpuCloudClientOptions) {
    if (!opts.credentials?.clientId || !opts.credentials?.clientSecret) {
      throw new InvalidInputError('missing_credentials', 'gpucloud client_id and client_secret are required');
    }
    this.base = normalizeBaseUrl(opts.baseUrl);
    this.authUrl = opts.authUrl?.trim() || `${this.base}/v1/oauth2/token`;
    try {
      this.authPath = new URL(this.authUrl).pathname;
    } catch {
      throw new InvalidInputError('invalid_config', `gpucloud auth URL is not a URL: ${opts.authUrl}`);
    }
    // The client secret and every token it buys go to these two origins only, over TLS (or to this machine).
    this.send = secretFetch(
      secretOrigins('the gpucloud credentials', [this.base, this.authUrl], { setting: 'gpucloud.base_url / gpucloud.auth_url (GPUCLOUD_BASE_URL / GPUCLOUD_AUTH_URL)' }),
      opts.fetch ?? (fetch as unknown as FetchLike),
    );
    this.retry = { ...DEFAULT_RETRY, ...definedOnly(opts.retry) };
    const limits: RateLimitSettings = { ...DEFAULT_RATE_LIMIT, ...definedOnly(opts.rateLimit) };
    const local = new SlidingWindowLimiter({ ...limits, maxConcurrent: DEFAULT_MAX_CONCURRENT });
    const sharing = opts.sharedLimits;
    const namespace = limitNamespace(new URL(this.base).origin, opts.credentials.projectId || opts.credentials.clientId);
    // A slot whose holder died stops counting after the longest a request can take plus one window.
    const leaseMs = (opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : 120_000) + limits.windowMs;
    this.limiter = new LayeredLimiter(local, sharing ? new SharedLimiter(limits, namespace, leaseMs, sharing) : undefined);
    this.tokens = new TokenManager({
      credentials: opts.credentials,
      tokenPath: this.authPath,
      cache: opts.tokenCacheDir ? TokenFileCache.for(opts.tokenCacheDir, opts.credentials.clientId, new URL(this.base).origin) : undefined,
      onEvent: (e) => this.emit(e),
      post: (body, grant) => this.postToken(body, grant),
      now: opts.now,
    });
  }

  async request(req: GpuCloudRequest): Promise<GpuCloudResponse> {
    const method = req.method.trim().toUpperCase();
    const path = req.path.startsWith('/') ? req.path : `/${req.path}`;
    const signal = req.signal;
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
      throw new InvalidInputError('invalid_request', `${method} ${path} cannot carry a request body`);
    }
    if (signal?.aborted) throw abortError(signal);

    const list = async (listPath: string) => (await this.request({ method: 'GET', path: listPath, signal })).data;
    const dedupe = req.createGuard ?? createDedupeFor(method, path, body);
    if (dedupe?.needsSnapshot && !dedupe.hasSnapshot) await dedupe.snapshot(list);

    const state: ApiCall = { method, path, body, signal, attempts: 0, count429: 0, reauthenticated: false, onWait: req.onWait };
    let ambiguity: unknown;
    return retrySchedule(
      async () => {
        if (dedupe && ambiguity !== undefined) {
          const found = await this.lookUpCreate(dedupe, list, ambiguity, state);
          if (found) {
            this.debug(`  create of ${dedupe.kind.singular} "${dedupe.name}" already happened (${found.id}); not sending it again`);
            this.emit({ type: 'dedupe', method, path, id: found.id });
            const text = typeof found.data === 'string' ? found.data : JSON.stringify(found.data);
            return { status: 202, headers: {}, data: found.data, text, attempts: state.attempts, deduplicated: true };
          }
        }
        return this.attempt(state);
      },
      {
        delaysMs: this.retry.delaysMs,
        signal,
        onWait: ({ attempt, waitMs, error }) => {
          if (isAmbiguous(error)) ambiguity = error;
          this.noteRetry(state, attempt, waitMs, error);
        },
      },
    );
  }

  /**
   * After an ambiguous failure of a create: is the resource there? A server that answered 5xx has
   * finished with the request, so one look decides. A timeout, reset or gateway error may mean the
   * server is still working on it (a slow create appears in lists only later), so the list is polled
   * with backoff for `createLookupMs`; if it never appears, nobody can tell, and the run stops with
   * create_uncertain rather than pay twice. A failing list stops it the same way.
   */
  private async lookUpCreate(dedupe: CreateDedupe, list: (p: string) => Promise<unknown>, ambiguity: unknown, state: ApiCall) {
    const { signal } = state;
    const patient = mayStillBeProcessing(ambiguity);
    const deadline = performance.now() + (patient ? this.retry.createLookupMs : 0);
    let waitMs = 250;
    for (let look = 1; ; look++) {
      const found = await dedupe.find(list).catch((err: unknown) => {
        throw final(isAbortError(err) || err === signal?.reason ? err : createUncertain(dedupe, `listing ${dedupe.kind.kind} to look for it failed (${(err as Error).message})`, err));
      });
      if (found || !patient) return found;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw final(createUncertain(dedupe, `the request ended without an answer (${(ambiguity as Error).message}) and it has not appeared in ${Math.round(this.retry.createLookupMs / 1000)} s of looking`, ambiguity));
      }
      const wait = Math.min(waitMs, left);
      this.debug(`  ${dedupe.kind.singular} "${dedupe.name}" not listed yet (look ${look}); looking again in ${Math.round(wait)} ms`);
      this.emitWait(state, { type: 'create-lookup', method: 'GET', path: dedupe.listPath, waitMs: wait, name: dedupe.name });
      await sleep(wait, signal);
      waitMs = Math.min(waitMs * 2, 5_000);
    }
  }

  /**
   * One attempt of the 5xx/network schedule: sends the call, re-authenticating once on 401 and waiting
   * out 429s within their own budget. 5xx and network failures are thrown for the schedule to handle.
   */
  private async attempt(call: ApiCall): Promise<GpuCloudResponse> {
    const { method, path, signal } = call;
    for (;;) {
      // The token fetch has already run its own retry schedule; do not nest another one around it.
      const token = await this.tokens.getToken(signal).catch((err: unknown) => {
        throw final(err);
      });
      const res = await this.exchange(call, `${this.base}${path}`, `${method} ${normalizeApiPath(path)}`, { Authorization: `Bearer ${token}` }, call.body, signal);
      if (res.status === 401 && !call.reauthenticated) {
        // Expired or revoked server-side: drop the token (memory and disk) and authenticate once more.
        call.reauthenticated = true;
        this.debug('  401: dropping the cached token and re-authenticating once');
        await this.tokens.invalidate(token);
        continue;
      }
      if (res.status === 429) {
        // Someone we cannot see (the console, another tool) used the budget: hold this path back for the Retry-After.
        await this.limiter.penalize(`${method} ${normalizeApiPath(path)}`, parseRetryAfter(res.headers['retry-after'], this.retry.maxRetryAfterMs));
        if (await this.waitOut429(call, res, signal)) continue;
      }
      const context = { method, path, attempts: call.attempts };
      if (res.status < 200 || res.status >= 300) throw errorFromResponse(res.status, res.text, context);
      const data = decodeBody(res.text);
      await assertAllSucceeded(res.status, data, context);
      return { status: res.status, headers: res.headers, data, text: res.text, attempts: call.attempts };
    }
  }

  /** Token requests get the 429 handling and the 5xx/network schedule (not the API rate windows); bodies are never logged. */
  private postToken(body: Record<string, string>, grant: Grant): Promise<RawExchange> {
    const state: RequestState = { method: 'POST', path: this.authPath, attempts: 0, count429: 0 };
    return retrySchedule(
      async () => {
        for (;;) {
          const res = await this.exchange(state, this.authUrl, undefined, {}, JSON.stringify(body), undefined, grant);
          if (res.status === 429 && (await this.waitOut429(state, res, undefined))) continue;
          if (res.status >= 500) throw errorFromResponse(res.status, res.text, { method: state.method, path: state.path, attempts: state.attempts, tokenEndpoint: true });
          return res;
        }
      },
      { delaysMs: this.retry.delaysMs, onWait: ({ attempt, waitMs, error }) => this.noteRetry(state, attempt, waitMs, error) },
    );
  }

  /** Waits per Retry-After when the 429 budget allows; false when it is used up. */
  private async waitOut429(state: RequestState, res: RawExchange, signal: AbortSignal | undefined): Promise<boolean> {
    if (state.count429 >= this.retry.max429Retries) return false;
    state.count429++;
    const waitMs = parseRetryAfter(res.headers['retry-after'], this.retry.maxRetryAfterMs);
    this.stats.retries++;
    this.emitWait(state, { type: 'retry', method: state.method, path: state.path, attempt: state.attempts, waitMs, reason: 'rate_limit_exceeded' });
    this.debug(`  429 rate_limit_exceeded; waiting ${waitMs} ms (Retry-After) before retrying (${state.count429}/${this.retry.max429Retries})`);
    await sleep(waitMs, signal);
    return true;
  }

  private noteRetry(state: RequestState, attempt: number, waitMs: number, error: unknown): void {
    const { method, path } = state;
    const reason = error instanceof NetworkError ? (networkCode(error) ?? 'network_error') : error instanceof GpuCloudError ? error.code : 'error';
    this.stats.retries++;
    this.emitWait(state, { type: 'retry', method, path, attempt, waitMs, reason });
    this.debug(`  attempt ${attempt} failed (${reason}); retrying in ${waitMs} ms`);
  }

  /**
   * One HTTP exchange under the rate limiter. The slot is released when the response (or failure) has
   * arrived, which is what makes the sliding window safe (rate-limiter.ts). Network failures become
   * NetworkError; an abort becomes InterruptedError.
   */
  private async exchange(
    state: RequestState,
    url: string,
    /** Rate-limit key (method + path without query); undefined for token requests. */
    limitKey: string | undefined,
    extraHeaders: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
    grant?: Grant,
  ): Promise<RawExchange> {
    // The limits count authenticated API requests (SPEC 8). Token requests are not API requests, are
    // single-flight and rare, so they bypass the windows; a 429 on them is still waited out.
    const { slot, waitedMs } =
      limitKey === undefined
        ? { slot: NO_SLOT, waitedMs: 0 }
        : await this.limiter.acquire(limitKey, signal, (estimateMs, wait) => {
            this.stats.rateLimitWaits++;
            const s = wait?.shared;
            const scope = s?.scope === 'project' ? `project (${limitKey})` : s?.scope;
            if (s) this.debug(`rate limit ${scope}: ${s.used}/${s.limit} in window (shared: ${s.store}); waiting ~${estimateMs} ms`);
            this.emitWait(state, { type: 'rate-limit-wait', method: state.method, path: state.path, waitMs: estimateMs });
          });
    if (waitedMs > 0) this.debug(`  waited ${Math.round(waitedMs)} ms for the client-side rate limit (${limitKey})`);
    state.attempts++;
    if (grant) this.stats.tokenRequests++;
    else this.stats.requests++;
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.userAgent, ...extraHeaders };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    // Debug lines are built only for a debug sink: every MCP list and static command would pay for them.
    const debugging = this.opts.debug !== undefined;
    if (debugging) this.debug(`→ ${state.method} ${state.path}${grant ? ` (${grant})` : ''}${state.attempts > 1 ? ` (attempt ${state.attempts})` : ''}`);
    // One controller per request, linked to the caller's long-lived signal and unlinked afterwards:
    // AbortSignal.any would leave a listener on the run's signal for every request until GC.
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer =
      this.opts.timeoutMs && this.opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, this.opts.timeoutMs)
        : undefined;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await this.send(url, {
        method: state.method,
        headers,
        body,
        signal: controller.signal,
        // Never follow a redirect with the bearer token; the API does not redirect.
        redirect: 'manual',
      });
      // The whole body is in before the slot is released: the response has arrived only then.
      const text = await res.text();
      slot.release();
      if (res.status === 429) this.stats.status429++;
      if (debugging) this.debug(`← ${res.status}${this.errorNote(res.status, text, grant)} (${elapsed()} ms)`);
      return { status: res.status, headers: headersToRecord(res.headers), text, attempts: state.attempts };
    } catch (err) {
      slot.release();
      // Refused before sending (not the API's origin): nothing to retry.
      if (err instanceof SecretOriginRefused) throw final(err);
      if (signal?.aborted) {
        this.debug(`✗ interrupted (${elapsed()} ms)`);
        throw abortError(signal, err);
      }
      const code = timedOut ? 'ETIMEDOUT' : failureCode(err);
      this.debug(`✗ ${code} (${elapsed()} ms)`);
      const what = code === 'ETIMEDOUT' && timedOut ? `no answer within ${this.opts.timeoutMs} ms` : `${NETWORK_CODES[code] ?? 'network failure'} (${code})`;
      throw new NetworkError({
        status: 0,
        code: 'network_error',
        message: `${state.method} ${state.path} failed: ${what}`,
        method: state.method,
        path: state.path,
        attempts: state.attempts,
        details: { errno: code },
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** ` code` for an error answer in a debug line; never anything from a token response. */
  private errorNote(status: number, text: string, grant: Grant | undefined): string {
    if (status < 400 || grant) return '';
    const data = decodeBody(text);
    const code = typeof data === 'object' && data !== null ? (data as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? ` ${code}` : '';
  }

  /** A wait of one request: to the client's listener and to the request's own (the plan step's observer). */
  private emitWait(state: RequestState, event: WaitEvent): void {
    this.emit(event);
    if (!state.onWait) return;
    try {
      state.onWait(waitNotice(event));
    } catch {
      // A broken listener must not break the request.
    }
  }

  close(how?: { processEnding?: boolean }): Promise<void> {
    return this.limiter.close(how);
  }

  private emit(event: ClientEvent): void {
    try {
      this.opts.onEvent?.(event);
    } catch {
      // A broken listener must not break the request.
    }
  }

  private debug(line: string): void {
    if (!this.opts.debug) return;
    try {
      this.opts.debug(redactText(line));
    } catch {
      // A broken debug sink must not break the request (or leak a rate-limit slot).
    }
  }
}

/** Failures after which the server may still be creating the resource (no answer, or a gateway's). */
function mayStillBeProcessing(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof GpuCloudError && (err.status === 502 || err.status === 504);
}

function createUncertain(dedupe: CreateDedupe, why: string, cause: unknown): OperationError {
  return new OperationError('create_uncertain', `the create of ${dedupe.kind.singular} "${dedupe.name}" may have happened: ${why}; it was not sent again`, {
    hint: 'run the same plan again with --resume: it looks the create up again before sending anything',
    cause,
  });
}

function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Creates the gpucloud REST client (see the layering at the top of this file). */
export function createGpuCloudClient(opts: GpuCloudClientOptions): GpuCloudClient {
  return new HttpGpuCloudClient(opts);
}
