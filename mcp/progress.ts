/**
 * MCP progress notifications for long tool calls (plan applies that wait for clusters).
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RunObserver } from '../engine/core/provider.js';
import { redactText } from '../engine/core/redact.js';

export type ProgressFn = (done: number, total: number, message: string) => void;

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Clients wait 60 s by default unless progress arrives; a plan may wait far longer for a cluster, so
 * progress is also sent every HEARTBEAT_MS while a call runs (with resetTimeoutOnProgress it stays alive). */
const HEARTBEAT_MS = 15_000;

/**
 * Progress notifications for a client that sent a progressToken. MCP requires the value to increase
 * with every notification, so a repeat (a heartbeat, or a step starting at the count the previous step
 * ended on) moves halfway towards the next whole step instead of repeating a value.
 */
export function progressReporter(
  extra: Pick<ToolExtra, '_meta' | 'sendNotification'>,
  heartbeatMs = HEARTBEAT_MS,
): { report: ProgressFn; stop: () => Promise<void> } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { report: () => undefined, stop: async () => undefined };
  let sent = -1;
  let base = 0;
  let total: number | undefined;
  let message = '';
  const emit = (value: number) => {
    const progress = value > sent ? value : sent + (base + 1 - sent) / 2;
    sent = progress;
    const sending = extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => undefined);
    pending.add(sending);
    void sending.finally(() => pending.delete(sending));
  };
  // Notifications still being written: the tool's result waits for them, since a client drops progress
  // that arrives after the result (the last phase, "answered", was lost that way on a busy machine).
  const pending = new Set<Promise<unknown>>();
  const timer = setInterval(() => emit(sent), heartbeatMs);
  timer.unref();
  return {
    report: (done, of, text) => {
      base = done;
      total = of || undefined;
      message = redactText(text);
      emit(done);
    },
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
    },
  };
}

/** The run observer of an MCP apply: steps and waits become progress notifications (the same events the CLI prints). */
export function progressObserver(progress: ProgressFn): RunObserver {
  let total = 0;
  let current = 0;
  return (event) => {
    switch (event.type) {
      case 'step-started':
        total = event.total;
        current = event.index;
        return progress(event.index, total, `step ${event.index + 1}/${total}: ${event.description} (${event.reason})`);
      case 'step-done':
        current = event.index + 1;
        return progress(current, event.total, `step ${event.index + 1}/${event.total} done`);
      case 'waiting':
        return progress(current, total, event.wait.message);
      default:
        return undefined;
    }
  };
}
