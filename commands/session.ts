import type { Config } from '../schemas/config.js';
import { loadConfig } from '../engine/providers/config.js';
import type { ReservationStore } from '../engine/core/plan/reservations.js';
import type { ConnectOptions, ProviderClient, RunObserver } from '../engine/core/provider.js';
import { reservationsOnFirstUse, SANDBOX_SCOPE } from '../engine/core/plan/backend.js';
import { PROVIDERS, providersWith } from '../engine/providers/index.js';
import { OperationError, UsageError } from '../engine/core/errors.js';
import type { PlanBackend, RunContext } from '../machines/run/run-plan.js';
import { warn, type CommandContext } from './context.js';
import { createRunObserver } from './progress.js';
import type { RunReporter } from '../engine/core/plan/backend.js';
import { BACKEND_ENV_VARS } from '../engine/core/config/backend-env.js';

export interface Session extends PlanBackend {
  config: Config;
  /** Where a provider's credentials came from, for `credentials test`. */
  credentialSource(provider: string): Promise<string>;
  /** The session's observer (waits on stderr); a command that shows step progress passes its own. */
  observer: RunObserver;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Whether --timeout / config `timeout` bounds the session as one operation (not for a long-lived server). */
  overallDeadline?: boolean;
  /** Check credentials afresh: no cached token is used or kept (credentials test). */
  freshCredentials?: boolean;
  /** `--profile`: the cloud_a environment (infra.cloud_a.environments) or aws profile. */
  profile?: string;
  /** `--region` (k8s: for the kubeconfig's exec credential plugin). */
  region?: string;
  /** Credentials from the backend store only (`credentials test` of what is stored). */
  backendOnly?: boolean;
  /** `--files DIR`: binds <FILES>, the only place plan steps read local files from. */
  filesDir?: string;
  /** `--terraform-plan`, `--unsandboxed`: the user's opt-ins to running their workspaces' code (ConnectOptions.workspaceCode). */
  workspaceCode?: { plan?: boolean; unsandboxed?: boolean };
}

/**
 * Loads config once and builds each provider's client only when a step needs it, so commands that
 * never reach a cloud (validation, refusals) never resolve credentials or fetch tokens.
 * With --sandbox gpucloud's client talks HTTP to an in-process emulator whose state persists under
 * ~/.assistant/sandbox/.
 */
export async function openSession(ctx: CommandContext, opts: SessionOptions = {}): Promise<Session> {
  const loaded = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of loaded.warnings) warn(ctx, w);
  // Loaded only for --sandbox: the stand-ins, and the configuration as the sandbox sees it (its own kubeconfig).
  const sandboxModule = ctx.globals.sandbox ? await import('../engine/producers/sandbox/sandbox.js') : undefined;
  const config = sandboxModule ? sandboxModule.sandboxedConfig(loaded.config, ctx.home) : loaded.config;
  const debug = ctx.debug.callback;
  // --timeout (or config `timeout`) bounds the whole command, waits included (one deadline: ctx.signal,
  // engine/core/deadline.ts); a request alone is bounded by it too, or by 30 s when neither is given (then
  // there is no overall bound: a cluster may take minutes). A long-lived server (mcp) is bounded per
  // request instead, so its session lives until Ctrl-C.
  const overallS = ctx.globals.timeout ?? config.timeout;
  const timeoutMs = (overallS ?? 30) * 1000;
  if (opts.overallDeadline !== false) armConfigDeadline(ctx, config);
  const signal = opts.overallDeadline === false ? ctx.interrupt : ctx.signal;
  const observer = createRunObserver(ctx.io, { debug });

  // Every provider's predefined bindings (DEFAULT_LOCATION, …); under --sandbox its stand-in's values fill the gaps.
  const binders = await providersWith('bindings');
  const predefined: Record<string, string> = {};
  for (const p of binders) Object.assign(predefined, p.capabilities.bindings.predefined(config, ctx.env));
  if (opts.filesDir) predefined.FILES = opts.filesDir;

  if (ctx.globals.sandbox) {
    for (const p of binders) for (const [name, value] of Object.entries((await p.capabilities.sandbox?.defaults?.()) ?? {})) predefined[name] ??= value;
    ctx.io.stderr.write(`sandbox: using the local gpucloud emulator (state in ~/.assistant/sandbox/), not the real cloud\n`);
  }

  const connectOptions: ConnectOptions = {
    config,
    env: ctx.env,
    home: ctx.home,
    configPath: ctx.globals.config,
    debug,
    timeoutMs,
    freshCredentials: opts.freshCredentials,
    profile: opts.profile,
    region: opts.region,
    filesDir: opts.filesDir,
    warn: (message) => warn(ctx, message),
    signal,
    backendOnly: opts.backendOnly,
    workspaceCode: opts.workspaceCode,
  };
  // Under --sandbox every provider connects through the sandbox: to its stand-in (those with a `sandbox`
  // capability, ssh to the sandbox clusters' head nodes, the integrations' fakes), or not at all
  // (not_in_sandbox; engine/producers/sandbox/sandbox.ts).
  const sandbox = sandboxModule?.openSandbox(ctx.home);
  const clients = new Map<string, Promise<ProviderClient<unknown>>>();
  const connect = (name: string): Promise<ProviderClient<unknown>> => {
    let client = clients.get(name);
    if (!client) {
      if (!PROVIDERS.names().includes(name)) throw new UsageError(`unknown provider "${name}" (known: ${PROVIDERS.names().join(', ')})`);
      client = (async () => {
        // The provider's module loads on its first connection (engine/providers/index.ts).
        const provider = (await PROVIDERS.load([name])).provider(name)!;
        return sandbox ? sandbox.connect(name, provider, connectOptions) : provider.connect(connectOptions);
      })();
      clients.set(name, client);
    }
    return client;
  };
  const runContext = (): RunContext => ({ client: async (name) => (await connect(name)).client, signal, observer });
  // Names being created are reserved where the shared rate limits live: Redis when a provider's limits are
  // shared there, else this machine. Under --sandbox they stay on this machine: the shared Redis may be
  // another host (and holds real names).
  // Opened when a create first reserves a name: a read never loads the reservation stores.
  const reservations: ReservationStore = reservationsOnFirstUse(async () => {
    const redisUrl = ctx.globals.sandbox ? undefined : (await providersWith('limits')).map((p) => p.capabilities.limits.redisUrl(config, ctx.env)).find(Boolean);
    const { fileReservations, redisReservations } = await import('../engine/core/plan/reservations.js');
    return redisUrl ? redisReservations(redisUrl, { warn: (message) => warn(ctx, message), fallback: fileReservations(ctx.home) }) : fileReservations(ctx.home);
  });

  return {
    config,
    predefined,
    providers: PROVIDERS,
    observer,
    reservations,
    runHistory: ctx.globals.sandbox ? undefined : runReporter(ctx, config),
    scope: ctx.globals.sandbox ? SANDBOX_SCOPE : (predefined.PROJECT_ID ?? 'default'),
    credentialSource: async (name) => (await connect(name)).source,
    runContext,
    close: async () => {
      // A command's session ends with its process (servers hold theirs for their whole life).
      await Promise.all([...clients.values()].map(async (c) => (await c.catch(() => undefined))?.close?.({ processEnding: true })));
      await reservations.close?.();
      await sandbox?.close();
    },
  };
}

/**
 * The team's run history (issue 41): with a backend API key configured, every apply and dry run is
 * queued and sent to the backend (engine/core/config/run-outbox.ts). Not under --sandbox (nothing leaves
 * the machine), and not when the backend settings are unusable (the apply itself goes on).
 */
function runReporter(ctx: CommandContext, config: Config): RunReporter | undefined {
  // Without a backend key nothing is reported: decided here, so that a command without one loads none of
  // the backend client (its schemas bring zod).
  if (!ctx.env[BACKEND_ENV_VARS.apiKey]?.trim() && !config.backend?.api_key?.trim()) return undefined;
  let outbox: Promise<RunReporter | undefined> | undefined;
  const open = async (): Promise<RunReporter | undefined> => {
    const [{ resolveBackendSettings }, { RunOutbox }] = await Promise.all([import('../engine/core/config/backend-store.js'), import('../engine/core/config/run-outbox.js')]);
    let settings;
    try {
      settings = resolveBackendSettings(config, ctx.env);
    } catch {
      return undefined;
    }
    if (!settings.apiKey) return undefined;
    return new RunOutbox({ home: ctx.home, settings: { ...settings, apiKey: settings.apiKey }, signal: ctx.interrupt, warn: (m) => warn(ctx, m), debug: ctx.debug.callback });
  };
  return { report: async (record) => (await (outbox ??= open()))?.report(record) };
}

/** Arms the command's deadline from config `timeout` when no --timeout was given (the flag was armed at start). */
export function armConfigDeadline(ctx: CommandContext, config: Config): void {
  if (config.timeout !== undefined) ctx.deadline.arm(config.timeout, 'config timeout');
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
