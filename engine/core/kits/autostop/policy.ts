/**
 * The auto-stop policy (`{idle_minutes, action}`, schemas/plan.ts) as people write it (`--autostop 30m`)
 * and as it is recorded in an instance's startup script: one marker line that `autostop check` reads
 * back from the script stored in the account (never from the instance, which is untrusted).
 */
import { AUTOSTOP_ACTIONS, AUTOSTOP_ACTIONS_TEXT, AUTOSTOP_MAX_MINUTES, AUTOSTOP_MIN_MINUTES, type AutostopAction } from '../../../../schemas/plan-bindings.js';
import type { AutostopPolicy } from '../../../../schemas/plan.js';
import { UsageError } from '../../errors.js';

export type { AutostopPolicy, AutostopAction };
export { AUTOSTOP_ACTIONS };

export const isAutostopAction = (v: unknown): v is AutostopAction => (AUTOSTOP_ACTIONS as readonly unknown[]).includes(v);

/** `30m`, `2h`, `1d`, `45` (minutes): whole minutes within the policy's bounds. */
export function parseIdleDuration(text: string, flag = '--autostop'): number {
  const m = /^\s*(\d{1,6})\s*(m|min|mins|minutes?|h|hours?|d|days?)?\s*$/i.exec(text);
  const hint = `e.g. ${flag} 30m (also 2h, 1d); at least ${AUTOSTOP_MIN_MINUTES} minutes, at most ${AUTOSTOP_MAX_MINUTES / 1440} days`;
  if (!m) throw new UsageError(`${flag} takes an idle time in whole minutes or hours (got "${text}")`, { hint });
  const unit = (m[2] ?? 'm').toLowerCase()[0];
  const minutes = Number(m[1]) * (unit === 'h' ? 60 : unit === 'd' ? 1440 : 1);
  if (minutes < AUTOSTOP_MIN_MINUTES || minutes > AUTOSTOP_MAX_MINUTES) throw new UsageError(`${flag} ${text.trim()} is out of range`, { hint });
  return minutes;
}

/** The policy of `--autostop <time>` and `--autostop-action <shutdown|hibernate|delete>`, or undefined without them. */
export function policyFromFlags(time: unknown, action: unknown): AutostopPolicy | undefined {
  if (time === undefined || time === false) {
    if (action !== undefined) throw new UsageError('--autostop-action goes with --autostop <idle time>', { hint: 'e.g. --autostop 30m --autostop-action hibernate' });
    return undefined;
  }
  if (time === true || time === '') throw new UsageError('--autostop needs an idle time', { hint: 'e.g. --autostop 30m' });
  const act = action === undefined ? 'shutdown' : String(action);
  if (!isAutostopAction(act)) throw new UsageError(`--autostop-action is ${AUTOSTOP_ACTIONS_TEXT} (got "${act}")`);
  return { idle_minutes: parseIdleDuration(String(time)), action: act };
}

export const describePolicy = (p: AutostopPolicy) => `${p.action} after ${p.idle_minutes} idle minutes`;

/** The line a startup script carries: what `autostop check` reads to know an instance's policy. */
const MARKER_PREFIX = '# assistant-autostop: ';
const MARKER = /^# assistant-autostop: (\{.*\})\s*$/;

export function policyMarker(p: AutostopPolicy): string {
  return `${MARKER_PREFIX}${JSON.stringify({ version: 1, idle_minutes: p.idle_minutes, action: p.action })}`;
}

export type ScriptPolicy = { policy: AutostopPolicy } | { problem: string } | undefined;

/**
 * The policy a startup script records: undefined when it has no marker (no auto-stop), a problem when
 * the marker cannot be read or two markers disagree (then nothing is done to the instance).
 */
export function policyOfScript(script: string): ScriptPolicy {
  const found: AutostopPolicy[] = [];
  for (const line of script.split('\n')) {
    const m = MARKER.exec(line);
    if (!m) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(m[1]!);
    } catch {
      return { problem: 'its auto-stop marker is not JSON' };
    }
    const { version, ...rest } = (raw ?? {}) as Record<string, unknown>;
    if (version !== 1) return { problem: `its auto-stop marker has version ${JSON.stringify(version)} (this assistant reads version 1)` };
    // Checked by hand, as AutostopSchema would: a provider's verb runs this, and a list must not load zod.
    const problem = markerProblem(rest);
    if (problem) return { problem: `its auto-stop marker is invalid: ${problem}` };
    found.push(rest as AutostopPolicy);
  }
  if (found.length === 0) return undefined;
  if (found.some((p) => p.idle_minutes !== found[0]!.idle_minutes || p.action !== found[0]!.action)) return { problem: 'its auto-stop markers disagree' };
  return { policy: found[0]! };
}

/** What is wrong with a marker's policy (the rules of schemas/plan.ts AutostopSchema), or undefined. */
function markerProblem(p: Record<string, unknown>): string | undefined {
  const extra = Object.keys(p).filter((k) => k !== 'idle_minutes' && k !== 'action');
  if (extra.length) return `unknown key ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  const m = p.idle_minutes;
  if (typeof m !== 'number' || !Number.isInteger(m)) return 'idle_minutes is a whole number of minutes';
  if (m < AUTOSTOP_MIN_MINUTES) return `idle_minutes is at least ${AUTOSTOP_MIN_MINUTES} (the watcher records once a minute)`;
  if (m > AUTOSTOP_MAX_MINUTES) return `idle_minutes is at most ${AUTOSTOP_MAX_MINUTES} (30 days)`;
  if (!isAutostopAction(p.action)) return `action is ${AUTOSTOP_ACTIONS_TEXT}`;
  return undefined;
}
