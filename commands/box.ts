/**
 * `assistant box catalog | manifest | serve`: the agents a box can run and where; a box as a plan
 * document that deploys it to gpucloud's serverless containers; and the box itself, an HTTP/SSE/
 * WebSocket server in front of one agent (box/server.ts). Flag parsing and output only.
 */
import { agentCatalog, findAgent, type CatalogAgent } from '../engine/producers/box/agents.js';
import { boxLiveFrom, boxReadPlan } from '../engine/producers/box/live.js';
import { compileManifest, DEFAULT_BOX_PORT, defaultBoxImage, parseEnvFlag, parseSecretFlag, TOKEN_ENV, TOKEN_SHA256_ENV } from '../engine/producers/box/manifest.js';
import { containerRegions, type Region } from '../engine/producers/box/regions.js';
import { BOX_TOKEN_PREFIX, ensureBoxToken, tokenSha256 } from '../engine/producers/box/token.js';
import { slugName } from '../engine/core/kits/deploy/names.js';
import { ExitCode, InvalidInputError, UsageError } from '../engine/core/errors.js';
import { parseListen } from '../engine/core/listen.js';
import { assistantVersion } from '../engine/core/version.js';
import { readPlan } from '../machines/apply/reads.js';
import type { AgentRunner } from '../box/agent.js';
import { acpAgent } from '../box/agents/acp.js';
import { agentSandbox } from '../engine/producers/acp/sandbox.js';
import { sandboxAvailability, SandboxUnavailable } from '../engine/core/process/contain.js';
import { assistantAgent } from '../box/agents/assistant.js';
import { emptyAgent } from '../box/agents/empty.js';
import { isLoopbackHost } from '../engine/core/loopback.js';
import { mustEndWithin, whenStopped } from '../engine/core/kits/serve/lifecycle.js';
import { configuredToken, digestToken, generatedServerToken, type ServerToken } from '../engine/core/kits/serve/token.js';
import { BOX_DEFAULTS, startBoxServer } from '../box/server.js';
import { warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { withSession, type Session } from './session.js';
import { formatRate } from '../engine/core/render/money.js';
import { columnsOf } from '../engine/core/render/columns.js';

/** What each subcommand's flags are; ManifestFlags and ServeFlags are derived from it. */
const FLAGS = {
  manifest: {
    agent: flag.text().option('--agent <name>', 'The agent the box runs (see box catalog): assistant, empty, or an ACP agent'),
    region: flag.text().option('--region <code>', 'A gpucloud location offering containers (default: gpucloud.default_location, else the first one)'),
    name: flag.text().option('--name <name>', 'Container deployment name (default: box-<agent>)'),
    size: flag.text().option('--size <compute>', 'Serverless compute (default: the cheapest offered in the region, e.g. "General Compute")'),
    image: flag.text().option('--image <image:tag>', `Container image with a pinned tag (default: ${defaultBoxImage()}, built by the repository's Dockerfile)`),
    port: flag.port().option('--port <port>', `Port the box listens on in the container (default ${DEFAULT_BOX_PORT})`),
    secret: flag.list(flag.text()).option('--secret <NAME[=secret]>', 'Give the box environment variable NAME from gpucloud secret "secret" (default: NAME in lower-case dashes); repeatable'),
    env: flag.list(flag.text()).option('--env <NAME=value>', 'A plain environment variable (names that look secret are refused: use --secret); repeatable'),
    allowApply: flag.bool().option('--allow-apply', 'Let the box apply the plans its agent makes (box serve --allow-apply), never destructive ones'),
    format: flag.oneOf(['plan', 'container-spec']).option('--format <format>', 'plan (default): the plan document; container-spec: the container description alone, for other platforms'),
  },
  serve: {
    agent: flag.text().option('--agent <name>', 'The agent to run (see box catalog)'),
    listen: flag.text().option('--listen <host[:port]>', `Address (default 127.0.0.1:$PORT); any non-loopback address needs ${TOKEN_ENV} (or ${TOKEN_SHA256_ENV})`),
    allowApply: flag.bool().option('--allow-apply', 'Let the agent apply the plans it makes (through the one apply path; destructive plans are always refused)'),
    aiProfile: flag.text().option('--ai-profile <name>', 'AI provider profile of the built-in agent (ai.providers.<name>, or builtin)'),
    allowOrigin: flag.list(flag.text()).option('--allow-origin <origin>', 'A browser origin allowed to call the box (e.g. https://app.example.com); repeatable. Others are refused'),
    maxSessions: flag.int(1, 10_000).option('--max-sessions <n>', `Live sessions at most (default ${BOX_DEFAULTS.maxSessions})`),
    requestTimeout: flag.duration(3600).option('--request-timeout <s>', `Seconds (or a duration: 90s, 2m) one message may take (default ${BOX_DEFAULTS.requestTimeoutMs / 1000})`),
    sessionIdle: flag.duration(7 * 86_400).option('--session-idle <s>', `Seconds (or a duration: 30m, 2h) after which an unused session expires (default ${BOX_DEFAULTS.sessionIdleMs / 1000})`),
    historyTurns: flag.int(1, 1000).option('--history-turns <n>', `Exchanges kept per session (default ${BOX_DEFAULTS.maxTurns})`),
    maxBodyKb: flag.int(1, 64 * 1024).option('--max-body-kb <n>', `Largest request body or WebSocket frame in KiB (default ${BOX_DEFAULTS.maxBodyBytes / 1024})`),
    unsandboxed: flag.bool().option('--unsandboxed', 'Where no sandbox can be made (no bubblewrap, no user namespaces), run an ACP agent as a plain process that can read everything the box can'),
    drainTimeout: flag.int(0, 3600).option('--drain-timeout <s>', `On SIGTERM or Ctrl-C, seconds in-flight answers get to finish before they are cancelled (default ${BOX_DEFAULTS.drainMs / 1000})`),
  },
} satisfies Record<string, FlagSpec>;

type ManifestFlags = OptionsOf<typeof FLAGS.manifest>;
type ServeFlags = OptionsOf<typeof FLAGS.serve>;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('box', argv, ctx, { flags: FLAGS }, (cli, start) => {
    cli
      .command('catalog', 'The agents a box can run (with their status and the secrets they need) and the gpucloud regions offering containers')
      .example('  assistant --sandbox box catalog')
      .example('  assistant box catalog -o json')
      .action(() => start(() => catalog(ctx)));
    withFlags(
      cli
        .command('manifest', 'Print a plan document that deploys a box to gpucloud serverless containers (apply it with ask --apply)')
        .usage('manifest --agent <name> [--region <code>] [--name <name>] [--size <compute>] [--image <image:tag>] [--secret NAME[=secret]]… [--env NAME=value]… [--allow-apply] [--format plan|container-spec]'),
      FLAGS.manifest,
    )
      .example('  assistant --sandbox box manifest --agent assistant > box.json')
      .example('  assistant plan validate box.json && assistant --sandbox ask --apply --plan-file box.json')
      .example('  assistant box manifest --agent assistant --region FIN-01 --secret OPENAI_API_KEY=openai-key --env GPUCLOUD_CLIENT_ID=abc --secret GPUCLOUD_CLIENT_SECRET')
      .example('  assistant box manifest --agent claude-code --image ghcr.io/me/box-claude:1.0 --format container-spec')
      .action((opts: ManifestFlags) => start(() => manifest(ctx, opts)));
    withFlags(
      cli
        .command('serve', 'Run a box: the agent behind an HTTP, SSE and WebSocket API (127.0.0.1:$PORT, default 8080)')
        .usage('serve --agent <name> [--listen host[:port]] [--allow-apply] [--allow-origin <origin>]…'),
      FLAGS.serve,
    )
      .example('  assistant --sandbox box serve --agent assistant')
      .example('  PORT=9000 assistant box serve --agent assistant --allow-apply')
      .example(`  ${TOKEN_ENV}=$(openssl rand -hex 32) assistant box serve --agent assistant --listen 0.0.0.0:8080`)
      .example(`  curl -s localhost:8080/v1/box/messages -H 'content-type: application/json' -d '{"message":"what is my balance?"}'`)
      .action((opts: ServeFlags) => start(() => serve(ctx, opts)));
  });
}

// ---------------------------------------------------------------- shared

function intFlag(flag: string, v: string | number | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got "${v}")`);
  return n;
}

function resolveAgent(ctx: CommandContext, session: Pick<Session, 'config'>, name: string | undefined, command: string): CatalogAgent {
  const catalog = agentCatalog(session.config, ctx.env);
  const names = catalog.map((a) => a.name).join(', ');
  if (name === undefined || name === '' || typeof name !== 'string') throw new UsageError(`${command} needs --agent <name>`, { hint: `agents: ${names} (assistant box catalog shows their status)` });
  const agent = findAgent(catalog, name);
  if (!agent) throw new InvalidInputError('unknown_agent', `unknown agent "${name}"`, { hint: `valid agents: ${names}` });
  return agent;
}

async function readLive(session: Session, signal: AbortSignal, withProject: boolean) {
  return boxLiveFrom(await readPlan(session, boxReadPlan(withProject), { signal }), withProject);
}

// ---------------------------------------------------------------- catalog

const AGENT_COLUMNS = columnsOf([['NAME', 'name', 9], ['KIND', 'kind', 6], ['STATUS', 'status', 8], ['SECRETS', 'secrets', 7], ['DESCRIPTION', 'description', 2]]);
const REGION_COLUMNS = columnsOf([['REGION', 'code', 9], ['NAME', 'name', 4], ['SMALLEST', 'smallest', 8], ['PER HOUR', 'per_hour', 8], ['SIZES', 'sizes', 3]]);

export function regionRows(regions: readonly Region[]) {
  return regions.map((r) => {
    const s = r.sizes[0]!;
    return { code: r.code, name: r.name, smallest: s.name, per_hour: `${formatRate(s.per_hour)} ${s.currency.toUpperCase()}`, sizes: r.sizes.map((x) => x.name) };
  });
}

async function catalog(ctx: CommandContext): Promise<number> {
  return withSession(ctx, async (session) => {
    const agents = agentCatalog(session.config, ctx.env);
    let regions: Region[] | undefined;
    let failure: unknown;
    try {
      regions = containerRegions(await readLive(session, ctx.signal, false));
    } catch (err) {
      failure = err;
    }
    // A document without its regions is no answer for a program; people still get the agents.
    if (failure && ctx.out.structured) throw failure;
    const agentRows = agents.map((a) => ({ ...a, secrets: a.secrets.map((s) => (a.missing_secrets.includes(s) ? `${s} (not set)` : s)) }));
    const agentsTable = `AGENTS\n${ctx.out.table(agentRows, AGENT_COLUMNS)}`;
    // The agents are listed; the regions need the gpucloud catalogue, which could not be read.
    const regionsTable = () => `\nREGIONS (gpucloud locations offering serverless containers; price of the smallest size per running replica)\n${ctx.out.table(regionRows(regions!), REGION_COLUMNS)}`;
    ctx.out.value({ agents, regions }, { table: () => agentsTable + (failure ? '\n' : regionsTable()) });
    if (failure) throw failure;
    return ExitCode.ok;
  });
}

// ---------------------------------------------------------------- manifest

async function manifest(ctx: CommandContext, opts: ManifestFlags): Promise<number> {
  const format = opts.format ?? 'plan';
  const port = opts.port ?? DEFAULT_BOX_PORT;
  const secrets = (opts.secret ?? []).map(parseSecretFlag);
  const env = (opts.env ?? []).map(parseEnvFlag);
  const image = opts.image ?? defaultBoxImage();
  return withSession(ctx, async (session) => {
    const agent = resolveAgent(ctx, session, opts.agent, 'box manifest');
    const rawName = opts.name ?? `box-${agent.name}`;
    const name = slugName(rawName);
    if (name !== rawName) warn(ctx, `--name "${rawName}" is used as "${name}" (lower-case letters, digits and dashes)`);
    // Checked before a token is generated: an unknown region or size leaves nothing behind.
    const live = await readLive(session, ctx.signal, true);
    const request = {
      agent,
      name,
      region: opts.region,
      defaultRegion: session.predefined.DEFAULT_LOCATION,
      size: opts.size,
      image,
      port,
      secrets,
      env,
      allowApply: Boolean(opts.allowApply),
    };
    compileManifest({ ...request, tokenSha256: '0'.repeat(64), tokenIsNew: false }, live);
    const token = ensureBoxToken(ctx.home, name);
    const compiled = compileManifest({ ...request, tokenSha256: tokenSha256(token.token), tokenIsNew: token.created }, live);
    ctx.io.stderr.write(`token: ${token.created ? 'generated and kept' : 'kept'} in ${token.path} (0600); the plan holds only its SHA-256\n`);
    if (format === 'container-spec') {
      ctx.io.stderr.write(`note: set ${TOKEN_SHA256_ENV} in the container from a secret holding ${tokenSha256(token.token)} (the token's SHA-256; gpucloud secret ${compiled.tokenSecret} in the plan)\n`);
      ctx.out.document(compiled.container);
      return ExitCode.ok;
    }
    ctx.io.stderr.write(`plan: ${compiled.plan.summary}\n`);
    for (const note of [compiled.plan.notes ?? []].flat()) ctx.io.stderr.write(`note: ${note}\n`);
    if (compiled.missingSecrets.length) warn(ctx, `gpucloud secret(s) ${compiled.missingSecrets.join(', ')} do not exist yet; applying fails until they do`);
    // The plan as it is, never masked (`> box.json` deploys what it says): --env refused every secret-looking value.
    ctx.out.document(compiled.plan);
    return ExitCode.ok;
  });
}

// ---------------------------------------------------------------- serve

/** `host:port`, `[v6]:port`, or a bare host (the port then comes from PORT). */
function parseBoxListen(value: string, port: number): { host: string; port: number } {
  if (/^(\[[^\]]*\]|[^:]*):\d+$/.test(value.trim())) return parseListen(value, `127.0.0.1:${port}`);
  const host = value.trim().replace(/^\[|\]$/g, '');
  if (!host) throw new UsageError(`--listen must be host or host:port (got "${value}")`, { hint: `e.g. --listen 0.0.0.0:${port}` });
  return { host, port };
}

/** The agent's runner. The AI call's own bound is a little longer than the request's, so the request's deadline is what ends it. */
function runnerFor(ctx: CommandContext, session: Session, agent: CatalogAgent, opts: ServeFlags, requestTimeoutMs: number): AgentRunner {
  if (agent.name === 'empty') return emptyAgent();
  if (agent.kind === 'acp') {
    const sandbox = agentSandbox({ config: session.config.agent, home: ctx.home, configPath: ctx.globals.config, unsandboxed: Boolean(opts.unsandboxed) });
    // Said at start, not at every message: a box that cannot contain its agent does not serve it.
    const available = sandboxAvailability(ctx.env);
    if (!available.ok) {
      if (!sandbox.unsandboxed) throw new SandboxUnavailable(`the agent ${agent.name}`, available.why);
      warn(ctx, `agent ${agent.name} runs unsandboxed (--unsandboxed): it can read everything this box can, its environment and config included`);
    }
    return acpAgent(agent, { env: ctx.env, signal: ctx.signal, sandbox });
  }
  return assistantAgent({ host: { home: ctx.home, env: ctx.env, sandbox: ctx.globals.sandbox, debug: ctx.debug.callback }, session, allowApply: Boolean(opts.allowApply), aiProfile: opts.aiProfile, aiTimeoutMs: requestTimeoutMs + 5_000 });
}

async function serve(ctx: CommandContext, opts: ServeFlags): Promise<number> {
  const envPort = ctx.env.PORT?.trim();
  const port = envPort ? intFlag('PORT', envPort, DEFAULT_BOX_PORT, 0, 65535) : DEFAULT_BOX_PORT;
  const listen = opts.listen === undefined ? { host: '127.0.0.1', port } : parseBoxListen(opts.listen, port);
  let token = await tokenFromEnv(ctx.env);
  if (!isLoopbackHost(listen.host) && !token) {
    throw new UsageError(`listening on ${listen.host} (not loopback) needs a token; the box refuses to start without one`, {
      hint: `set ${TOKEN_ENV} to a long random value (e.g. $(openssl rand -hex 32)), or ${TOKEN_SHA256_ENV} to its SHA-256`,
    });
  }
  // The flags arrive coerced (FLAGS); absent ones take the defaults.
  const requestTimeoutMs = opts.requestTimeout === undefined ? BOX_DEFAULTS.requestTimeoutMs : Math.round(opts.requestTimeout * 1000);
  const limits = {
    maxSessions: opts.maxSessions ?? BOX_DEFAULTS.maxSessions,
    sessionIdleMs: opts.sessionIdle === undefined ? BOX_DEFAULTS.sessionIdleMs : Math.round(opts.sessionIdle * 1000),
    maxTurns: opts.historyTurns ?? BOX_DEFAULTS.maxTurns,
    maxBodyBytes: opts.maxBodyKb === undefined ? BOX_DEFAULTS.maxBodyBytes : opts.maxBodyKb * 1024,
  };
  const drainMs = opts.drainTimeout === undefined ? BOX_DEFAULTS.drainMs : opts.drainTimeout * 1000;
  const origins = (opts.allowOrigin ?? []);
  return withSession(
    ctx,
    async (session) => {
      const agent = resolveAgent(ctx, session, opts.agent, 'box serve');
      if (opts.allowApply && agent.name !== 'assistant') throw new UsageError(`--allow-apply is for the assistant agent (agent ${agent.name} makes no plans)`);
      if (agent.kind === 'acp' && agent.status !== 'ready') warn(ctx, `agent ${agent.name}: ${agent.status}${agent.missing_secrets.length ? ` (${agent.missing_secrets.join(', ')})` : ''}`);
      // A box that applies plans is not left open to every local user: without a configured token it
      // makes one (kept 0600, printed once, reused on later starts), as Jupyter does.
      if (!token && opts.allowApply) token = generatedToken(ctx);
      const runner = runnerFor(ctx, session, agent, opts, requestTimeoutMs);
      const log = ctx.debug.callback;
      const stop = whenStopped(ctx.signal);
      try {
        const server = await startBoxServer({ ...listen, ...limits, agent: runner, token, version: assistantVersion(), allowedOrigins: origins, requestTimeoutMs, log });
        const auth = token ? `bearer token required (${token.source})` : 'loopback only, no token';
        ctx.io.stderr.write(`assistant box (agent ${runner.name}) listening on ${server.url} (${auth}${opts.allowApply ? ', applies plans' : ''}); Ctrl-C or SIGTERM stops it\n`);
        const why = await stop.stopped;
        const pending = server.inFlight();
        ctx.io.stderr.write(`${why === 'SIGTERM' ? 'SIGTERM' : 'interrupted'}: stopping${pending ? `; ${pending} answer(s) in flight get up to ${drainMs / 1000} s to finish` : ''}\n`);
        mustEndWithin(drainMs + 15_000, (line) => ctx.io.stderr.write(`box: ${line}\n`));
        const { finished, cancelled } = await server.close(drainMs);
        ctx.io.stderr.write(`box stopped: ${finished} in-flight answer(s) finished, ${cancelled} cancelled\n`);
        return ExitCode.ok;
      } finally {
        stop.dispose();
        await runner.close().catch(() => undefined);
      }
    },
    { overallDeadline: false },
  );
}

/**
 * The box's token from its environment: ASSISTANT_BOX_TOKEN (refused below 128 bits of estimated
 * entropy) or its SHA-256 (ASSISTANT_BOX_TOKEN_SHA256, what a deployed box gets from its gpucloud
 * secret); undefined when neither is set.
 */
async function tokenFromEnv(env: Record<string, string | undefined>): Promise<ServerToken | undefined> {
  const plain = env[TOKEN_ENV]?.trim();
  const hashed = env[TOKEN_SHA256_ENV]?.trim();
  if (plain && hashed) throw new InvalidInputError('two_tokens', `${TOKEN_ENV} and ${TOKEN_SHA256_ENV} are both set`, { hint: 'set one of them' });
  if (plain) return configuredToken(plain, TOKEN_ENV);
  if (hashed) return digestToken(hashed, TOKEN_SHA256_ENV);
  return undefined;
}

/** The generated token of `box serve` on this machine; printed on stdout the one time it is made. */
function generatedToken(ctx: CommandContext): ServerToken {
  const made = generatedServerToken(ctx.home, 'box', BOX_TOKEN_PREFIX);
  if (made.created) {
    ctx.out.text(`${made.value}\n`, { reveal: true });
    ctx.io.stderr.write(`token: generated for this box and kept in ${made.path} (0600); shown once, above. Clients send "Authorization: Bearer <token>"; set ${TOKEN_ENV} to use your own\n`);
  }
  return made.token;
}

