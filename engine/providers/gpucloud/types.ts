/** The contract between the plan engine and the gpucloud HTTP client. */
import type { FetchLike, WaitNotice } from '../../core/provider.js';
import type { CreateDedupe } from './dedupe.js';
import type { GpuCloudCredentials, RateLimitSettings } from './credentials.js';

export interface GpuCloudRequest {
  method: string;
  /** Path below the origin, always starting with /v1; may carry a query string. */
  path: string;
  /** Request body as JSON text (plans carry bodies as strings) or a value to serialise. */
  body?: string | unknown;
  signal?: AbortSignal;
  /**
   * The create's de-duplication guard with its snapshot already taken (a plan run lists each kind once
   * per run); without it the client takes its own snapshot before a create, so it is safe standalone.
   */
  createGuard?: CreateDedupe;
  /** Told about this request's waits (rate-limit windows, Retry-After, retries, create look-ups). */
  onWait?: (notice: WaitNotice) => void;
}

export interface GpuCloudResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the trimmed text for bare-text bodies (create IDs); undefined for empty bodies. */
  data: unknown;
  /** Raw body text. */
  text: string;
  /** How many HTTP attempts the request took (retries included). */
  attempts: number;
  /** Set when a create was recovered after an ambiguous failure instead of being sent again. */
  deduplicated?: boolean;
}

// Defined beside the configuration that resolves them (a lower layer than this client).
export type { GpuCloudCredentials, RateLimitSettings };

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { perProject: 500, perPath: 60, windowMs: 60_000 };

export interface RetrySettings {
  /** Waits after 5xx / network failures (SPEC 7.4: 250, 750, 2000 ms); its length is the retry budget. */
  delaysMs: number[];
  /** How many 429 responses are waited out (per Retry-After) before the typed error surfaces. */
  max429Retries: number;
  /** Upper bound on a single Retry-After wait. */
  maxRetryAfterMs: number;
  /**
   * How long a create that got no answer (timeout, reset, 502/504) is looked for in the kind's list
   * before the client gives up with create_uncertain (it is never sent again on a guess).
   */
  createLookupMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { delaysMs: [250, 750, 2000], max429Retries: 5, maxRetryAfterMs: 120_000, createLookupMs: 30_000 };

/** Events the client reports so the CLI can show progress (never carry secrets). */
export type ClientEvent =
  | { type: 'retry'; method: string; path: string; attempt: number; waitMs: number; reason: string }
  | { type: 'rate-limit-wait'; method: string; path: string; waitMs: number }
  | { type: 'token'; source: 'cache' | 'disk' | 'refresh' | 'client_credentials' }
  | { type: 'dedupe'; method: string; path: string; id: string }
  /** An ambiguous create not listed yet: the client looks again after `waitMs`. */
  | { type: 'create-lookup'; method: string; path: string; waitMs: number; name: string };

export type { FetchLike };

export interface GpuCloudClientOptions {
  /** API origin without /v1 (a trailing /v1 is tolerated and stripped). */
  baseUrl: string;
  /** OAuth token endpoint; default `<baseUrl>/v1/oauth2/token`. */
  authUrl?: string;
  credentials: GpuCloudCredentials;
  rateLimit?: Partial<RateLimitSettings>;
  retry?: Partial<RetrySettings>;
  /** Directory for the on-disk token cache (0600 files); omit for memory-only. */
  tokenCacheDir?: string;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  /** Receives redacted debug lines (no tokens, no secrets). */
  debug?: (line: string) => void;
  onEvent?: (event: ClientEvent) => void;
  /** The clock token expiry is judged by (ms since the epoch); tests inject one instead of sleeping. */
  now?: () => number;
  /** How requests are sent; default Node's `fetch`. */
  fetch?: FetchLike;
  /** Share the rate limits with every process of this project + origin (limits/shared.ts); omit for this process only. */
  sharedLimits?: { dir: string; redisUrl?: string; warn?: (line: string) => void };
}

export interface GpuCloudClient {
  request(req: GpuCloudRequest): Promise<GpuCloudResponse>;
  /** Lets go of shared rate-limit connections (Redis); `processEnding`: see ClientClose (engine/core/provider.ts). */
  close?(how?: { processEnding?: boolean }): Promise<void>;
  /** Counters for tests and benchmarks. */
  readonly stats: { requests: number; tokenRequests: number; retries: number; rateLimitWaits: number; status429: number };
}

/** The client events that mean a request is waiting. */
export type WaitEvent = Extract<ClientEvent, { type: 'retry' | 'rate-limit-wait' | 'create-lookup' }>;

const seconds = (ms: number) => `${Math.max(1, Math.ceil(ms / 1000))} s`;

/** A wait as people read it: `waiting 42 s for the rate limit of GET /v1/instances`. */
export function waitNotice(event: WaitEvent): WaitNotice {
  const where = `${event.method} ${event.path.split('?')[0]}`;
  switch (event.type) {
    case 'rate-limit-wait':
      return { reason: 'rate-limit', waitMs: event.waitMs, message: `waiting ${seconds(event.waitMs)} for the rate limit of ${where}` };
    case 'retry':
      return event.reason === 'rate_limit_exceeded'
        ? { reason: 'retry-after', waitMs: event.waitMs, message: `waiting ${seconds(event.waitMs)} (Retry-After) for the rate limit of ${where}` }
        : { reason: 'retry', waitMs: event.waitMs, message: `waiting ${seconds(event.waitMs)} to retry ${where} (${event.reason})` };
    case 'create-lookup':
      return { reason: 'create-lookup', waitMs: event.waitMs, message: `the create of "${event.name}" got no answer; looking for it again in ${seconds(event.waitMs)} (${where})` };
  }
}
