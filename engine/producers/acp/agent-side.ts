/**
 * The agent side of ACP: serves a handler (`assistant acp`: the assistant's reads and plans) to an
 * ACP client such as an editor, over a pair of byte streams (stdio). The handler sees plain text
 * prompts and answers through an AgentTurn: message text, tool calls with their status, and
 * permission requests, which the client puts to its user. Cancelling (`session/cancel`) aborts the
 * turn's signal; a turn cancelled that way ends with stop reason `cancelled`.
 */
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export interface ToolCallHandle {
  update(change: { status?: acp.ToolCallStatus; title?: string; text?: string }): void;
}

export interface AgentTurn {
  readonly signal: AbortSignal;
  /** Answer text (streamed: call it per chunk). */
  message(text: string): void;
  /** Progress the client may show apart from the answer. */
  thought(text: string): void;
  /** A tool call (a read, a plan step), shown by the client with its status. */
  toolCall(call: { title: string; kind: acp.ToolKind; rawInput?: unknown; status?: acp.ToolCallStatus }): ToolCallHandle;
  /** Asks the client's user; resolves to the kind of the option chosen, or 'cancelled'. */
  requestPermission(request: { title: string; kind: acp.ToolKind; rawInput?: unknown; text?: string }): Promise<'allow' | 'reject' | 'cancelled'>;
}

export interface AcpAgentHandler {
  newSession(cwd: string): Promise<void> | void;
  /** Runs one prompt; resolves when the turn is over. */
  prompt(sessionId: string, text: string, turn: AgentTurn): Promise<void>;
  /** The client went away or the session ended: release what the session holds. */
  closeSession?(sessionId: string): Promise<void> | void;
}

export interface ServeAcpOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  info: { name: string; version: string };
  /** Called for each new session with its ID (the handler keeps per-session state). */
  handler: (sessionId: string) => AcpAgentHandler;
  /** Slash commands advertised to the client (`available_commands_update`). */
  commands?: { name: string; description: string; hint?: string }[];
  signal?: AbortSignal;
}

export interface AcpServer {
  closed: Promise<void>;
  close(): Promise<void>;
}

export function serveAcpAgent(o: ServeAcpOptions): AcpServer {
  const sessions = new Map<string, { handler: AcpAgentHandler; turn?: AbortController }>();

  const app = acp
    .agent({ name: o.info.name })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: true } },
      agentInfo: o.info,
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const sessionId = randomUUID();
      const handler = o.handler(sessionId);
      await handler.newSession(params.cwd);
      sessions.set(sessionId, { handler });
      if (o.commands?.length) {
        // After the response, so the client knows the session before its first update.
        setImmediate(() => {
          void client
            .notify(acp.methods.client.session.update, {
              sessionId,
              update: { sessionUpdate: 'available_commands_update', availableCommands: o.commands!.map((c) => ({ name: c.name, description: c.description, input: c.hint ? { hint: c.hint } : null })) },
            })
            .catch(() => undefined);
        });
      }
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (session.turn) throw acp.RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
      const controller = new AbortController();
      session.turn = controller;
      const turnSignal = AbortSignal.any([controller.signal, signal]);
      // Notifications are sent in order: each waits for the one before it.
      let queue: Promise<unknown> = Promise.resolve();
      const send = (update: acp.SessionUpdate) => {
        queue = queue.then(() => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update }).catch(() => undefined));
      };
      const turn: AgentTurn = {
        signal: turnSignal,
        message: (text) => text && send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }),
        thought: (text) => text && send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } }),
        toolCall: (call) => {
          const toolCallId = randomUUID();
          send({ sessionUpdate: 'tool_call', toolCallId, title: call.title, kind: call.kind, status: call.status ?? 'in_progress', rawInput: call.rawInput });
          return {
            update: (change) =>
              send({
                sessionUpdate: 'tool_call_update',
                toolCallId,
                ...(change.status ? { status: change.status } : {}),
                ...(change.title ? { title: change.title } : {}),
                ...(change.text ? { content: [{ type: 'content', content: { type: 'text', text: change.text } }] } : {}),
              }),
          };
        },
        requestPermission: async (request) => {
          await queue; // the client has seen everything said before the question
          const toolCallId = randomUUID();
          const options: acp.PermissionOption[] = [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ];
          const answer = await client
            .request(
              acp.methods.client.session.requestPermission,
              {
                sessionId: params.sessionId,
                toolCall: { toolCallId, title: request.title, kind: request.kind, status: 'pending', rawInput: request.rawInput, ...(request.text ? { content: [{ type: 'content', content: { type: 'text', text: request.text } }] } : {}) },
                options,
              },
              // A cancelled turn stops waiting at once, whether or not the client ever answers.
              { cancellationSignal: turnSignal, stopWaitingOnCancel: true },
            )
            .catch(() => ({ outcome: { outcome: 'cancelled' as const } }));
          if (turnSignal.aborted || answer.outcome.outcome !== 'selected') return 'cancelled';
          return answer.outcome.optionId === 'allow' ? 'allow' : 'reject';
        },
      };
      try {
        await session.handler.prompt(params.sessionId, promptText(params.prompt), turn);
      } finally {
        await queue;
        session.turn = undefined;
      }
      return { stopReason: turnSignal.aborted ? 'cancelled' : 'end_turn' };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    });

  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(o.output as Writable) as WritableStream<Uint8Array>, Readable.toWeb(o.input as Readable) as ReadableStream<Uint8Array>));
  const release = async () => {
    for (const [id, s] of sessions) {
      s.turn?.abort();
      await s.handler.closeSession?.(id);
    }
    sessions.clear();
  };
  const onAbort = () => connection.close();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const closed = connection.closed.then(release, release).finally(() => o.signal?.removeEventListener('abort', onAbort));
  return {
    closed,
    close: async () => {
      connection.close();
      await closed;
    },
  };
}

/** The text of a prompt: its text blocks, and the text of resources the client embedded. */
function promptText(blocks: acp.ContentBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'resource' && 'text' in b.resource) return b.resource.text;
      if (b.type === 'resource_link') return b.uri;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}
