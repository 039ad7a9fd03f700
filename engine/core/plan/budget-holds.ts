/**
 * Two applies under a budget at once must not both pass on the same burn (issue 35; the brief's "two
 * processes at once"): each reads what the account burns now, and neither sees what the other is about
 * to create. So the budget check of an apply runs alone among the checks of its scope (project) on
 * this machine, and a plan that passes holds what it adds until its run ends — by then what it made is
 * in the burn itself (instances still provisioning are counted). A check adds the holds of other live
 * runs to the burn; a hold of a run that died (kill -9) is ignored.
 *
 * Order matters: holds are read before the burn, and a run lets its hold go only after its changes were
 * made, so a check sees a run's addition in one place or the other, never in neither.
 * Stored as files under `~/.assistant/budget/`: processes on other machines sharing a project are not
 * seen (the name reservations' Redis store is not used for this).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { abortReason } from '../deadline.js';
import { isDead, lockExclusive, type Owner } from './run-lock.js';

interface Hold extends Owner {
  per_hour: number;
}

class Busy extends Error {}

const WAIT_MS = 200;

export interface BudgetHold {
  release(): Promise<void>;
}

export class BudgetHolds {
  private constructor(private readonly dir: string) {}

  /** The holds of one scope (the project or account budgets are judged in). */
  static of(home: string, scope: string): BudgetHolds {
    return new BudgetHolds(join(home, '.assistant', 'budget', createHash('sha256').update(scope).digest('hex').slice(0, 32)));
  }

  /** What the live runs holding a passed budget check add, not yet in the burn. */
  pending(): number {
    let sum = 0;
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter((n) => n.startsWith('hold-'));
    } catch {
      return 0;
    }
    for (const name of names) {
      try {
        const h = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as Hold;
        if (typeof h.per_hour === 'number' && Number.isFinite(h.per_hour) && !isDead(h)) sum += Math.max(0, h.per_hour);
      } catch {
        // A hold being written or removed right now: its run is still checking (we hold the lock) or done.
      }
    }
    return sum;
  }

  /**
   * Runs `check` alone among this scope's checks (waiting for another to finish), given what other runs
   * hold; when it returns a positive amount, that is held until `release`. A refusal thrown by `check`
   * holds nothing.
   */
  async judge(check: (pending: number) => Promise<number>, opts: { signal: AbortSignal; label: string; onWait?: (message: string, waitMs: number) => void }): Promise<BudgetHold> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lock = await this.lockCheck(opts);
    let file: string | undefined;
    try {
      const hold = await check(this.pending());
      if (hold > 0) {
        file = join(this.dir, `hold-${process.pid}-${randomUUID()}.json`);
        const h: Hold = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), label: opts.label, per_hour: hold };
        writeFileSync(file, JSON.stringify(h) + '\n', { mode: 0o600 });
      }
    } finally {
      await lock.release();
    }
    return { release: async () => void (file && rmSync(file, { force: true })) };
  }

  private async lockCheck(opts: { signal: AbortSignal; label: string; onWait?: (message: string, waitMs: number) => void }) {
    for (let told = false; ; told = true) {
      try {
        return await lockExclusive(join(this.dir, 'check'), { what: 'the budget check of a run that died', label: opts.label, onWait: opts.onWait, refusal: () => new Busy() });
      } catch (err) {
        if (!(err instanceof Busy)) throw err;
        if (!told) opts.onWait?.('waiting for the budget check of another run of this project to finish', WAIT_MS);
        await new Promise<void>((resolve, reject) => {
          if (opts.signal.aborted) return reject(abortReason(opts.signal));
          const timer = setTimeout(resolve, WAIT_MS);
          opts.signal.addEventListener('abort', () => (clearTimeout(timer), reject(abortReason(opts.signal))), { once: true });
        });
      }
    }
  }
}
