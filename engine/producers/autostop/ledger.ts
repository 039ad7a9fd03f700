/**
 * What auto-stop hibernated and when it came back (`~/.assistant/autostop/ledger.jsonl`), the record
 * behind `cost summary`'s "auto-stop saved" lines. Append-only JSON lines: a check (under its lock) and
 * any number of `autostop resume` runs write to it, and an appended line of this size lands whole (one
 * O_APPEND write), so no lock is needed and a kill -9 can at most tear the last line, which is skipped.
 *
 * A period opens just before the check sends `hibernate` (so a check killed after the request reached
 * the API still leaves it), is taken back when the API refused it (`unsent`), and closes when `autostop
 * resume` has sent `restore`. A period counts only as long as the instance was known to be hibernated:
 * until the restore, else while the account lists it hibernated, else until a check last saw it so (a
 * check notes that at most once an hour). So a hibernate that never reached the API (a kill before the
 * send) and a restore made some other way (the console, another machine) never count time they did not.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HibernationPeriod } from '../../core/kits/autostop/hibernation-periods.js';

export type { HibernationPeriod };

/**
 * What the instance was, as its record said just before it was hibernated: enough to create it again
 * from its own volumes where the API deletes a hibernated instance (the Go SDK's account of it).
 */
export interface InstanceRecipe {
  instance_type: string;
  location_code: string;
  hostname: string;
  description: string;
  ssh_key_ids: string[];
  startup_script_id: string | null;
  os_volume_id: string;
  volume_ids: string[];
  contract?: string;
  pricing?: string;
}

export type LedgerPeriod = HibernationPeriod & { recipe?: InstanceRecipe };

type LedgerEvent =
  | { e: 'hibernate'; provider: string; id: string; hostname: string; type: string; price_per_hour: number | null; at: number; recipe?: InstanceRecipe }
  | { e: 'seen'; id: string; at: number }
  | { e: 'restore'; id: string; at: number }
  | { e: 'unsent'; id: string; at: number };

/** A hibernated instance is noted as still hibernated at most this often. */
const SEEN_EVERY_MS = 3_600_000;

const ledgerPath = (home: string) => join(home, '.assistant', 'autostop', 'ledger.jsonl');

function append(home: string, event: LedgerEvent): void {
  mkdirSync(join(home, '.assistant', 'autostop'), { recursive: true, mode: 0o700 });
  appendFileSync(ledgerPath(home), JSON.stringify(event) + '\n', { mode: 0o600 });
}

function events(home: string): LedgerEvent[] {
  let text: string;
  try {
    text = readFileSync(ledgerPath(home), 'utf8');
  } catch {
    return [];
  }
  const out: LedgerEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as LedgerEvent;
      if (typeof e?.id === 'string' && Number.isFinite(e.at)) out.push(e);
    } catch {
      // a torn last line (kill -9 mid-write) carries nothing to rely on
    }
  }
  return out;
}

/** Every hibernation period of `provider`'s instances, oldest first; the open ones without `restored_at`. */
export function hibernationPeriods(home: string, provider: string): LedgerPeriod[] {
  const periods: LedgerPeriod[] = [];
  const open = new Map<string, LedgerPeriod>();
  for (const e of events(home)) {
    if (e.e === 'hibernate' && e.provider === provider) {
      // The check hibernates only a running instance: an open period of the same instance ended before
      // this one, at the last time it was known hibernated (it came back some other way, or never went).
      const before = open.get(e.id);
      if (before) before.restored_at = before.seen_until;
      const p: LedgerPeriod = {
        id: e.id,
        name: e.hostname,
        type: e.type,
        price_per_hour: e.price_per_hour,
        from: e.at,
        seen_until: e.at,
        ...(e.recipe ? { os_volume_id: e.recipe.os_volume_id, recipe: e.recipe } : {}),
      };
      periods.push(p);
      open.set(e.id, p);
    } else if (e.e === 'seen') {
      const p = open.get(e.id);
      if (p) p.seen_until = Math.max(p.seen_until, e.at);
    } else if (e.e === 'restore') {
      const p = open.get(e.id);
      if (p) {
        p.restored_at = Math.max(p.from, e.at);
        open.delete(e.id);
      }
    } else if (e.e === 'unsent') {
      const p = open.get(e.id);
      if (p) {
        periods.splice(periods.indexOf(p), 1);
        open.delete(e.id);
      }
    }
  }
  return periods;
}

/** Opens a period, before the hibernate is sent. */
export function recordHibernating(home: string, provider: string, inst: { id: string; hostname: string; type: string; price_per_hour: number | null; recipe?: InstanceRecipe }, at: number): void {
  append(home, { e: 'hibernate', provider, id: inst.id, hostname: inst.hostname, type: inst.type, price_per_hour: inst.price_per_hour, at, ...(inst.recipe ? { recipe: inst.recipe } : {}) });
}

/** The recipe of an instance's record (undefined without an OS volume to create it again from). */
export function recipeOf(rec: Record<string, unknown>): InstanceRecipe | undefined {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  if (!str(rec.os_volume_id)) return undefined;
  return {
    instance_type: str(rec.instance_type),
    location_code: str(rec.location ?? rec.location_code),
    hostname: str(rec.hostname),
    description: str(rec.description),
    ssh_key_ids: Array.isArray(rec.ssh_key_ids) ? rec.ssh_key_ids.map(String) : [],
    startup_script_id: str(rec.startup_script_id) || null,
    os_volume_id: str(rec.os_volume_id),
    volume_ids: Array.isArray(rec.volume_ids) ? rec.volume_ids.map(String) : [],
    ...(str(rec.contract) ? { contract: str(rec.contract) } : {}),
    ...(str(rec.pricing) ? { pricing: str(rec.pricing) } : {}),
  };
}

/** The open period of the instance with this ID or hostname (the latest), if any. */
export function openPeriodOf(home: string, provider: string, ref: string): LedgerPeriod | undefined {
  return hibernationPeriods(home, provider)
    .filter((p) => p.restored_at === undefined && (p.id === ref || p.name === ref))
    .at(-1);
}

/** Takes back the period just opened: the API refused the hibernate, nothing changed. */
export function recordHibernateUnsent(home: string, id: string, at: number): void {
  append(home, { e: 'unsent', id, at });
}

/** Notes that an instance with an open period is still hibernated (at most once per SEEN_EVERY_MS). */
export function recordStillHibernated(home: string, provider: string, ids: readonly string[], at: number): void {
  const open = new Map(hibernationPeriods(home, provider).filter((p) => p.restored_at === undefined).map((p) => [p.id, p]));
  for (const id of ids) {
    const p = open.get(id);
    if (p && at - p.seen_until >= SEEN_EVERY_MS) append(home, { e: 'seen', id, at });
  }
}

/** Closes the open period of an instance (a restore was sent); nothing when none is open. */
export function recordRestored(home: string, provider: string, id: string, at: number): void {
  if (hibernationPeriods(home, provider).some((p) => p.id === id && p.restored_at === undefined)) append(home, { e: 'restore', id, at });
}
