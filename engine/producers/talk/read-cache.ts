/**
 * The reads of a talk session, reused while fresh: a follow-up question about the same instances does
 * not list them again. Each read step (its argument vector) is kept for `freshMs`; a context plan is
 * run for the steps that are missing or stale only, through the same executor. Anything that changes
 * the cloud from this session (/apply) clears it, and so does /reset.
 */
import type { Plan } from '../../../schemas/plan.js';

export class ReadCache {
  private readonly entries = new Map<string, { at: number; data: unknown }>();
  /** Steps answered from the cache since the session began (shown with --debug, checked by tests). */
  hits = 0;

  constructor(
    readonly freshMs: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Every step's response, from the cache where fresh, else by running the missing steps with `run`. */
  async read(plan: Plan, run: (plan: Plan) => Promise<unknown[]>): Promise<unknown[]> {
    // A step that binds a value for a later one is not independent: run such plans whole, uncached.
    if (this.freshMs <= 0 || plan.commands.some((c) => c.produces && Object.keys(c.produces).length)) return run(plan);
    const keys = plan.commands.map((c) => JSON.stringify(c.args));
    const t = this.now();
    const missing = keys.flatMap((k, i) => {
      const hit = this.entries.get(k);
      return hit && t - hit.at < this.freshMs ? [] : [i];
    });
    this.hits += keys.length - missing.length;
    if (missing.length) {
      const data = await run({ ...plan, commands: missing.map((i) => plan.commands[i]!) });
      const at = this.now();
      missing.forEach((i, n) => this.entries.set(keys[i]!, { at, data: data[n] }));
    }
    return keys.map((k) => this.entries.get(k)!.data);
  }

  clear(): void {
    this.entries.clear();
  }
}
