/**
 * `assistant autostop resume <instance>`: bring back an instance auto-stop stopped, exactly once — a
 * hibernated one with `restore`, a shut-down one with `start` — and wait until it runs, with the same
 * volumes it had.
 *
 * Exactly once by construction, not by memory: what to send is decided from the instance's live status,
 * read under a per-instance lock (a second resume in this home waits, then finds it running), and the
 * API's own state change is the one point where a restore takes effect (a restore of an instance that is
 * already `restoring` or `running` is refused by the API; a resume that meets that reads the status and
 * reports it restored by another run). So a resume killed at any step leaves one of: nothing sent (the
 * next resume sends it), sent (the next finds it restoring or running and only waits), or done.
 *
 *   read status ──hibernating──▶ restore ─┐
 *        │ ├──offline─────────▶ start ───┤
 *        │ ├──starting_hibernation: wait until hibernating, then restore
 *        │ └──restoring/starting: ──────┴─▶ wait until running ─▶ compare volumes ─▶ done
 *        └──running: nothing to send
 *
 * Where the API deletes an instance to hibernate it and keeps its volumes detached (the Go SDK's account;
 * the emulator's `hibernation: 'deletes-instance'`), the instance is no longer listed: its record from just
 * before the hibernate (the ledger's recipe) says what it was, and the resume creates it again from its
 * own OS volume with its data volumes. That create is a plan like any other (name reservation, duplicate
 * name check, journal), so it happens once: a second resume finds an instance of that name and waits.
 */
import type { Plan } from '../../schemas/plan.js';
import { AssistantError, OperationError, UsageError } from '../../engine/core/errors.js';
import type { AutostopCapability } from '../../engine/core/capabilities.js';
import { openPeriodOf, recordRestored, type LedgerPeriod } from '../../engine/producers/autostop/ledger.js';
import { RunJournal } from '../../engine/core/plan/journal.js';
import { lockResume } from '../../engine/producers/autostop/sent.js';
import { applyPlan, budgetLimit, readResult } from '../apply/index.js';
import { autostopProvider } from './provider.js';
import type { AutostopBackend, AutostopRunOptions } from './run-options.js';

export interface ResumeOptions extends AutostopRunOptions {
  /** The instance: its ID or hostname. */
  instance: string;
  /** How long to wait for `running` (and for a hibernation under way to finish), in seconds. */
  waitTimeoutS?: number;
  /** How often to ask while waiting, in seconds. */
  pollIntervalS?: number;
}

export interface ResumeResult {
  id: string;
  hostname: string;
  status_before: string;
  status_after: string;
  /** The action this run sent (null: none was needed, or another run had sent it); `create`: made again from its volumes. */
  sent: 'restore' | 'start' | 'create' | null;
  /** The ID it had, when it was made again from its volumes (the API had deleted it to hibernate it). */
  recreated_from?: string;
  detail: string;
  /** The instance's volumes (OS volume first) before and after. */
  volumes: { before: string[]; after: string[]; same: boolean };
  /** Volumes the instance lists that no longer exist (deleted meanwhile). */
  missing_volumes: string[];
}

const DEFAULT_WAIT_S = 1800;
const DEFAULT_POLL_S = 5;
/** Statuses of an instance on its way to running (out of hibernation, or starting): wait, send nothing. */
const comingBack = (statuses: AutostopCapability['statuses']) => new Set([statuses.leaving, 'starting', 'ordered', 'new', 'validating', 'provisioning']);

type Rec = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const volumesOf = (i: Rec): string[] => [...(str(i.os_volume_id) ? [String(i.os_volume_id)] : []), ...(Array.isArray(i.volume_ids) ? i.volume_ids.map(String).sort() : [])];

export async function resumeInstance(backend: AutostopBackend, opts: ResumeOptions): Promise<ResumeResult> {
  const signal = backend.runContext().signal;
  const target = await resolve(backend, opts.home, opts.instance, signal);
  const lock = await lockResume(opts.home, target.id, signal, opts.onProgress);
  try {
    return target.period ? await recreate(backend, opts, target.period, signal) : await resumeListed(backend, opts, target, signal);
  } finally {
    await lock.release();
  }
}

/** A listed instance brought back (under its lock): restore, start, or only wait, from its live status. */
async function resumeListed(backend: AutostopBackend, opts: ResumeOptions, target: { id: string; hostname: string }, signal: AbortSignal): Promise<ResumeResult> {
  const now = opts.now ?? Date.now;
  const waitS = opts.waitTimeoutS ?? DEFAULT_WAIT_S;
  const pollS = opts.pollIntervalS ?? DEFAULT_POLL_S;
  const { reads, statuses } = (await autostopProvider()).autostop;
  const returning = comingBack(statuses);
  const read = async (): Promise<Rec> => {
    try {
      return (await readResult(backend, reads.instance(target.id), { signal })) as Rec;
    } catch (err) {
      if (err instanceof AssistantError && err.code === 'not_found') {
        throw new OperationError('not_found', `instance ${target.hostname} (${target.id}) no longer exists; there is nothing to resume`, { hint: 'its data volumes, if it had any, are detached and kept: assistant gpucloud list volumes' });
      }
      throw err;
    }
  };
  const waitFor = async (status: string): Promise<Rec> => {
    opts.onProgress?.(`waiting for ${target.hostname} to be ${status}`);
    const plan: Plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-wait', 'instances', target.id, status, String(waitS), String(pollS)], reason: `wait until ${target.hostname} is ${status}` }] };
    return (await readResult(backend, plan, { signal })) as Rec;
  };

  let current = await read();
  const before = String(current.status ?? 'unknown');
  const volumesBefore = volumesOf(current);
  let sent: ResumeResult['sent'] = null;
  let detail = '';
  if (before === statuses.entering) current = await waitFor(statuses.hibernated);
  const status = String(current.status ?? 'unknown');
  const missing = status === 'running' ? [] : await missingVolumes(backend, volumesOf(current), signal);

  if (status === statuses.hibernated || status === 'offline') {
    const action = status === 'offline' ? 'start' : 'restore';
    if (missing.includes(String(current.os_volume_id))) {
      throw new OperationError('os_volume_gone', `the OS volume of ${target.hostname} (${String(current.os_volume_id)}) no longer exists; ${action === 'restore' ? 'restoring' : 'starting'} it cannot bring its disk back; nothing was sent`, {
        hint: 'a deleted volume stays in the trash for 96 hours (GET /v1/volumes/trash) and comes back with the volume action restore (a plan step PUT /v1/volumes {"action":"restore","id":"…"}); restore it first',
      });
    }
    opts.onProgress?.(`${action === 'restore' ? 'restoring' : 'starting'} ${target.hostname}`);
    const outcome = await sendAction(backend, opts.home, target, action);
    if (outcome.ok) {
      sent = action;
      if (action === 'restore') recordRestored(opts.home, 'gpucloud', target.id, now());
    } else {
      // Refused by the API: if another run (another home, the console) brought it back meanwhile, that
      // is the outcome wanted; anything else is this run's failure (nothing changed: it was refused).
      const again = String((await read()).status ?? 'unknown');
      if (again !== 'running' && !returning.has(again)) throw outcome.error!;
      // When the other run restored it is not known here: the ledger keeps counting only until a check last saw it hibernated.
      detail = `${action} was refused (${outcome.error!.message}) because another run had already brought it back (status ${again}); nothing more sent`;
    }
  } else if (status !== 'running' && !returning.has(status)) {
    throw new OperationError('cannot_resume', `${target.hostname} is ${status}: only a hibernated (hibernating) or shut-down (offline) instance can be resumed`, {
      hint: `see it with: assistant gpucloud get instances ${target.id}`,
    });
  }
  const after = String(current.status) === 'running' && !sent ? current : await waitFor('running');
  const volumesAfter = volumesOf(after);
  const same = volumesAfter.join() === volumesBefore.join();
  if (!detail) {
    detail =
      sent === 'restore' ? 'restored from hibernation'
      : sent === 'start' ? 'started'
      : before === 'running' ? 'already running; nothing sent'
      : `already coming back (status ${before}); nothing sent, waited until it runs`;
  }
  if (missing.length) detail += `; ${missing.length} of its volumes no longer exist (${missing.join(', ')})`;
  if (!same) detail += '; its volumes differ from before the resume';
  return { id: target.id, hostname: target.hostname, status_before: before, status_after: String(after.status ?? 'unknown'), sent, detail, volumes: { before: volumesBefore, after: volumesAfter, same }, missing_volumes: missing };
}

/** The instance by ID, or by hostname when exactly one has it (two: usage error, name the IDs). */
async function resolve(backend: AutostopBackend, home: string, ref: string, signal: AbortSignal): Promise<{ id: string; hostname: string; period?: LedgerPeriod }> {
  // The ledger is read before the list: a resume running meanwhile closes the hibernation only after its
  // create reached the API, so a period closed since this read means the list below shows the instance
  // (read in the other order, a second resume could miss both and say there is no such instance).
  const open = openPeriodOf(home, 'gpucloud', ref);
  const all = await listInstances(backend, signal);
  const byId = all.find((i) => i.id === ref);
  const found = byId ? [byId] : all.filter((i) => i.hostname === ref);
  if (found.length > 1) {
    throw new UsageError(`${found.length} instances are called ${ref}`, { hint: `name one by its ID: ${found.map((i) => String(i.id)).join(', ')}` });
  }
  if (!found[0]) {
    // Not listed: one auto-stop hibernated, and the API deleted to hibernate it, is made again from its volumes.
    if (open?.recipe) return { id: open.id, hostname: open.name, period: open };
    throw new OperationError('not_found', `no instance ${ref} in this project`, {
      hint: 'list them with: assistant gpucloud list instances (a deleted instance cannot be resumed; its data volumes are detached and kept)',
    });
  }
  return { id: String(found[0].id), hostname: str(found[0].hostname) ?? String(found[0].id) };
}

/** The volumes of `ids` the account no longer lists (deleted, or in the trash). */
async function missingVolumes(backend: AutostopBackend, ids: readonly string[], signal: AbortSignal): Promise<string[]> {
  if (!ids.length) return [];
  const list = (await readResult(backend, (await autostopProvider()).autostop.reads.volumes(), { signal })) as unknown;
  const live = new Set((Array.isArray(list) ? list : []).filter((v: Rec) => v && !v.deleted_at && v.status !== 'deleted').map((v: Rec) => String(v.id)));
  return ids.filter((id) => !live.has(id));
}

/**
 * The restore (or start) as a one-step plan through the one apply module: validation, the gate (neither
 * is a destroyer action), the config's budget (a machine billing again), the journal. `fresh`: the
 * decision was made just now from the live status under this instance's lock, so an earlier run's
 * journal (a resume killed mid-step) must not refuse it.
 */
async function sendAction(backend: AutostopBackend, home: string, target: { id: string; hostname: string }, action: 'restore' | 'start'): Promise<{ ok: boolean; error?: AssistantError }> {
  const plan: Plan = {
    version: 1,
    provider: 'gpucloud',
    summary: `autostop resume: ${action} ${target.hostname}`,
    commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action, id: target.id })], reason: `autostop resume: ${action} ${target.hostname}` }],
  };
  const outcome = await applyPlan(plan, { backend, home, destroyer: false, mode: 'fresh', budget: budgetLimit(undefined, backend.config.budget?.max_hourly) });
  if (outcome.report.status === 'cancelled' || outcome.exitCode === 130) throw outcome.error;
  if (outcome.exitCode === 0) return { ok: true };
  const err = outcome.error instanceof AssistantError ? outcome.error : new OperationError('resume_failed', outcome.report.error?.message ?? `exit ${outcome.exitCode}`);
  // A timeout or a refusal before anything was sent is this run's failure, not the API's answer.
  if (err.code === 'timeout' || outcome.exitCode === 2 || outcome.exitCode === 3) throw err;
  return { ok: false, error: err };
}

async function listInstances(backend: AutostopBackend, signal: AbortSignal): Promise<Rec[]> {
  const list = (await readResult(backend, (await autostopProvider()).autostop.reads.instances(), { signal })) as unknown;
  return (Array.isArray(list) ? list : []).filter((i): i is Rec => !!i && typeof i === 'object');
}

/**
 * The instance the API deleted to hibernate it, created again from its OS volume with its data volumes
 * (under the instance's resume lock). An instance of its name already there is another resume's: this one
 * then only waits for it. Each hibernation's create is its own plan (the summary names when it was
 * hibernated), so the journal makes it happen once: a killed run is continued (`resume`, which finds a
 * create that reached the API by its name), a finished one only run again when no instance has the name.
 */
async function recreate(backend: AutostopBackend, opts: ResumeOptions, period: LedgerPeriod, signal: AbortSignal): Promise<ResumeResult> {
  const recipe = period.recipe!;
  const before = [recipe.os_volume_id, ...[...recipe.volume_ids].sort()];
  const back = (await listInstances(backend, signal)).find((i) => i.hostname === recipe.hostname);
  if (back) {
    const again = await resumeInstance(backend, { ...opts, instance: String(back.id) });
    return { ...again, status_before: 'deleted', recreated_from: period.id, volumes: { ...again.volumes, before, same: again.volumes.after.join() === before.join() } };
  }
  const volumes = (await readResult(backend, (await autostopProvider()).autostop.reads.volumes(), { signal })) as Rec[];
  const detached = new Set((Array.isArray(volumes) ? volumes : []).filter((v) => v && !v.deleted_at && v.status === 'detached').map((v) => String(v.id)));
  if (!detached.has(recipe.os_volume_id)) {
    throw new OperationError('os_volume_gone', `${recipe.hostname} was deleted when it was hibernated, and its OS volume ${recipe.os_volume_id} is no longer there detached; nothing was sent`, {
      hint: 'see assistant gpucloud list volumes; a deleted volume stays in the trash for 96 hours (GET /v1/volumes/trash) and comes back with the volume action restore (a plan step PUT /v1/volumes {"action":"restore","id":"…"})',
    });
  }
  const data = recipe.volume_ids.filter((id) => id !== recipe.os_volume_id && detached.has(id));
  const missing = recipe.volume_ids.filter((id) => id !== recipe.os_volume_id && !detached.has(id));
  const body = {
    instance_type: recipe.instance_type,
    image: recipe.os_volume_id,
    hostname: recipe.hostname,
    description: recipe.description,
    location_code: recipe.location_code,
    ssh_key_ids: recipe.ssh_key_ids,
    ...(recipe.startup_script_id ? { startup_script_id: recipe.startup_script_id } : {}),
    ...(data.length ? { existing_volumes: data } : {}),
    ...(recipe.contract ? { contract: recipe.contract } : {}),
    ...(recipe.pricing ? { pricing: recipe.pricing } : {}),
  };
  const plan: Plan = {
    version: 1,
    provider: 'gpucloud',
    summary: `autostop resume: create ${recipe.hostname} again from its volumes (hibernated ${new Date(period.from).toISOString()})`,
    commands: [{ args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: `autostop resume: ${recipe.hostname} again, from its OS volume ${recipe.os_volume_id}`, produces: { INSTANCE_ID: '$.id' } }],
  };
  const journal = RunJournal.forPlan(opts.home, plan).load();
  const mode = !journal ? 'new' : journal.finished ? 'fresh' : 'resume';
  opts.onProgress?.(`creating ${recipe.hostname} again from its volumes`);
  const outcome = await applyPlan(plan, { backend, home: opts.home, destroyer: false, mode, budget: budgetLimit(undefined, backend.config.budget?.max_hourly) });
  if (outcome.exitCode !== 0) throw outcome.error;
  recordRestored(opts.home, 'gpucloud', period.id, (opts.now ?? Date.now)());
  const id = String(outcome.report.bindings.INSTANCE_ID);
  opts.onProgress?.(`waiting for ${recipe.hostname} to be running`);
  const waitPlan: Plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-wait', 'instances', id, 'running', String(opts.waitTimeoutS ?? DEFAULT_WAIT_S), String(opts.pollIntervalS ?? DEFAULT_POLL_S)], reason: `wait until ${recipe.hostname} is running` }] };
  const after = (await readResult(backend, waitPlan, { signal })) as Rec;
  const afterVolumes = volumesOf(after);
  const same = afterVolumes.join() === before.join();
  let detail = 'created again from its OS volume with its data volumes (the API had deleted it to hibernate it)';
  if (missing.length) detail += `; ${missing.length} of its volumes are no longer there detached (${missing.join(', ')})`;
  if (!same) detail += '; its volumes differ from before the hibernation';
  return { id, hostname: recipe.hostname, status_before: 'deleted', status_after: String(after.status ?? 'unknown'), sent: 'create', recreated_from: period.id, detail, volumes: { before, after: afterVolumes, same }, missing_volumes: missing };
}
