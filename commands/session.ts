import { join } from 'node:path';
import type { Config } from '../schemas/config.js';
import { loadConfig } from '../engine/config/load.js';
import { predefinedBindings, resolveGpuCloudCredentials, resolveRateLimit } from '../engine/config/credentials.js';
import { createGpuCloudClient } from '../engine/gpucloud/client.js';
import type { GpuCloudClient } from '../engine/gpucloud/types.js';
import type { ExecutorContext } from '../engine/executors/types.js';
import { redactText } from '../engine/redact.js';
import type { CommandContext } from './context.js';

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
export async function openSession(ctx: CommandContext): Promise<Session> {
  const { config, warnings } = loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of warnings) ctx.io.stderr.write(`warning: ${w}\n`);
  const debug = ctx.globals.debug ? (line: string) => ctx.io.stderr.write(`debug: ${redactText(line)}\n`) : undefined;
  const timeoutMs = (ctx.globals.timeout ?? config.timeout ?? 30) * 1000;

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
      });
      return { client, source: 'sandbox emulator' };
    }
    const creds = resolveGpuCloudCredentials({ config, env: ctx.env, home: ctx.home, configPath: ctx.globals.config });
    for (const w of creds.warnings ?? []) ctx.io.stderr.write(`warning: ${w}\n`);
    const { redisUrl, ...rateLimit } = resolveRateLimit(config, ctx.env);
    const client = createGpuCloudClient({
      baseUrl: creds.baseUrl,
      authUrl: creds.authUrl,
      credentials: { clientId: creds.clientId, clientSecret: creds.clientSecret, projectId: creds.projectId },
      rateLimit,
      // Every process of this project shares the limits (issue 12): this machine's record, or Redis.
      sharedLimits: { dir: join(ctx.home, '.assistant', 'ratelimit'), redisUrl, warn: (line) => ctx.io.stderr.write(`warning: ${line}\n`) },
      tokenCacheDir,
      timeoutMs,
      debug,
    });
    closeClient = () => client.close?.();
    return { client, source: `${creds.source} (${creds.sourceDetail})` };
  };
  const lazy = () => (clientPromise ??= connect());

  return {
    config,
    predefined,
    credentialSource: async () => (await lazy()).source,
    executorContext: () => ({ gpucloud: async () => (await lazy()).client, signal: ctx.signal }),
    close: async () => {
      await closeClient?.();
      await closeEmulator?.();
    },
  };
}

/** Opens a session for the duration of `fn` and always closes it (stops the sandbox emulator). */
export async function withSession<T>(ctx: CommandContext, fn: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(ctx);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}
