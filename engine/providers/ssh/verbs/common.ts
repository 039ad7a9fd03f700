/**
 * What the two SSH verbs share: the host argument, `--flag` options after the positional arguments,
 * and retrying a host that does not accept connections yet by answering `pending` (the run machine
 * waits in its `waiting` state, as for `gpucloud-wait`), within the step's own timeout.
 */
import { OperationError } from '../../../core/errors.js';
import { PLACEHOLDER_PATTERN } from '../../../../schemas/plan.js';
import type { ArgProblem, StepContext, StepResult } from '../../../core/provider.js';

export const DEFAULT_TIMEOUT_S = 600;
export const DEFAULT_INTERVAL_S = 5;

/** A host name, IPv4 or IPv6 address, or a placeholder produced earlier (`<CLUSTER_IP>`). */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

export function hostProblem(host: string | undefined, field: string): ArgProblem | undefined {
  if (!host) return { field, message: 'the host is empty' };
  if (/^<[A-Z][A-Z0-9_]*>$/.test(host)) return undefined;
  if (!HOST.test(host)) return { field, message: `"${host}" is not a host name or IP address` };
  return undefined;
}

export interface StepOptions {
  timeoutS: number;
  intervalS: number;
  flags: Set<string>;
}

/** Parses `--timeout=<s>`, `--interval=<s>` and the verb's switches; problems name their arg index. */
export function parseOptions(args: readonly string[], from: number, switches: readonly string[], problems?: ArgProblem[]): StepOptions {
  const out: StepOptions = { timeoutS: DEFAULT_TIMEOUT_S, intervalS: DEFAULT_INTERVAL_S, flags: new Set() };
  for (let i = from; i < args.length; i++) {
    const arg = args[i]!;
    const m = /^--(timeout|interval)=(.*)$/.exec(arg);
    if (m) {
      const n = Number(m[2]);
      const max = m[1] === 'timeout' ? 86_400 : 3_600;
      if (!(n > 0 && n <= max)) problems?.push({ field: `args[${i}]`, message: `--${m[1]} must be 1 to ${max} seconds` });
      else if (m[1] === 'timeout') out.timeoutS = n;
      else out.intervalS = n;
    } else if (switches.includes(arg)) out.flags.add(arg);
    else problems?.push({ field: `args[${i}]`, message: `unknown option "${arg}" (known: ${[...switches, '--timeout=<s>', '--interval=<s>'].join(', ')})` });
  }
  return out;
}

/** Substitutes a host placeholder with the raw value (an IP or name, checked again before connecting). */
export function substituteHost(host: string, bindings: Record<string, string>): string {
  return host.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in bindings ? bindings[name]! : whole));
}

/** After a connection failure: wait and try again (pending) while the step's timeout allows, else fail. */
export function retryLater(ctx: StepContext<unknown>, opts: StepOptions, what: string, why: string): StepResult {
  const since = ctx.pollingSince ?? Date.now();
  const intervalMs = opts.intervalS * 1000;
  const elapsedS = Math.round((Date.now() - since) / 1000);
  if (Date.now() + intervalMs > since + opts.timeoutS * 1000) {
    throw new OperationError('ssh_unreachable', `${what}: still failing after ${elapsedS} s (${why})`, {
      hint: 'check that the host is up and its port is open (gpucloud.ssh_port), or raise --timeout=<s> in the step; --resume tries again',
    });
  }
  ctx.waiting({ reason: 'retry', waitMs: intervalMs, message: `${what}: ${why}; trying again (${elapsedS} s of ${opts.timeoutS} s)` });
  return { data: null, pending: { afterMs: intervalMs, status: 'unreachable' } };
}
