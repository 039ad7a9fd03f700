import { join } from 'node:path';
import type { Config } from '../schemas/config.js';
import { loadConfig } from '../engine/config/load.js';
import { predefinedBindings, resolveGpuCloudCredentials, resolveRateLimit } from '../engine/config/credentials.js';
import { createGpuCloudClient } from '../engine/gpucloud/client.js';
import type { GpuCloudClient } from '../engine/gpucloud/types.js';
import type { ExecutorContext } from '../engine/executors/types.js';
import { redactText } from '../engine/redact.js';
import { OperationError } from '../engine/errors.js';
import { warn, type CommandContext } from './context.js';
import { createWaitNotices } from './progress.js';

export interface Session {
  config: Config;
  /** Bindings predefined from config (or the sandbox defaults). */
  predefined: Record<string, string>;
  /** Where credentials came from, for `credentials test`. */
  credentialSource(): Promise<string>;
  executorContext(): ExecutorContext;
  close(): Promise<void>;
}

/**
 * Loads config once and creates the gpucloud client only when a step needs it, so commands that
 * never reach the cloud (validation, refusals) never resolve credentials or fetch tokens.
 * With --sandbox the client talks HTTP to an in-process emulator whose state persists under ~/.assistant/sandbox/.
 */
export interface SessionOptions {
  /** Whether --timeout / config `timeout` bounds the session as one operation (not for a long-lived server). */
  overallDeadline?: boolean;
  /** false: neither read nor write the disk token cache, so the first call asks the token endpoint (credentials test). */
  tokenCache?: boolean;
}

export async function openSession(ctx: CommandContext, opts: SessionOptions = {}): Promise<Session> {
  const { config, warnings } = loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of warnings) warn(ctx, w);
  const debug = ctx.globals.debug ? (line: string) => ctx.io.stderr.write(`debug: ${redactText(line)}\n`) : undefined;
  // --timeout (or config `timeout`) bounds the whole command, waits included; a request alone is bounded
  // by it too, or by 30 s when neither is given (then there is no overall bound: a cluster may take minutes).
  const overallS = ctx.globals.timeout ?? config.timeout;
  const timeoutMs = (overallS ?? 30) * 1000;
  const signal = overallS && opts.overallDeadline !== false ? withDeadline(ctx.signal, overallS, ctx.globals.timeout !== undefined) : ctx.signal;
  const notices = createWaitNotices(ctx.io);

  let closeEmulator: (() => Promise<void>) | undefined;
  let closeClient: (() => Promise<void> | undefined) | undefined;
  let clientPromise: Promise<{ client: GpuCloudClient; source: string }> | undefined;
  const predefined = predefinedBindings(config, ctx.env);

  if (ctx.globals.sandbox) {
    const { EMULATOR_DEFAULT_SSH_KEY_ID } = await import('../emulator/index.js');
    predefined.DEFAULT_SSH_KEY_ID ??= EMULATOR_DEFAULT_SSH_KEY_ID;
    predefined.DEFAULT_LOCATION ??= 'FIN-01';
    ctx.io.stderr.write(`sandbox: using the local gpucloud emulator (state in ~/.assistant/sandbox/), not the real cloud\n`);
  }

  const connect = async (): Promise<{ client: GpuCloudClient; source: string }> => {
    const tokenCacheDir = join(ctx.home, '.assistant', 'tokens');
    if (ctx.globals.sandbox) {
      const { startEmulator } = await import('../emulator/index.js');
      const emulator = await startEmulator({ stateFile: join(ctx.home, '.assistant', 'sandbox', 'state.json'), seed: 'demo' });
      closeEmulator = () => emulator.close();
      const client = createGpuCloudClient({
        baseUrl: emulator.url,
        credentials: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        timeoutMs,
        debug,
        onEvent: notices.event,
      });
      return { client, source: 'sandbox emulator' };
    }
    const creds = resolveGpuCloudCredentials({ config, env: ctx.env, home: ctx.home, configPath: ctx.globals.config });
    for (const w of creds.warnings ?? []) warn(ctx, w);
    const { redisUrl, ...rateLimit } = resolveRateLimit(config, ctx.env);
    const client = createGpuCloudClient({
      baseUrl: creds.baseUrl,
      authUrl: creds.authUrl,
      credentials: { clientId: creds.clientId, clientSecret: creds.clientSecret, projectId: creds.projectId },
      rateLimit,
      // Every process of this project shares the limits (issue 12): this machine's record, or Redis.
      sharedLimits: { dir: join(ctx.home, '.assistant', 'ratelimit'), redisUrl, warn: (line) => warn(ctx, line) },
      tokenCacheDir: opts.tokenCache === false ? undefined : tokenCacheDir,
      timeoutMs,
      debug,
      onEvent: notices.event,
    });
    closeClient = () => client.close?.();
    return { client, source: `${creds.source} (${creds.sourceDetail})` };
  };
  const lazy = () => (clientPromise ??= connect());

  return {
    config,
    predefined,
    credentialSource: async () => (await lazy()).source,
    executorContext: () => ({ gpucloud: async () => (await lazy()).client, signal, notice: notices.notice }),
    close: async () => {
      await closeClient?.();
      await closeEmulator?.();
    },
  };
}

/**
 * The command's signal, also aborted `seconds` after now with a `timeout` error (exit 1): every wait
 * (rate limit, Retry-After, retry backoff, polls) and request ends there, not only a single request.
 */
function withDeadline(signal: AbortSignal, seconds: number, fromFlag: boolean): AbortSignal {
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(
      new OperationError('timeout', `the command did not finish within ${seconds} s (${fromFlag ? '--timeout' : 'config timeout'}); waits for rate limits and retries count too`, {
        hint: 'give it longer with --timeout <seconds> or config `timeout`; without either, only each request is bounded (30 s)',
      }),
    );
  }, seconds * 1000);
  timer.unref();
  return AbortSignal.any([signal, deadline.signal]);
}

/** Opens a session for the duration of `fn` and always closes it (stops the sandbox emulator). */
export async function withSession<T>(ctx: CommandContext, fn: (session: Session) => Promise<T>, opts: SessionOptions = {}): Promise<T> {
  const session = await openSession(ctx, opts);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}
