import { OperationError } from '../../../core/errors.js';
import { substitutePath } from '../../../core/plan/bindings.js';
import type { ArgProblem, StepVerb } from '../../../core/provider.js';
import { findKind, recordPath } from '../catalogue.js';
import { NotFoundError } from '../errors.js';
import type { GpuCloudClient } from '../types.js';

/** States after which waiting for anything else is pointless (wire reference §5, §12, §15). */
const TERMINAL_STATES = new Set(['error', 'discontinued', 'no_capacity', 'notfound', 'installation_failed', 'deleted', 'canceled']);
const DEFAULT_TIMEOUT_S = 900;
const DEFAULT_INTERVAL_S = 5;

function numberArg(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value);
}

/**
 * `["gpucloud-wait", "<kind>", "<id>", "<state>", "<timeout seconds>"?, "<interval seconds>"?]`:
 * polls one resource until its `status` is the wanted state (e.g. a cluster until `running`). Each run
 * is one poll; while the state is not reached it answers `pending` and the run machine waits.
 */
export const gpucloudWait: StepVerb<GpuCloudClient> = {
  verb: 'gpucloud-wait',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 4 || args.length > 6) {
      problems.push({ field: 'args', message: 'gpucloud-wait takes a kind, an id, a state, and optionally a timeout and an interval in seconds' });
      return problems;
    }
    const spec = findKind(args[1]!);
    if (!spec?.getPath) problems.push({ field: 'args[1]', message: `cannot wait for kind "${args[1]}" (use instances, clusters, volumes, containers or jobs)` });
    if (!args[2]) problems.push({ field: 'args[2]', message: 'the id is empty' });
    if (!/^[a-z_ ]+$/.test(args[3] ?? '')) problems.push({ field: 'args[3]', message: `"${args[3]}" is not a status name` });
    const timeout = numberArg(args[4], DEFAULT_TIMEOUT_S);
    const interval = numberArg(args[5], DEFAULT_INTERVAL_S);
    if (!(timeout > 0 && timeout <= 86_400)) problems.push({ field: 'args[4]', message: 'the timeout must be 1 to 86400 seconds' });
    if (!(interval > 0 && interval <= 3_600)) problems.push({ field: 'args[5]', message: 'the interval must be a positive number of seconds up to 3600' });
    return problems;
  },

  classify: (args) => ({ effect: 'read', kind: findKind(args[1] ?? '')?.singular, reasons: [] }),

  substitute(args, bindings) {
    return args.map((arg, i) => (i === 2 ? substitutePath(arg, bindings) : arg));
  },

  async run(args, ctx) {
    const spec = findKind(args[1]!)!;
    const wanted = args[3]!;
    const timeoutMs = numberArg(args[4], DEFAULT_TIMEOUT_S) * 1000;
    const intervalMs = numberArg(args[5], DEFAULT_INTERVAL_S) * 1000;
    // The id was URL-encoded by substitute(); recordPath encodes again, so decode once here.
    const path = recordPath(spec, decodeURIComponent(args[2]!));
    const client = await ctx.client();
    const since = ctx.pollingSince ?? Date.now();
    let record: Record<string, unknown>;
    try {
      const res = await client.request({ method: 'GET', path, signal: ctx.signal, onWait: ctx.waiting });
      record = (spec.getReturnsArray && Array.isArray(res.data) ? res.data[0] : res.data) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof NotFoundError) throw new OperationError('wait_failed', `${spec.singular} ${args[2]} disappeared while waiting for "${wanted}"`);
      throw err;
    }
    const last = String(record?.status ?? 'unknown');
    if (last === wanted) return { status: 200, data: record };
    if (TERMINAL_STATES.has(last)) {
      throw new OperationError('wait_failed', `${spec.singular} ${args[2]} reached "${last}" while waiting for "${wanted}"`, {
        hint: `inspect it with 'assistant gpucloud get ${spec.singular} ${args[2]}'`,
      });
    }
    if (Date.now() + intervalMs > since + timeoutMs) {
      throw new OperationError('wait_timeout', `${spec.singular} ${args[2]} is still "${last}" after ${timeoutMs / 1000} s (waiting for "${wanted}")`, {
        hint: 'raise the timeout (5th argument of gpucloud-wait) or check the resource',
      });
    }
    ctx.waiting({
      reason: 'poll',
      waitMs: intervalMs,
      message: `waiting for ${spec.singular} ${args[2]} to be ${wanted} (status ${last}, ${Math.round((Date.now() - since) / 1000)} s)`,
    });
    // Not there yet: the run machine waits `intervalMs` in its waiting state and asks again.
    return { data: record, pending: { afterMs: intervalMs, status: last } };
  },

  describe(args) {
    return `WAIT ${args[1]} ${args[2]} until ${args[3]}`;
  },
};
