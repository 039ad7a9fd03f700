/**
 * `plan diff` and the MCP drift tool: a plan against the live cloud. The plan is validated (nothing of
 * it is run); each provider with a `drift` hook compares its steps' resources with what its read-only
 * list steps, run through the executor, find now.
 */
import type { Plan } from '../../../schemas/plan.js';
import type { PlanBackend } from '../../core/plan/backend.js';
import { checkPlan } from '../../core/plan/check.js';
import type { DriftEntry, DriftReport, DriftState } from '../../core/drift-types.js';

/** Runs a read-only plan through the executor and returns its last response (the caller's read path: machines/apply/reads). */
export type ReadOne = (plan: Plan) => Promise<unknown>;

export async function planDrift(backend: PlanBackend, input: unknown, opts: { all: boolean; read: ReadOne }): Promise<DriftReport> {
  // Compared, never run: destructive steps are allowed here (they say what should be gone).
  // --all looks at every provider with a drift hook, not only the plan's.
  const providers = opts.all ? await backend.providers.all() : await backend.providers.forPlan(input);
  const { plan, classes, requests } = checkPlan(input, { providers, destroyer: true, predefined: backend.predefined });
  const resources: DriftEntry[] = [];
  const notChecked: string[] = [];
  const planProviders = new Set(plan.commands.map((c) => providers.verb(c.args[0]!)!.provider));
  for (const provider of providers.list) {
    if (!planProviders.has(provider) && !(opts.all && provider.drift)) continue;
    if (!provider.drift) {
      notChecked.push(provider.name);
      continue;
    }
    const steps = plan.commands
      .map((c, index) => ({ index, args: c.args, class: classes[index]!, request: requests[index], alternatives: c.alternatives, produces: c.produces }))
      .filter((s) => providers.verb(s.args[0]!)?.provider === provider);
    if (!steps.length && !opts.all) continue;
    // Each list is one read-only plan through the executor, read once however often it is asked for.
    const seen = new Map<string, Promise<unknown>>();
    const read = (args: string[]) => {
      const key = JSON.stringify(args);
      if (!seen.has(key)) seen.set(key, opts.read({ version: 1, provider: provider.name, commands: [{ args, reason: 'plan diff: read what exists' }] }));
      return seen.get(key)!;
    };
    resources.push(...(await provider.drift(steps, read, backend.predefined, { all: opts.all })));
  }
  const counts: Record<DriftState, number> = { in_sync: 0, missing: 0, different: 0, unowned: 0 };
  for (const r of resources) counts[r.state]++;
  return { drift: resources.some((r) => r.state !== 'in_sync'), counts, resources, not_checked: notChecked };
}
