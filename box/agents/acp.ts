/**
 * External coding agents over ACP (agents from `box catalog` of kind `acp`). One agent process per box
 * session, started on the session's first message with the child environment allowlist
 * (box/child-env.ts), kept for the session's later messages and stopped when the session ends.
 *
 * The ACP client itself is not written here: the project has one (engine/acp/). Until it is plugged
 * in below, a box started with an ACP agent serves /healthz and /v1/box/info, and messages get
 * 501 `not_wired`.
 */
import type { CatalogAgent } from '../../engine/box/agents.js';
import { BoxError, type AgentReply, type AgentRequest, type AgentRunner } from '../agent.js';
import { childEnvironment } from '../child-env.js';

/** One ACP agent process with one ACP session: the shape the box needs from the project's ACP client. */
export interface AcpConnection {
  /** Sends one prompt; resolves with the agent's whole text reply, streaming its text through onText. */
  prompt(text: string, opts: { signal: AbortSignal; onText?: (text: string) => void }): Promise<string>;
  close(): Promise<void>;
}

export type AcpStarter = (opts: { command: string; args: string[]; env: Record<string, string>; signal: AbortSignal }) => Promise<AcpConnection>;

// ------------------------------------------------------------------------------------------------
// MERGE POINT (lead): plug the project's ACP client in here, e.g.
//   import { startAcpAgent } from '../../engine/acp/client.js';
//   export const PROJECT_ACP_STARTER: AcpStarter | undefined = (o) => adapt(startAcpAgent(o));
// This is the only line that needs to change; everything below already uses it.
export const PROJECT_ACP_STARTER: AcpStarter | undefined = undefined;
// ------------------------------------------------------------------------------------------------

export interface AcpAgentOptions {
  env: Record<string, string | undefined>;
  /** The box's life: agent processes end with it. */
  signal: AbortSignal;
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
  const notWired = starter
    ? undefined
    : new BoxError(501, 'not_wired', `the ACP agent "${spec.name}" is in the catalogue, but this build has no ACP client wired into box serve yet`, 'run the built-in agent meanwhile: assistant box serve --agent assistant');
  return {
    name: spec.name,
    kind: 'acp',
    modes: starter ? ['answer'] : [],
    description: `${spec.description} (ACP${starter ? '' : '; not wired in this build'})`,
    unavailable: notWired,
    async answer(req: AgentRequest): Promise<AgentReply> {
      if (!starter) throw notWired!;
      if (req.mode !== 'answer') throw new BoxError(400, 'mode_not_supported', `agent ${spec.name} takes messages in mode "answer" only`);
      if (!spec.path && !spec.command) throw new BoxError(503, 'binary_missing', `agent ${spec.name} has no binary`);
      let conn = connections.get(req.sessionId);
      if (!conn) {
        conn = starter({ command: spec.path ?? spec.command!, args: spec.args ?? [], env, signal: opts.signal });
        connections.set(req.sessionId, conn);
        conn.catch(() => connections.delete(req.sessionId));
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
