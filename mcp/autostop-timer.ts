/**
 * `assistant mcp` runs `autostop check` on a timer when config `autostop.check_every` is set (off by
 * default): the first check one interval after start, the next one interval after each check ends (never
 * two at once). Each check has its own deadline (the server's --timeout / config `timeout`, else ten
 * minutes) under the server's Ctrl-C, and says what it did on stderr. Stopping the server waits for a
 * check in flight to end (its deadline is the server's interrupt, so Ctrl-C ends it promptly).
 */
import { checkIntervalMs } from '../schemas/config.js';
import { createDeadline } from '../engine/core/deadline.js';
import { AssistantError } from '../engine/core/errors.js';
import { redactText } from '../engine/core/redact.js';
import { summaryLine } from '../engine/producers/autostop/render.js';
import { runAutostopCheck } from '../machines/autostop/check.js';
import type { AutostopBackend } from '../machines/autostop/run-options.js';

const DEFAULT_CHECK_TIMEOUT_S = 600;

export interface AutostopTimer {
  /** The interval in ms. */
  readonly everyMs: number;
  /** Stops the timer and waits for a check in flight. */
  stop(): Promise<void>;
}

export function startAutostopTimer(
  backend: AutostopBackend,
  opts: { home: string; interrupt: AbortSignal; timeoutS?: number; log: (line: string) => void },
): AutostopTimer | undefined {
  const every = backend.config.autostop?.check_every;
  const everyMs = every === undefined ? undefined : checkIntervalMs(every);
  if (everyMs === undefined) return undefined;
  const stopping = new AbortController();
  const stopSignal = AbortSignal.any([opts.interrupt, stopping.signal]);
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const tick = async () => {
    const deadline = createDeadline(stopSignal);
    deadline.arm(opts.timeoutS ?? DEFAULT_CHECK_TIMEOUT_S, opts.timeoutS === undefined ? 'the auto-stop check\'s default' : 'the MCP server\'s timeout');
    try {
      const result = await runAutostopCheck(backend, { home: opts.home, signal: deadline.signal });
      for (const r of result.instances) {
        if (r.decision !== 'keep' && r.decision !== 'stopped') opts.log(`autostop: ${r.hostname} (${r.id}): ${r.decision}: ${r.detail}`);
      }
      opts.log(summaryLine(result.instances, false));
    } catch (err) {
      const text = err instanceof AssistantError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
      opts.log(`autostop: check failed: ${redactText(text)}`);
    }
  };
  const schedule = () => {
    if (stopSignal.aborted) return;
    timer = setTimeout(() => {
      inFlight = tick().finally(() => {
        inFlight = undefined;
        schedule();
      });
    }, everyMs);
    timer.unref();
  };
  schedule();
  return {
    everyMs,
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
