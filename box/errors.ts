/**
 * One mapping from whatever ended a message (a refusal, a deadline, an agent's failure) to what the
 * client sees: an HTTP status and `{code, message, hint?}`, the same over JSON, SSE and WebSocket.
 * Messages are redacted; an unexpected error shows no internals.
 */
import { AssistantError, ExitCode } from '../engine/core/errors.js';
import { redactText } from '../engine/core/redact.js';
import { BoxError } from './agent.js';

/** Why the box aborted a request's signal. */
export class RequestAborted extends Error {
  constructor(readonly why: 'timeout' | 'client_gone' | 'shutting_down', message: string) {
    super(message);
    this.name = 'RequestAborted';
  }
}

export interface ClientError {
  status: number;
  code: string;
  message: string;
  hint?: string;
}

export function clientError(err: unknown, signal?: AbortSignal): ClientError {
  // When the request's own signal fired, that is the cause, whatever the agent threw on its way out.
  const reason = signal?.aborted ? signal.reason : undefined;
  if (reason instanceof RequestAborted) {
    if (reason.why === 'timeout') return { status: 504, code: 'timeout', message: reason.message, hint: 'ask something smaller, or start the box with a longer --request-timeout' };
    return { status: 503, code: reason.why, message: reason.message };
  }
  if (err instanceof BoxError) return { status: err.status, code: err.code, message: redactText(err.message), ...(err.hint ? { hint: redactText(err.hint) } : {}) };
  if (err instanceof AssistantError) {
    const status = err.exitCode === ExitCode.invalidInput ? 422 : err.exitCode === ExitCode.refused ? 403 : err.exitCode === ExitCode.interrupted ? 503 : 502;
    return { status, code: err.code, message: redactText(err.message), ...(err.hint ? { hint: redactText(err.hint) } : {}) };
  }
  return { status: 500, code: 'internal', message: 'the box failed to answer (see its log)' };
}
