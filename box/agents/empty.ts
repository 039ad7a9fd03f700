/** The `empty` agent: a box that answers /healthz and /v1/box/info and takes no messages. */
import { BoxError, type AgentRunner } from '../agent.js';

export function emptyAgent(): AgentRunner {
  const unavailable = new BoxError(501, 'no_agent', 'this box runs the empty agent: it serves /healthz and /v1/box/info only', 'start the box with another agent: assistant box serve --agent assistant');
  return {
    name: 'empty',
    kind: 'none',
    modes: [],
    description: 'no agent: health and info only',
    unavailable,
    answer: async () => {
      throw unavailable;
    },
    close: async () => undefined,
  };
}
