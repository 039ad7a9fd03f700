/**
 * The watcher's record as read from an instance: untrusted data from a remote host, so it is parsed
 * strictly (size, shape, ranges) and only ever yields numbers; anything else is "unreadable" and
 * nothing is done to the instance.
 */
import { z } from 'zod';

/** The watcher writes about 120 bytes; anything much larger is not its record. */
const MAX_RECORD_BYTES = 4096;
/** Epoch seconds between 2020 and 2200: a clock that says otherwise is not to be trusted. */
const epoch = z.int().min(1_577_836_800).max(7_258_118_400);

const RecordSchema = z.object({
  version: z.literal(1),
  updated: epoch,
  last_activity: epoch,
  boot: epoch.optional(),
  busy: z.boolean(),
  gpu_util_max: z.int().min(0).max(100).nullable().optional(),
  logins: z.int().min(0).max(100_000).optional(),
});

export type WatcherRecord = z.infer<typeof RecordSchema>;

export function parseRecord(text: string): { record: WatcherRecord } | { problem: string } {
  if (Buffer.byteLength(text, 'utf8') > MAX_RECORD_BYTES) return { problem: `the record is larger than ${MAX_RECORD_BYTES} bytes` };
  let raw: unknown;
  try {
    raw = JSON.parse(text.trim());
  } catch {
    return { problem: 'the record is not JSON' };
  }
  const parsed = RecordSchema.safeParse(raw);
  if (!parsed.success) return { problem: `the record is not the watcher's: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ')}`.slice(0, 300) };
  if (parsed.data.last_activity > parsed.data.updated) return { problem: 'the record says the last activity came after it was written' };
  return { record: parsed.data };
}

/** Whole minutes the instance had been idle when the watcher last wrote (its own clock on both sides). */
export const idleMinutes = (r: WatcherRecord) => Math.floor((r.updated - r.last_activity) / 60);

/** What the record says about use right now, for the table. */
export function activityNow(r: WatcherRecord): string {
  const parts: string[] = [];
  if (r.gpu_util_max !== undefined && r.gpu_util_max !== null) parts.push(`GPU ${r.gpu_util_max}%`);
  if (r.logins) parts.push(`${r.logins} login${r.logins === 1 ? '' : 's'}`);
  return parts.join(', ') || (r.busy ? 'in use' : 'no GPU use, no logins');
}
