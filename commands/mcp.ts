/**
 * `assistant mcp`: serves the tools to AI agents over Streamable HTTP (default) or stdio.
 * One session (config, one gpucloud client) lives as long as the server, shared by every agent.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolveAiProvider } from '../engine/producers/ai/resolve.js';
import { UsageError } from '../engine/core/errors.js';
import { parseListen } from '../engine/core/listen.js';
import { isLoopbackHost } from '../engine/core/loopback.js';
import { mustEndWithin } from '../engine/core/kits/serve/lifecycle.js';
import { configuredToken, generatedServerToken, type ServerToken } from '../engine/core/kits/serve/token.js';
import { AssistantError } from '../engine/core/errors.js';
import { DEFAULT_MAX_SESSIONS, startMcpHttpServer } from '../mcp/http.js';
import { createMcpServer } from '../mcp/server.js';
import { offeredTools, type McpBackend } from '../mcp/tools.js';
import type { CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { rawStream } from './terminal.js';
import { withSession } from './session.js';
import { startAutostopTimer } from '../mcp/autostop-timer.js';

const formatMs = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

export const AUTH_TOKEN_ENV = 'ASSISTANT_MCP_AUTH_TOKEN';
/** What a generated MCP token starts with, so people (and secret scanners) can tell what it is. */
const MCP_TOKEN_PREFIX = 'amc_';

/** What `mcp serve`'s flags are; McpOptions is derived from it. */
const FLAGS = {
  serve: {
    transport: flag.oneOf(['http', 'stdio']).option('--transport <transport>', 'http (Streamable HTTP on POST /mcp) or stdio', { default: 'http' }),
    stdio: flag.bool().option('--stdio', 'Same as --transport stdio (for launchers that keep --transport for themselves, like the MCP Inspector)'),
    listen: flag.text().option('--listen <host:port>', 'Address for --transport http (loopback unless --auth-token is set)', { default: '127.0.0.1:39393' }),
    authToken: flag.text().option('--auth-token <token>', `Bearer token clients must send (or set ${AUTH_TOKEN_ENV}); required off loopback`),
    destroyer: flag.bool().option('--destroyer', 'Allow assistant_plan_apply to run destructive plans'),
    readOnly: flag.bool().option('--read-only', 'Offer only tools that change nothing (no assistant_plan_apply): an agent cannot spend money through this server'),
    stateless: flag.bool().option('--stateless', 'HTTP without sessions: every POST stands alone (for one-shot clients that call tools without initialize)'),
    aiProfile: flag.text().option('--ai-profile <name>', 'AI provider profile the ask tool uses (ai.providers.<name>), as for `assistant ask`; "builtin" answers offline'),
    maxSessions: flag.positiveInt().option('--max-sessions <n>', `Live HTTP sessions at most; a new one closes the least recently used idle one (default ${DEFAULT_MAX_SESSIONS})`),
  },
} satisfies Record<string, FlagSpec>;

type McpOptions = OptionsOf<typeof FLAGS.serve>;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  // `assistant mcp` is the one command of its group; `serve` is implied so that no flags start the server.
  return runGroup('mcp', argv[0] === 'serve' ? argv : ['serve', ...argv], ctx, { flags: FLAGS }, (cli, start) => {
    withFlags(
      cli
        .command('serve', 'Start the MCP server (tools for AI agents) over Streamable HTTP or stdio')
        .usage('[--transport http|stdio | --stdio] [--listen host:port] [--auth-token <token>] [--destroyer | --read-only] [--stateless] [--max-sessions n] [--ai-profile <name>]'),
      FLAGS.serve,
    )
      .example('  assistant mcp                                   # http://127.0.0.1:39393/mcp')
      .example('  assistant mcp --transport stdio                 # for Claude Desktop / Claude Code')
      .example('  assistant mcp --read-only                       # list, get, validate and ask only')
      .example('  assistant mcp --ai-profile builtin              # the ask tool answers offline, no model')
      .example(`  ${AUTH_TOKEN_ENV}=$(openssl rand -hex 32) assistant mcp --listen 0.0.0.0:39393`)
      .example('  npx @modelcontextprotocol/inspector --cli http://127.0.0.1:39393/mcp --transport http --method tools/list')
      .action((opts: McpOptions) => start(() => serve(ctx, opts)));
  });
}

async function serve(ctx: CommandContext, opts: McpOptions): Promise<number> {
  if (opts.stdio) opts = { ...opts, transport: 'stdio' };
  const authToken = opts.authToken ?? (ctx.env[AUTH_TOKEN_ENV] || undefined);
  const listen = parseListen(opts.listen);
  const loopback = isLoopbackHost(listen.host);
  if (opts.transport === 'http' && !loopback && !authToken) {
    throw new UsageError(`listening on ${listen.host} (not loopback) needs a bearer token`, {
      hint: `set ${AUTH_TOKEN_ENV} (or --auth-token) to a long random value, e.g. $(openssl rand -hex 32)`,
    });
  }
  const maxSessions = opts.maxSessions;
  if (opts.destroyer && opts.readOnly) throw new UsageError('--destroyer and --read-only contradict each other', { hint: 'pass one of them' });
  let token: ServerToken | undefined;
  if (opts.transport === 'http') {
    if (authToken) token = await checkedToken(authToken, opts.authToken ? '--auth-token' : AUTH_TOKEN_ENV, loopback);
    // A server that can apply plans is not left open to every local user: without a configured token
    // it makes one (kept 0600, printed once, reused on later starts), as Jupyter does. --read-only may stay open.
    else if (!opts.readOnly) token = generatedToken(ctx);
  }
  const destroyer = Boolean(opts.destroyer);
  const readOnly = Boolean(opts.readOnly);
  const aiProfile = opts.aiProfile?.trim();
  if (aiProfile === '') throw new UsageError('--ai-profile needs a profile name', { hint: 'e.g. --ai-profile builtin, or a key under ai.providers' });
  return withSession(ctx, async (session) => {
    // An unknown profile or a missing key is found now, not by the first agent that asks.
    if (aiProfile) resolveAiProvider({ aiConfig: session.config.ai, profileName: aiProfile, env: ctx.env });
    const log = ctx.debug.callback;
    const requestTimeoutS = ctx.globals.timeout ?? session.config.timeout;
    const backend: McpBackend = { ...session, home: ctx.home, env: ctx.env, sandbox: ctx.globals.sandbox, destroyer, readOnly, log, requestTimeoutS, aiProfile };
    const gate = readOnly ? 'read-only (no tool can change anything)' : destroyer ? 'destructive plans ALLOWED (--destroyer)' : 'destructive plans refused';
    const stopped = new Promise<void>((resolve) => ctx.interrupt.addEventListener('abort', () => resolve(), { once: true }));
    // Idle auto-stop on a timer when autostop.check_every is set (mcp/autostop-timer.ts); off by default.
    const autostop = readOnly ? undefined : startAutostopTimer(backend, { home: ctx.home, interrupt: ctx.interrupt, timeoutS: requestTimeoutS, log: (line) => ctx.io.stderr.write(`${line}\n`) });
    if (readOnly && session.config.autostop?.check_every !== undefined) ctx.io.stderr.write('autostop: not checking on a timer (--read-only: this server changes nothing)\n');
    if (autostop) ctx.io.stderr.write(`autostop: checking every ${formatMs(autostop.everyMs)} (autostop.check_every)${session.config.autostop?.allow_hibernate ? '; hibernation allowed (autostop.allow_hibernate)' : ''}${session.config.autostop?.allow_delete ? '; deletes allowed (autostop.allow_delete)' : ''}\n`);
    try {
      if (opts.transport === 'stdio') await serveStdio(ctx, backend, gate, stopped);
      else await serveHttp(ctx, backend, { ...listen, token, maxSessions, stateless: Boolean(opts.stateless) }, gate, stopped);
    } finally {
      await autostop?.stop();
    }
    return 0;
  }, { overallDeadline: false }); // a server lives for hours: --timeout bounds each request there, not its life
}

/**
 * A token given with --auth-token or ASSISTANT_MCP_AUTH_TOKEN: refused below 128 bits of estimated
 * entropy on any address (engine/core/kits/serve/strength.ts). A usage error, as before, so scripts see
 * the same exit and code.
 */
async function checkedToken(value: string, source: string, loopback: boolean): Promise<ServerToken> {
  try {
    return await configuredToken(value, source, loopback ? '' : ' for a non-loopback listener');
  } catch (err) {
    if (!(err instanceof AssistantError) || (err.code !== 'token_too_short' && err.code !== 'weak_token')) throw err;
    throw new UsageError(err.message.slice(`${source}: `.length), { hint: `generate one with 'openssl rand -hex 32' and put it in ${AUTH_TOKEN_ENV} (or --auth-token)` });
  }
}

/** The generated token of `assistant mcp` on this machine; printed on stdout the one time it is made. */
function generatedToken(ctx: CommandContext): ServerToken {
  const made = generatedServerToken(ctx.home, 'mcp', MCP_TOKEN_PREFIX);
  if (made.created) {
    ctx.out.text(`${made.value}\n`, { reveal: true });
    ctx.io.stderr.write(`token: generated for this MCP server and kept in ${made.path} (0600); shown once, above. Clients send "Authorization: Bearer <token>"; set ${AUTH_TOKEN_ENV} to use your own, or --read-only for a server that needs none on loopback\n`);
  }
  return made.token;
}

/** Until stdin ends (the client went away) or Ctrl-C; stdout carries only the protocol. */
async function serveStdio(ctx: CommandContext, backend: McpBackend, gate: string, stopped: Promise<void>): Promise<void> {
  // The protocol, not text for a person: JSON-RPC goes to the real stdout, not through the terminal guard.
  const transport = new StdioServerTransport(ctx.io.stdin as never, rawStream(ctx.io.stdout) as never);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    ctx.io.stdin.once('end', resolve);
  });
  await createMcpServer(backend).connect(transport);
  ctx.io.stderr.write(`assistant MCP server on stdio: ${offeredTools(backend).length} tools, ${gate}\n`);
  await Promise.race([closed, stopped]);
  await transport.close();
}

async function serveHttp(
  ctx: CommandContext,
  backend: McpBackend,
  listen: { host: string; port: number; token?: ServerToken; maxSessions?: number; stateless: boolean },
  gate: string,
  stopped: Promise<void>,
): Promise<void> {
  const server = await startMcpHttpServer({ ...listen, newServer: () => createMcpServer(backend), log: backend.log });
  const token = listen.token ? `, bearer token required (${listen.token.source})` : '';
  const sessions = listen.stateless ? ', stateless' : '';
  ctx.io.stderr.write(`assistant MCP server listening on ${server.url} (${offeredTools(backend).length} tools, ${gate}${sessions}${token}); Ctrl-C stops it\n`);
  await stopped;
  mustEndWithin(15_000, (line) => ctx.io.stderr.write(`MCP server: ${line}\n`));
  await server.close();
  ctx.io.stderr.write('MCP server stopped\n');
}

