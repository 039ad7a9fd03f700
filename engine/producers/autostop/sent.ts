/**
 * What this machine's checks have sent, per instance (`~/.assistant/autostop/sent.json`), and the lock
 * that lets one check run at a time per home (cron, CI and `assistant mcp` may overlap): a second check
 * is refused at once, exit 3, rather than sending the same action twice.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SafetyRefusal } from '../../core/errors.js';
import { lockExclusive, type RunLock } from '../../core/plan/run-lock.js';
import { RESEND_AFTER_MS, type SentAction } from './decide.js';

const dirOf = (home: string) => join(home, '.assistant', 'autostop');

export function lockCheck(home: string): Promise<RunLock> {
  return lockExclusive(join(dirOf(home), 'check'), {
    what: 'the lock of an earlier auto-stop check',
    label: 'assistant autostop check',
    refusal: (owner) =>
      new SafetyRefusal(`another auto-stop check is running${owner ? ` (pid ${owner.pid} on ${owner.host}, started ${owner.started_at})` : ''}; two at once could act twice`, {
        hint: 'let it finish; the next scheduled check picks up whatever it left',
      }),
  });
}

export class SentActions {
  private readonly dir: string;
  private readonly path: string;
  private data: Record<string, SentAction>;

  constructor(home: string) {
    this.dir = dirOf(home);
    this.path = join(this.dir, 'sent.json');
    this.data = load(this.path);
  }

  get(id: string): SentAction | undefined {
    return this.data[id];
  }

  /** Records an action and forgets ones old enough not to matter. */
  record(id: string, action: SentAction, now: number): void {
    this.data[id] = action;
    for (const [k, v] of Object.entries(this.data)) if (now - v.at > 4 * RESEND_AFTER_MS) delete this.data[k];
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 1) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

function load(path: string): Record<string, SentAction> {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, SentAction>;
    const out: Record<string, SentAction> = {};
    for (const [k, v] of Object.entries(raw ?? {})) {
      if (v && (v.action === 'shutdown' || v.action === 'delete') && Number.isFinite(v.at) && Number.isFinite(v.last_activity)) out[k] = v;
    }
    return out;
  } catch {
    return {};
  }
}
