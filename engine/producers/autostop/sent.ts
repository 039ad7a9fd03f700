/**
 * What this machine's checks have sent, per instance (`~/.assistant/autostop/sent.json`), and the locks:
 * one check at a time per home (cron, CI and `assistant mcp` may overlap: a second check is refused at
 * once, exit 3, rather than sending the same action twice), and one resume at a time per instance.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SafetyRefusal } from '../../core/errors.js';
import { lockExclusive, type RunLock } from '../../core/plan/run-lock.js';
import { sleep } from '../../core/kits/http/sleep.js';
import { RESEND_AFTER_MS, type SentAction } from './decide.js';
import { isAutostopAction } from '../../core/kits/autostop/policy.js';

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

/** How often a resume waiting for another resume of the same instance tries the lock again. */
const RESUME_LOCK_RETRY_MS = 500;

/**
 * The lock of one instance's `autostop resume`: a second resume of the same instance (same home) waits
 * for the first to end, then reads the status it left (running) and sends nothing. Waiting, not refusing,
 * so two resumes started together both end 0. A holder killed with -9 is waited out by the lock itself.
 */
export async function lockResume(home: string, instanceId: string, signal: AbortSignal, onWait?: (message: string) => void): Promise<RunLock> {
  const path = join(dirOf(home), `resume-${instanceId.replace(/[^A-Za-z0-9-]/g, '_')}`);
  let told = false;
  for (;;) {
    try {
      return await lockExclusive(path, {
        what: 'the lock of an earlier resume of this instance',
        label: 'assistant autostop resume',
        onWait: (message) => onWait?.(message),
        refusal: (owner) => new SafetyRefusal(`another resume of this instance is running${owner ? ` (pid ${owner.pid})` : ''}`),
      });
    } catch (err) {
      if (!(err instanceof SafetyRefusal)) throw err;
      if (!told) onWait?.(`${err.message}; waiting for it to end`);
      told = true;
      await sleep(RESUME_LOCK_RETRY_MS, signal);
    }
  }
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
      if (v && isAutostopAction(v.action) && Number.isFinite(v.at) && Number.isFinite(v.last_activity)) out[k] = v;
    }
    return out;
  } catch {
    return {};
  }
}
