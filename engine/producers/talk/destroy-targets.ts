/**
 * What a plan destroys, by name, for the confirmation of `/apply`: as `gpucloud action delete` makes
 * you type the hostname, a destructive plan makes you type the name of each resource it destroys.
 * The name comes from the step's classification when the provider knows it, else from the provider's
 * own listing of that kind (the record whose ID the step names); a step whose target cannot be named
 * (an ID bound only while the plan runs) is typed as `step-<n>`.
 */
import type { Plan } from '../../../schemas/plan.js';
import type { NamedRecord, Provider, ProviderSet, StepClass } from '../../core/provider.js';

export interface DestroyTarget {
  index: number;
  kind?: string;
  /** What the user types to confirm this step. */
  name: string;
  /** Whether `name` is the resource's name (else a stand-in such as `step-2`). */
  named: boolean;
  reasons: string[];
}

export type RecordLister = (provider: Provider<any>, kind: string) => Promise<NamedRecord[]>;

export async function destroyTargets(plan: Plan, classes: readonly StepClass[], providers: ProviderSet, list: RecordLister): Promise<DestroyTarget[]> {
  const out: DestroyTarget[] = [];
  for (const [index, command] of plan.commands.entries()) {
    const cls = classes[index];
    if (cls?.effect !== 'destroy') continue;
    const base = { index, kind: cls.kind, reasons: cls.reasons };
    if (cls.name) {
      out.push({ ...base, name: cls.name, named: true });
      continue;
    }
    const provider = providers.verb(command.args[0] ?? '')?.provider;
    let records: NamedRecord[] = [];
    if (provider?.names && cls.kind) records = await list(provider, cls.kind).catch(() => []);
    const text = command.args.join('\u0000');
    const hit = records.find((r) => r.id && text.includes(r.id));
    out.push(hit ? { ...base, name: hit.name, named: true } : { ...base, name: `step-${index}`, named: false });
  }
  return out;
}

/** Whether what was typed names every target (in any order, separated by spaces or commas). */
export function namesMatch(typed: string, targets: readonly DestroyTarget[]): boolean {
  const want = targets.map((t) => t.name).sort();
  const got = typed
    .split(/[\s,]+/)
    .filter(Boolean)
    .sort();
  return want.length === got.length && want.every((n, i) => n === got[i]);
}
