/**
 * What `autostop check` does with one instance, decided from what it read: the policy (from the
 * account's copy of the startup script), the instance's status, and the watcher's record or why it
 * could not be read. Pure, so every branch is tested without a cloud. Only an instance that is known
 * to be running and known to be idle long enough is ever acted on: unreachable, unreadable or stale
 * never changes anything.
 */
import type { AutostopAction, AutostopPolicy } from '../../core/kits/autostop/policy.js';
import { activityNow, idleMinutes, type WatcherRecord } from './record.js';

/**
 * keep: in use, or idle for less than the limit; shutdown/hibernate/delete: the action was sent (or,
 * with --dry-run, would-…); refused: hibernate or delete without the config's opt-in
 * (autostop.allow_hibernate, autostop.allow_delete); pending: an action was sent recently and has not
 * taken effect yet; stopped: not running; unreachable / unknown: could not be read (nothing done);
 * failed: the action was sent and failed.
 */
export type Decision =
  | 'keep'
  | AutostopAction
  | `would-${AutostopAction}`
  | 'refused'
  | 'pending'
  | 'stopped'
  | 'unreachable'
  | 'unknown'
  | 'failed';

/** Whether a decision is one of the actions the check sends. */
export const isActionDecision = (d: Decision): d is AutostopAction => d === 'shutdown' || d === 'hibernate' || d === 'delete';

export interface AutostopRow {
  id: string;
  hostname: string;
  status: string;
  ip: string | null;
  /** The policy recorded in the instance's startup script. */
  policy: AutostopPolicy | null;
  /** Minutes idle when the watcher last wrote (null when unknown). */
  idle_minutes: number | null;
  /** The last time the watcher saw use, or the boot (ISO, the instance's clock). */
  last_activity: string | null;
  /** What the watcher saw in its last minute (GPU %, logins). */
  activity: string | null;
  decision: Decision;
  detail: string;
}

/** A record older than this (by this machine's clock) means the watcher stopped writing; nothing is done. */
export const STALE_AFTER_MS = 10 * 60_000;
/** An action sent this recently, with no activity since, is not sent again (it may still be taking effect). */
export const RESEND_AFTER_MS = 15 * 60_000;

export interface SentAction {
  action: AutostopAction;
  /** When it was sent (ms, this machine's clock). */
  at: number;
  /** The record's last_activity when it was sent: activity since then starts a new idle period. */
  last_activity: number;
}

export type ReadOutcome = { record: WatcherRecord } | { unreachable: string } | { unknown: string };

export interface DecideInput {
  base: Omit<AutostopRow, 'decision' | 'detail' | 'idle_minutes' | 'last_activity' | 'activity'>;
  policy: AutostopPolicy;
  read: ReadOutcome;
  now: number;
  allowDelete: boolean;
  /** autostop.allow_hibernate: the config that runs the check lets it hibernate (a destroyer action). */
  allowHibernate?: boolean;
  dryRun: boolean;
  sent?: SentAction;
}

const iso = (epochS: number) => new Date(epochS * 1000).toISOString().replace('.000Z', 'Z');

export function decide(input: DecideInput): AutostopRow {
  const { base, policy, read, now } = input;
  const row = (decision: Decision, detail: string, record?: WatcherRecord): AutostopRow => ({
    ...base,
    idle_minutes: record ? idleMinutes(record) : null,
    last_activity: record ? iso(record.last_activity) : null,
    activity: record ? activityNow(record) : null,
    decision,
    detail,
  });
  if ('unreachable' in read) return row('unreachable', `${read.unreachable}; nothing done`);
  if ('unknown' in read) return row('unknown', `${read.unknown}; nothing done`);
  const record = read.record;
  const ageMs = now - record.updated * 1000;
  if (ageMs > STALE_AFTER_MS) {
    return row('unknown', `the watcher's record is ${Math.round(ageMs / 60_000)} min old (its timer stopped, or the instance's clock is off); nothing done`, record);
  }
  const idle = idleMinutes(record);
  if (record.busy) return row('keep', `in use (${activityNow(record)})`, record);
  if (idle < policy.idle_minutes) return row('keep', `idle ${idle} of ${policy.idle_minutes} min`, record);
  const why = `idle ${idle} min ≥ ${policy.idle_minutes}`;
  if (policy.action === 'delete' && !input.allowDelete) {
    return row('refused', `${why}: deleting needs autostop.allow_delete: true in this config; nothing sent`, record);
  }
  if (policy.action === 'hibernate' && !input.allowHibernate) {
    return row('refused', `${why}: hibernating needs autostop.allow_hibernate: true in this config; nothing sent`, record);
  }
  const sent = input.sent;
  if (sent && sent.last_activity === record.last_activity && now - sent.at < RESEND_AFTER_MS) {
    return row('pending', `${sent.action} sent ${Math.max(0, Math.round((now - sent.at) / 60_000))} min ago; not sent again`, record);
  }
  if (input.dryRun) return row(`would-${policy.action}`, `${why}: would ${policy.action} (dry run)`, record);
  return row(policy.action, why, record);
}

/** The exit code of a check: 1 when an instance could not be read or an action failed, 3 when a hibernate or delete was refused, else 0. */
export function checkExitCode(rows: readonly AutostopRow[]): 0 | 1 | 3 {
  if (rows.some((r) => r.decision === 'unreachable' || r.decision === 'unknown' || r.decision === 'failed')) return 1;
  if (rows.some((r) => r.decision === 'refused')) return 3;
  return 0;
}
