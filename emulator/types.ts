/** Public option and result types of the gpucloud emulator (re-exported by emulator/index.ts). */

/**
 * The emulator's default API credentials. They are public on purpose (README, `gpucloud emulate
 * --help`): they open only a local fake. Set GPUCLOUD_EMULATOR_CLIENT_SECRET to choose another secret.
 */
export const EMULATOR_DEFAULT_CLIENT_ID = 'emu-client';
export const EMULATOR_DEFAULT_CLIENT_SECRET = 'emu-secret';
/** Environment variable the foreground emulator reads its client secret from when none is passed. */
export const EMULATOR_SECRET_ENV = 'GPUCLOUD_EMULATOR_CLIENT_SECRET';

export interface EmulatorOptions {
  host?: string; // default '127.0.0.1'
  port?: number; // default 0 (random free port)
  clientId?: string; // default 'emu-client'
  clientSecret?: string; // default 'emu-secret'
  tokenTtlSec?: number; // default 3600 (expires_in)
  stateFile?: string; // load at start if it exists, save after every mutation (tmp + rename)
  seed?: 'demo' | 'empty'; // catalogue data is always seeded; see emulator/fixtures.ts
  balance?: number; // starting balance, default 1000 (usd)
  rateLimit?: { perProject: number; perPath: number; windowMs: number } | false; // default 500 / 60 / 60000
  lifecycleMs?: number; // time per lifecycle step (ordered→provisioning→running), default 400
  timeScale?: number; // billing hours per real second, default 1/3600 (real time)
  debit?: boolean; // false: running resources cost nothing, so the balance only moves when set (tests that read it exactly); default true
  clock?: () => number; // ms since the epoch for lifecycles, billing, tokens and rate windows; default Date.now (tests freeze or step it)
  clusterIp?: string; // the public `ip` every cluster gets when running (tests point it at an in-test SSH server); default from the address pool
  localAddresses?: boolean; // --sandbox: instances get loopback addresses (127.0.1.x) and containers a loopback endpoint, never a real or public one; default false
  listen?: boolean; // false: no HTTP server; clients in this process use `fetch` (the sandbox); default true
  instanceIps?: Record<string, string>; // hostname → the public `ip` that instance gets when running (tests point instances at in-test SSH servers); others from the pool
  hibernation?: 'keeps-instance' | 'deletes-instance'; // what `hibernate` does: status hibernating until `restore` (PY SDK, the 2023 spec; default), or, as the Go SDK describes it, detach every volume and delete the instance (no restore)
}

export interface FaultSpec {
  method?: string; // default any method
  path: string; // exact path without query, or a prefix ending with '*'
  times?: number; // how many matching requests it applies to, default 1 (-1 = every request until cleared)
  status?: number; // respond with this status and body {code, message}
  code?: string;
  message?: string;
  retryAfter?: string; // Retry-After header value
  reset?: boolean; // destroy the socket without answering
  delayMs?: number; // wait before handling (with afterHandler: after handling, before answering)
  until?: Promise<unknown>; // in-process only: hold the request until this settles (a test releases it when it has seen what it waits for)
  afterHandler?: boolean; // run the real handler first, then answer with `status` / reset
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  status: number;
  body?: string;
  at: number;
}

export interface EmulatorStats {
  requests: number;
  tokenRequests: number;
  status429: number;
  byRoute: Record<string, number>;
}

export interface Emulator {
  url: string; // origin, e.g. 'http://127.0.0.1:34567' (no /v1)
  port: number;
  clientId: string;
  clientSecret: string;
  addFault(f: FaultSpec): void;
  clearFaults(): void;
  requests(): RecordedRequest[];
  stats(): EmulatorStats;
  setBalance(amount: number): void;
  /** The capacity switch per instance type and location (emulator/capacity.ts). */
  setCapacity(setting: import('./capacity.js').CapacitySetting): void;
  reset(): void;
  close(): Promise<void>;
  /** Sends a request through the emulator in this process, without a socket (the only way in with `listen: false`). */
  fetch: import('../engine/core/provider.js').FetchLike;
}

export interface RateLimitOptions {
  perProject: number;
  perPath: number;
  windowMs: number;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  host: string;
  port: number;
  clientId: string;
  clientSecret: string;
  tokenTtlSec: number;
  stateFile?: string;
  seed: 'demo' | 'empty';
  balance: number;
  rateLimit: RateLimitOptions | false;
  lifecycleMs: number;
  timeScale: number;
  debit: boolean;
  clock: () => number;
  clusterIp?: string;
  localAddresses: boolean;
  instanceIps?: Record<string, string>;
  hibernation: 'keeps-instance' | 'deletes-instance';
}

export function resolveOptions(opts: EmulatorOptions = {}): ResolvedOptions {
  return {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    clientId: opts.clientId ?? EMULATOR_DEFAULT_CLIENT_ID,
    clientSecret: opts.clientSecret ?? EMULATOR_DEFAULT_CLIENT_SECRET,
    tokenTtlSec: opts.tokenTtlSec ?? 3600,
    stateFile: opts.stateFile,
    seed: opts.seed ?? 'demo',
    balance: opts.balance ?? 1000,
    rateLimit: opts.rateLimit === false ? false : (opts.rateLimit ?? { perProject: 500, perPath: 60, windowMs: 60_000 }),
    lifecycleMs: opts.lifecycleMs ?? 400,
    timeScale: opts.timeScale ?? 1 / 3600,
    debit: opts.debit ?? true,
    clock: opts.clock ?? Date.now,
    clusterIp: opts.clusterIp,
    localAddresses: opts.localAddresses ?? false,
    instanceIps: opts.instanceIps,
    hibernation: opts.hibernation ?? 'keeps-instance',
  };
}
