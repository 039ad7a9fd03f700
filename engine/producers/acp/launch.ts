/**
 * Which external agent `talk` runs, and how: the binary (`--agent NAME`, else `agent.path`, else
 * auto-detected when the config has an `agent` section without a path), its arguments, and the
 * environment that carries `agent.model`, `agent.base_url` and `agent.router_api_key` the way that
 * agent reads them. Agents we know get their own variable names; any other gets the ASSISTANT_AGENT_*
 * and OpenAI-style names. The model is also chosen over ACP when the agent offers a model option.
 */
import { statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import type { AgentConfig } from '../../../schemas/config.js';
import { UsageError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { agentEnvironment } from './env.js';
import { isExecutable } from '../../core/process/probe.js';

interface AgentKind {
  /** Binary names of this kind. */
  names: string[];
  /** Arguments that make it speak ACP on stdio. */
  args: string[];
  model?: string;
  baseUrl?: string;
  key?: string;
  /** Its own AI key variables, passed through when set (the one key it needs, no other). */
  ownKeys: string[];
}

/** ACP agents we know how to configure, in auto-detection order. */
export const KNOWN_AGENTS: readonly AgentKind[] = [
  { names: ['claude-code-acp', 'claude-agent-acp'], args: [], model: 'ANTHROPIC_MODEL', baseUrl: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_AUTH_TOKEN', ownKeys: ['ANTHROPIC_API_KEY'] },
  { names: ['codex-acp'], args: [], baseUrl: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY', ownKeys: ['OPENAI_API_KEY'] },
  { names: ['gemini'], args: ['--experimental-acp'], model: 'GEMINI_MODEL', baseUrl: 'GOOGLE_GEMINI_BASE_URL', key: 'GEMINI_API_KEY', ownKeys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
];

/** Any other agent: our own names plus the OpenAI-style ones most agent frameworks read. */
const GENERIC: AgentKind = { names: [], args: [], model: 'ASSISTANT_AGENT_MODEL', baseUrl: 'ASSISTANT_AGENT_BASE_URL', key: 'ASSISTANT_AGENT_API_KEY', ownKeys: [] };
const GENERIC_ALIASES = { model: 'OPENAI_MODEL', baseUrl: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY' };

export interface AgentLaunch {
  /** The binary's name, for messages and the session file. */
  name: string;
  command: string;
  args: string[];
  /** The child's whole environment (an allowlist plus the agent settings). */
  env: Record<string, string>;
  model?: string;
}

export interface ResolveAgentOptions {
  /** `--agent NAME` (a path, a name on PATH, or `auto`). */
  flag?: string;
  config?: AgentConfig;
  env: Record<string, string | undefined>;
  /** Where relative paths are resolved (the working directory). */
  cwd: string;
}

/** The agent to run, or undefined when talk answers by itself (no --agent, no `agent` config). */
export function resolveAgentLaunch(o: ResolveAgentOptions): AgentLaunch | undefined {
  const wanted = o.flag ?? o.config?.path ?? (o.config ? 'auto' : undefined);
  if (!wanted) return undefined;
  const command = wanted === 'auto' ? detectAgent(o.env) : findBinary(wanted, o.env, o.cwd);
  const name = basename(command);
  const kind = KNOWN_AGENTS.find((k) => k.names.includes(name)) ?? GENERIC;
  const extra: Record<string, string> = {};
  const set = (vars: (string | undefined)[], value: string | undefined) => {
    if (value === undefined) return;
    for (const v of vars) if (v) extra[v] = value;
  };
  const generic = kind === GENERIC;
  const cfg = o.config ?? {};
  registerSecret(cfg.router_api_key);
  set([kind.model, generic ? GENERIC_ALIASES.model : undefined], cfg.model);
  set([kind.baseUrl, generic ? GENERIC_ALIASES.baseUrl : undefined], cfg.base_url);
  set([kind.key, generic ? GENERIC_ALIASES.key : undefined], cfg.router_api_key);
  return { name, command, args: [...kind.args], env: agentEnvironment(o.env, extra, kind.ownKeys), model: cfg.model };
}

/** The first known ACP agent on PATH. */
function detectAgent(env: Record<string, string | undefined>): string {
  for (const kind of KNOWN_AGENTS) {
    for (const name of kind.names) {
      const found = onPath(name, env);
      if (found) return found;
    }
  }
  throw new UsageError(`no ACP agent was found on PATH (looked for ${KNOWN_AGENTS.flatMap((k) => k.names).join(', ')})`, {
    hint: 'install one, or set agent.path in the config, or pass --agent <name or path>; without an agent, drop the `agent` section to let talk answer by itself',
  });
}

function findBinary(wanted: string, env: Record<string, string | undefined>, cwd: string): string {
  if (wanted.includes('/') || isAbsolute(wanted)) {
    const path = resolve(cwd, wanted);
    if (!isExecutable(path)) throw new UsageError(`the agent ${path} ${exists(path) ? 'is not executable' : 'does not exist'}`, { hint: exists(path) ? `chmod +x ${path}` : 'check agent.path or --agent' });
    return path;
  }
  const found = onPath(wanted, env);
  if (!found) throw new UsageError(`the agent "${wanted}" was not found on PATH`, { hint: 'give its path (agent.path or --agent ./path/to/agent), or install it' });
  return found;
}

function onPath(name: string, env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

