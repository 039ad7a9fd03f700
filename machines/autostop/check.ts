/**
 * `assistant autostop check` (and the MCP server's timer): find the instances whose startup script
 * records an auto-stop policy, read each one's idle record over SSH with the read-only template, decide
 * (engine/producers/autostop/decide.ts), and send the shutdown, hibernate or delete through the one apply
 * module. Reads go through `readPlan`; the only change it can make is in `applyAutostopAction`. What it
 * hibernates is written to the ledger (engine/producers/autostop/ledger.ts) for `cost summary`.
 *
 * Safe to run from cron or CI: one check at a time per home (a second is refused), idempotent (an
 * instance that is not running is left alone, an action sent recently is not sent again), and bounded
 * by the command's deadline (each SSH read also by autostop.ssh_timeout_seconds).
 */
import type { Plan } from '../../schemas/plan.js';
import { AssistantError, InvalidInputError } from '../../engine/core/errors.js';
import { checkExitCode, decide, isActionDecision, type AutostopRow, type ReadOutcome } from '../../engine/producers/autostop/decide.js';
import { recipeOf, recordHibernateUnsent, recordHibernating, recordStillHibernated } from '../../engine/producers/autostop/ledger.js';
import { policyOfScript, type AutostopAction, type AutostopPolicy } from '../../engine/core/kits/autostop/policy.js';
import { parseRecord } from '../../engine/producers/autostop/record.js';
import { lockCheck, SentActions } from '../../engine/producers/autostop/sent.js';
import { AUTOSTOP_READ_COMMAND } from '../../engine/core/kits/autostop/template.js';
import { derivedSignal } from '../../engine/core/deadline.js';
import { applyPlan, readResult } from '../apply/index.js';
import { autostopProvider } from './provider.js';
import type { AutostopBackend, AutostopRunOptions } from './run-options.js';

export interface CheckOptions extends AutostopRunOptions {
  /** Decide only; send nothing. */
  dryRun?: boolean;
  /** A narrower cancel under the backend's deadline (an MCP timer tick's). */
  signal?: AbortSignal;
}

export interface CheckResult {
  checked_at: string;
  dry_run: boolean;
  allow_delete: boolean;
  allow_hibernate: boolean;
  instances: AutostopRow[];
  /** The command's deadline ended the check before every instance was done (those rows say so). */
  timed_out: boolean;
  /** 0 all decided; 1 an instance could not be read or an action failed; 3 a hibernate or delete was refused. */
  exit_code: 0 | 1 | 3;
}

const DEFAULT_SSH_TIMEOUT_S = 20;
/** Instances read over SSH at once: one that does not answer must not hold up the rest. */
const SSH_CONCURRENCY = 4;
/** Statuses of instances that are gone (nothing to read, nothing to stop). */
const GONE = new Set(['discontinued', 'deleting', 'notfound', 'deleted']);

interface Enrolled {
  id: string;
  hostname: string;
  status: string;
  ip: string | null;
  policy?: AutostopPolicy;
  problem?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export async function runAutostopCheck(backend: AutostopBackend, opts: CheckOptions): Promise<CheckResult> {
  const now = opts.now ?? Date.now;
  const signal = derivedSignal(backend.runContext().signal, opts.signal);
  const allowDelete = backend.config.autostop?.allow_delete === true;
  const allowHibernate = backend.config.autostop?.allow_hibernate === true;
  const dryRun = Boolean(opts.dryRun);
  const lock = dryRun ? undefined : await lockCheck(opts.home);
  try {
    const enrolled = await findEnrolled(backend, signal, opts.onProgress);
    const sent = new SentActions(opts.home);
    const sshTimeoutS = backend.config.autostop?.ssh_timeout_seconds ?? DEFAULT_SSH_TIMEOUT_S;
    // Each instance is decided and acted on as soon as its record is read, so one that does not answer
    // cannot hold up another's stop; when the deadline ends the check, what was not done yet says so.
    const rows = await mapLimited(enrolled, SSH_CONCURRENCY, async (inst): Promise<AutostopRow> => {
      const base = { id: inst.id, hostname: inst.hostname, status: inst.status, ip: inst.ip, policy: inst.policy ?? null };
      const empty = { ...base, idle_minutes: null, last_activity: null, activity: null };
      if (!inst.policy) return { ...empty, decision: 'unknown', detail: `its startup script: ${inst.problem}; nothing done` };
      if (inst.status !== 'running') return { ...empty, decision: 'stopped', detail: `status ${inst.status}; nothing to do` };
      if (!inst.ip) return { ...empty, decision: 'unknown', detail: 'running without an IP address yet; nothing done' };
      if (timedOut(signal)) return { ...empty, decision: 'unknown', detail: `not read: ${deadlineText(signal)}; nothing done` };
      opts.onProgress?.(`reading the idle record of ${inst.hostname} (${inst.ip})`);
      let row: AutostopRow | undefined;
      try {
        row = decide({ base, policy: inst.policy, read: await readIdleRecord(backend, inst.ip, sshTimeoutS, signal), now: now(), allowDelete, allowHibernate, dryRun, sent: sent.get(inst.id) });
        if (isActionDecision(row.decision)) {
          lock?.assertHeld();
          await act(backend, opts, row, sent, now, signal);
        }
      } catch (err) {
        if (!timedOut(signal)) throw err; // Ctrl-C (exit 130) or a real failure ends the check
        if (row && isActionDecision(row.decision)) {
          // Ended while acting: the request may have reached the cloud. The next check reads the status.
          return { ...row, decision: 'unknown', detail: `${row.detail}: not finished (${deadlineText(signal)}); the ${row.decision} may or may not have been sent` };
        }
        return { ...empty, decision: 'unknown', detail: `not finished: ${deadlineText(signal)}; nothing done` };
      }
      return row;
    });
    // A hibernated instance the ledger has an open period for: known to be hibernated until now.
    if (!dryRun) recordStillHibernated(opts.home, 'gpucloud', rows.filter((r) => r.status === 'hibernating').map((r) => r.id), now());
    return { checked_at: new Date(now()).toISOString(), dry_run: dryRun, allow_delete: allowDelete, allow_hibernate: allowHibernate, instances: rows, timed_out: timedOut(signal), exit_code: checkExitCode(rows) };
  } finally {
    await lock?.release();
  }
}

/** The deadline ended by its timeout (not Ctrl-C): the check still reports what it did. */
const timedOut = (signal: AbortSignal) => signal.aborted && signal.reason instanceof AssistantError && signal.reason.code === 'timeout';
const deadlineText = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason.message.split(':')[0]! : 'the deadline ended');

/** Instances whose startup script (the account's copy) records an auto-stop policy. */
async function findEnrolled(backend: AutostopBackend, signal: AbortSignal, onProgress?: (text: string) => void): Promise<Enrolled[]> {
  onProgress?.('listing instances');
  const { reads } = (await autostopProvider()).autostop;
  const instances = await readResult(backend, reads.instances(), { signal });
  const candidates = (Array.isArray(instances) ? instances : []).filter(
    (i): i is Record<string, unknown> => !!i && typeof i === 'object' && !!str((i as Record<string, unknown>).startup_script_id) && !GONE.has(String((i as Record<string, unknown>).status)),
  );
  const scriptIds = [...new Set(candidates.map((i) => str(i.startup_script_id)!))];
  if (scriptIds.length) onProgress?.(`reading ${scriptIds.length} startup script${scriptIds.length === 1 ? '' : 's'}`);
  const scripts = new Map<string, { text?: string; problem?: string }>();
  await mapLimited(scriptIds, SSH_CONCURRENCY, async (id) => {
    try {
      const data = await readResult(backend, reads.script(id), { signal });
      const record = Array.isArray(data) ? data[0] : data;
      scripts.set(id, { text: str((record as Record<string, unknown> | undefined)?.script) });
    } catch (err) {
      if (signal.aborted || !(err instanceof AssistantError)) throw err;
      // A script deleted since the instance was made: its policy is gone with it. Any other failure leaves
      // the policy unknown: the instance is reported, not skipped and not acted on.
      scripts.set(id, err.code === 'not_found' ? {} : { problem: `could not be read (${err.code}: ${err.message})` });
    }
  });
  const out: Enrolled[] = [];
  for (const i of candidates) {
    const script = scripts.get(str(i.startup_script_id)!) ?? {};
    const recorded = script.problem ? { problem: script.problem } : policyOfScript(script.text ?? '');
    if (!recorded) continue;
    out.push({
      id: String(i.id),
      hostname: str(i.hostname) ?? String(i.id),
      status: String(i.status),
      ip: str(i.ip) ?? null,
      ...('policy' in recorded ? { policy: recorded.policy } : { problem: recorded.problem }),
    });
  }
  return out;
}

/** The watcher's record over SSH: the read-only template through readPlan; every failure becomes data. */
async function readIdleRecord(backend: AutostopBackend, ip: string, timeoutS: number, signal: AbortSignal): Promise<ReadOutcome> {
  const plan: Plan = {
    version: 1,
    provider: 'ssh',
    commands: [{ args: ['ssh-exec', ip, AUTOSTOP_READ_COMMAND, `--timeout=${timeoutS}`, `--interval=${Math.min(5, Math.max(1, Math.floor(timeoutS / 4)))}`], reason: `read the auto-stop record of ${ip}` }],
  };
  try {
    const data = (await readResult(backend, plan, { signal })) as { stdout?: unknown } | undefined;
    const parsed = parseRecord(typeof data?.stdout === 'string' ? data.stdout : '');
    return 'record' in parsed ? parsed : { unknown: parsed.problem };
  } catch (err) {
    if (signal.aborted) throw err; // the command's deadline or Ctrl-C: the check ends, it does not decide
    if (err instanceof InvalidInputError) throw err; // no usable SSH key (gpucloud.ssh_key_path): no read can work
    if (!(err instanceof AssistantError)) return { unknown: `reading it failed: ${err instanceof Error ? err.message : String(err)}` };
    if (err.code === 'ssh_unreachable') return { unreachable: `unreachable over SSH: ${err.message.replace(/^connecting to [^:]+: /, '')}` };
    if (err.code === 'remote_command_failed' && /No such file/i.test(err.message)) return { unknown: 'no record on the instance yet (the watcher has not run: still booting, or its install failed)' };
    return { unknown: `${err.code}: ${err.message}` };
  }
}

/** Sends the row's action unless the instance stopped meanwhile; the row says what happened. */
async function act(backend: AutostopBackend, opts: CheckOptions, row: AutostopRow, sent: SentActions, now: () => number, signal: AbortSignal): Promise<void> {
  const action = row.decision as AutostopAction;
  let current: Record<string, unknown> | undefined;
  try {
    current = (await readResult(backend, (await autostopProvider()).autostop.reads.instance(row.id), { signal })) as Record<string, unknown> | undefined;
    const status = String(current?.status ?? 'unknown');
    if (status !== 'running') {
      Object.assign(row, { status, decision: 'stopped', detail: `status ${status} by the time of acting; nothing sent` });
      return;
    }
  } catch (err) {
    if (signal.aborted || !(err instanceof AssistantError)) throw err;
    if (err.code === 'not_found') Object.assign(row, { status: 'notfound', decision: 'stopped', detail: 'gone by the time of acting; nothing sent' });
    else Object.assign(row, { decision: 'failed', detail: `${row.detail}: could not read the instance again before acting (${err.code}: ${err.message}); nothing sent` });
    return;
  }
  opts.onProgress?.(`${ACTING[action]} ${row.hostname}: ${row.detail}`);
  if (action === 'hibernate') {
    // Before the send: a check killed once the request reached the API still leaves the period.
    const price = Number(current?.price_per_hour);
    const recipe = current ? recipeOf(current) : undefined;
    recordHibernating(opts.home, 'gpucloud', { id: row.id, hostname: row.hostname, type: String(current?.instance_type ?? ''), price_per_hour: Number.isFinite(price) ? price : null, ...(recipe ? { recipe } : {}) }, now());
  }
  const outcome = await applyAutostopAction(backend, opts.home, row, action, signal);
  if (outcome.ok) {
    sent.record(row.id, { action, at: now(), last_activity: Date.parse(row.last_activity ?? '') / 1000 }, now());
    row.detail = `${row.detail}: ${action} sent`;
  } else {
    // Taken back only when the API's answer says nothing changed; a lost answer may have hibernated it.
    if (action === 'hibernate' && !outcome.maybeSent) recordHibernateUnsent(opts.home, row.id, now());
    Object.assign(row, { decision: 'failed', detail: `${row.detail}: ${action} failed: ${outcome.error}` });
  }
}

const ACTING: Record<AutostopAction, string> = { shutdown: 'shutting down', hibernate: 'hibernating', delete: 'deleting' };

/**
 * THE place auto-stop changes anything: a one-step instance action plan through the apply module
 * (validation, the destroyer gate, the journal). `hibernate` and `delete` are destroyer actions (DESIGN
 * §3), so they are allowed only here and only because the config that runs the check opted in
 * (autostop.allow_hibernate, autostop.allow_delete), which the caller checked.
 *
 * The run is `fresh`: the decision to send was made just now from the instance's live status (running)
 * under the check's lock, so the journal of an earlier run of the same action (one a kill -9 cut short,
 * days ago, before a resume and a new idle period) must not refuse it.
 */
export async function applyAutostopAction(backend: AutostopBackend, home: string, row: Pick<AutostopRow, 'id' | 'hostname' | 'detail'>, action: AutostopAction, signal: AbortSignal): Promise<{ ok: boolean; error?: string; maybeSent?: boolean }> {
  const plan: Plan = {
    version: 1,
    provider: 'gpucloud',
    summary: `auto-stop: ${action} ${row.hostname} (${row.detail})`,
    commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action, id: row.id })], reason: `auto-stop: ${action} ${row.hostname}, ${row.detail}` }],
  };
  let outcome;
  try {
    outcome = await applyPlan(plan, { backend, home, destroyer: action !== 'shutdown', mode: 'fresh', signal });
  } catch (err) {
    // Refused before anything was sent (another run of the same action holds its journal): reported, not fatal.
    if (signal.aborted || !(err instanceof AssistantError)) throw err;
    return { ok: false, error: `${err.code}: ${err.message}` };
  }
  if (outcome.report.status === 'cancelled') throw outcome.error;
  if (outcome.exitCode === 0) return { ok: true };
  return { ok: false, error: outcome.report.error?.message ?? `exit ${outcome.exitCode}`, maybeSent: outcome.report.steps.some((s) => s.status === 'failed' && s.changed !== undefined) };
}

/** Maps with at most `limit` calls in flight, results in input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
