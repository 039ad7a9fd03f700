/**
 * Cost snapshots: each cost command appends one line (time, provider, balance, burn) to
 * ~/.assistant/cost/snapshots.jsonl, the history a later `cost trend` and `cost anomalies` read (the GPU
 * cloud has no billing-history endpoint). One `appendFile` per snapshot (O_APPEND, one write), so two
 * processes at once each add a whole line; the file is 0600 and its folder 0700 (balances are private).
 */
import { appendFile, chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CostSnapshot {
  at: string;
  provider: string;
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
