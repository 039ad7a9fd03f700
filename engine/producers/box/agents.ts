/**
 * The agents a box can run: the built-in `assistant` (the ask flow and the plan makers), `empty`
 * (health and info only), and external coding agents spoken to over ACP (the Agent Client Protocol, a
 * JSON-RPC dialogue over the agent's stdin/stdout): the one named by the config's `agent.path`, and
 * the ACP-speaking agents this build knows, found on PATH. Each has a status (ready, binary missing,
 * secret missing) and the names of the secrets (environment variables) it needs.
 *
 * Finding a binary only looks at the file system (PATH entries, executable bit): nothing is run.
 */
import { basename, delimiter, isAbsolute, join } from 'node:path';
import type { Config } from '../../../schemas/config.js';
import { isExecutable } from '../../core/process/probe.js';

export type AgentKind = 'builtin' | 'acp';
export type AgentStatus = 'ready' | 'binary missing' | 'secret missing';

/** What an agent is and how it is started; the catalogue adds where it was found and its status. */
export interface AgentSpec {
  name: string;
  kind: AgentKind;
  description: string;
  /** ACP agents: the program and its arguments that make it speak ACP on stdio. */
  command?: string;
  args?: string[];
  /** Environment variables the agent needs (API keys); a box passes these and no other secret to it. */
  secrets: string[];
}

export interface CatalogAgent extends AgentSpec {
  status: AgentStatus;
  /** ACP agents: the binary found (absolute path), when found. */
  path?: string;
  /** Secrets from `secrets` that are not set in this environment. */
  missing_secrets: string[];
  /** Where the entry comes from: `built-in`, `config agent.path`, `known ACP agent`. */
  source: string;
}

export const BUILTIN_AGENTS: readonly AgentSpec[] = [
  {
    name: 'assistant',
    kind: 'builtin',
    description: 'the built-in agent: answers questions about the cloud (the ask flow) and makes plans (the makers); applies only when the box is started with --allow-apply',
    secrets: [],
  },
  { name: 'empty', kind: 'builtin', description: 'no agent: the box answers /healthz and /v1/box/info only', secrets: [] },
];

/**
 * Coding agents that speak ACP on stdio, with the command line that makes them do so and the key each
 * needs for its default model provider. (Agents that log in with a subscription instead of a key show
 * `secret missing` until the key is set; the status is about what a box in a container can rely on.)
 */
export const KNOWN_ACP_AGENTS: readonly AgentSpec[] = [
  { name: 'claude-code', kind: 'acp', description: "Claude Code through Zed's ACP adapter (npm @zed-industries/claude-code-acp)", command: 'claude-code-acp', args: [], secrets: ['ANTHROPIC_API_KEY'] },
  { name: 'codex', kind: 'acp', description: "OpenAI Codex through Zed's ACP adapter (npm @zed-industries/codex-acp)", command: 'codex-acp', args: [], secrets: ['OPENAI_API_KEY'] },
  { name: 'gemini', kind: 'acp', description: 'Gemini CLI in ACP mode', command: 'gemini', args: ['--experimental-acp'], secrets: ['GEMINI_API_KEY'] },
  { name: 'goose', kind: 'acp', description: 'Goose in ACP mode (its provider comes from its own configuration)', command: 'goose', args: ['acp'], secrets: [] },
  { name: 'opencode', kind: 'acp', description: 'opencode in ACP mode (its provider comes from its own configuration)', command: 'opencode', args: ['acp'], secrets: [] },
];


/** The absolute path of `command` on PATH (or itself, when it is a path), if it is there and executable. */
export function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  if (command.includes('/')) return isAbsolute(command) && isExecutable(command) ? command : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // a relative PATH entry would depend on the current directory
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The agent of the config's `agent` section: its binary, and the known agent it is (by file name), if any. */
function configuredAgent(config: Config): AgentSpec | undefined {
  const path = config.agent?.path?.trim();
  if (!path) return undefined;
  const file = basename(path);
  const known = KNOWN_ACP_AGENTS.find((a) => a.command === file);
  const name = (known?.name ?? file.replace(/\.[a-z]+$/i, '').toLowerCase().replace(/[^a-z0-9-]+/g, '-')) || 'agent';
  return { name, kind: 'acp', description: known ? `${known.description}, at agent.path` : `the ACP agent at agent.path (${path})`, command: path, args: known?.args ?? [], secrets: known?.secrets ?? [] };
}

function withStatus(spec: AgentSpec, env: Record<string, string | undefined>, source: string): CatalogAgent {
  const missing = spec.secrets.filter((s) => !env[s]);
  if (spec.kind === 'builtin') return { ...spec, status: 'ready', missing_secrets: [], source };
  const path = findOnPath(spec.command!, env);
  const status: AgentStatus = !path ? 'binary missing' : missing.length ? 'secret missing' : 'ready';
  return { ...spec, status, ...(path ? { path } : {}), missing_secrets: missing, source };
}

/**
 * Every agent a box can run here: the built-in ones, the config's agent, then the known ACP agents
 * (a known agent that the config names is listed once, as the config's).
 */
export function agentCatalog(config: Config, env: Record<string, string | undefined>): CatalogAgent[] {
  const out = BUILTIN_AGENTS.map((a) => withStatus(a, env, 'built-in'));
  const configured = configuredAgent(config);
  if (configured) out.push(withStatus(configured, env, 'config agent.path'));
  for (const known of KNOWN_ACP_AGENTS) if (!out.some((a) => a.name === known.name)) out.push(withStatus(known, env, 'known ACP agent'));
  return out;
}

/** The catalogue entry named `name`, or undefined. */
export function findAgent(catalog: readonly CatalogAgent[], name: string): CatalogAgent | undefined {
  return catalog.find((a) => a.name === name.trim().toLowerCase());
}
