/**
 * Cost snapshots: each cost command appends one line (time, provider, account, balance, burn) to
 * ~/.assistant/cost/snapshots.jsonl, the history `cost trend` and `cost anomalies` read (the GPU cloud
 * has no billing-history endpoint). One `appendFile` per snapshot (O_APPEND, one write), so two
 * processes at once each add a whole line; the file is 0600 and its folder 0700 (balances are private).
 */
import { appendFile, chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OperationError } from '../../core/errors.js';

export interface CostSnapshot {
  at: string;
  provider: string;
  /**
   * Which account the figures belong to ('sandbox', the project ID or the API URL; see
   * engine/producers/ai/history.ts historyProject), so sandbox runs never enter the real account's trend.
   * Lines written before this field existed have none and count for every account.
   */
  account?: string;
  currency: string;
  balance: number | null;
  hourly_cost: number;
  resources: number;
}

export function snapshotPath(home: string): string {
  return join(home, '.assistant', 'cost', 'snapshots.jsonl');
}

export async function recordSnapshot(home: string, snap: CostSnapshot): Promise<string> {
  const dir = join(home, '.assistant', 'cost');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = snapshotPath(home);
  await appendFile(file, JSON.stringify(snap) + '\n', { mode: 0o600 });
  // A file made by hand (or an older umask) keeps its mode on append: tighten it.
  const st = await stat(file);
  if ((st.mode & 0o077) !== 0) await chmod(file, 0o600);
  return file;
}

/** A snapshot with its time parsed, as trend and anomalies use it. */
export interface TimedSnapshot extends CostSnapshot {
  atMs: number;
}

/**
 * The snapshots of one provider and account, oldest first. A line that is not a snapshot (a torn
 * write after kill -9, an edit by hand, another version's format) is skipped and counted, never fatal.
 */
export async function readSnapshots(home: string, provider: string, account: string): Promise<{ snapshots: TimedSnapshot[]; skipped: number }> {
  const file = snapshotPath(home);
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw new OperationError('snapshots_unreadable', `cannot read the cost history ${file}: ${err.code ?? err.message}`, { hint: 'check that it is a file you can read (it is recreated when missing)', cause: err });
  });
  const snapshots: TimedSnapshot[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let s: Partial<CostSnapshot>;
    try {
      s = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const atMs = typeof s?.at === 'string' ? Date.parse(s.at) : NaN;
    if (!Number.isFinite(atMs) || typeof s.hourly_cost !== 'number' || !Number.isFinite(s.hourly_cost) || s.hourly_cost < 0) {
      skipped++;
      continue;
    }
    if (s.provider !== provider || (s.account !== undefined && s.account !== account)) continue;
    snapshots.push({ ...(s as CostSnapshot), balance: typeof s.balance === 'number' ? s.balance : null, atMs });
  }
  return { snapshots: snapshots.sort((a, b) => a.atMs - b.atMs), skipped };
}
