/**
 * External coding agents over ACP (agents from `box catalog` of kind `acp`). One agent process per box
 * session, started on the session's first message in a sandbox of its own (engine/producers/acp/sandbox.ts:
 * its own PID namespace and /proc, so the box's environment is out of its reach; a scratch folder of its
 * own, so no other session's agent sees its files; no home, config or data of the box) with the child
 * environment allowlist (box/child-env.ts), kept for the session's later messages and stopped when the
 * session ends.
 *
 * The ACP client is the project's one (engine/producers/acp/client.ts). Nobody sits at a box to answer an
 * agent's permission requests, so every one is refused (default deny): an agent in a box can talk, and
 * whatever it wants to do through its own tools is not allowed.
 */
import type { CatalogAgent } from '../../engine/producers/box/agents.js';
import { BoxError, type AgentReply, type AgentRequest, type AgentRunner } from '../agent.js';
import { childEnvironment } from '../child-env.js';
import { startAcpAgent } from '../../engine/producers/acp/client.js';
import { containAgent, type AgentSandbox } from '../../engine/producers/acp/sandbox.js';
import type { Contained } from '../../engine/core/process/contain.js';

/** One ACP agent process with one ACP session: the shape the box needs from the project's ACP client. */
export interface AcpConnection {
  /** Sends one prompt; resolves with the agent's whole text reply, streaming its text through onText. */
  prompt(text: string, opts: { signal: AbortSignal; onText?: (text: string) => void }): Promise<string>;
  close(): Promise<void>;
}

export type AcpStarter = (opts: { command: string; args: string[]; env: Record<string, string>; contained: Contained; signal: AbortSignal }) => Promise<AcpConnection>;

/** The project's ACP client in the shape the box needs: text in, text out, permission always refused. */
export const PROJECT_ACP_STARTER: AcpStarter = async (o) => {
  const agent = await startAcpAgent({ command: o.command, args: o.args, env: o.env, contained: o.contained, signal: o.signal });
  return {
    async prompt(text, { signal, onText }) {
      const { text: answer } = await agent.prompt(text, {
        signal,
        onUpdate: (u) => {
          if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') onText?.(u.content.text);
        },
        onPermission: async () => ({ outcome: 'cancelled' }),
      });
      return answer;
    },
    close: () => agent.close(),
  };
};

export interface AcpAgentOptions {
  env: Record<string, string | undefined>;
  /** The box's life: agent processes end with it. */
  signal: AbortSignal;
  /** Where its processes run (the user's grants, the box's config and data hidden, --unsandboxed). */
  sandbox: AgentSandbox;
  /** Defaults to PROJECT_ACP_STARTER. */
  starter?: AcpStarter;
}

export function acpAgent(spec: CatalogAgent, opts: AcpAgentOptions): AgentRunner {
  const starter = opts.starter ?? PROJECT_ACP_STARTER;
  const connections = new Map<string, Promise<AcpConnection>>();
  const env = childEnvironment(opts.env, spec.secrets);
  const end = (sessionId: string) => {
    const c = connections.get(sessionId);
    connections.delete(sessionId);
    void c?.then((conn) => conn.close()).catch(() => undefined);
  };
  return {
    name: spec.name,
    kind: 'acp',
    modes: ['answer'],
    description: `${spec.description} (ACP)`,
    async answer(req: AgentRequest): Promise<AgentReply> {
      if (req.mode !== 'answer') throw new BoxError(400, 'mode_not_supported', `agent ${spec.name} takes messages in mode "answer" only`);
      if (!spec.path && !spec.command) throw new BoxError(503, 'binary_missing', `agent ${spec.name} has no binary`);
      let conn = connections.get(req.sessionId);
      if (!conn) {
        const command = spec.path ?? spec.command!;
        const args = spec.args ?? [];
        // A scratch folder per session: an agent never sees another session's files.
        const contained = containAgent({ name: spec.name, command, args, env }, opts.sandbox);
        conn = starter({ command, args, env, contained, signal: opts.signal });
        connections.set(req.sessionId, conn);
        conn.catch(() => {
          connections.delete(req.sessionId);
          contained.dispose();
        });
      }
      const answer = await (await conn).prompt(req.message, { signal: req.signal, onText: req.onToken });
      return { answer, meta: { agent: spec.name } };
    },
    endSession: end,
    close: async () => {
      for (const id of [...connections.keys()]) end(id);
    },
  };
}
