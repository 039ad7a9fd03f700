/**
 * `cost summary`'s "auto-stop saved" lines: the hibernation periods this home's checks recorded
 * (engine/producers/autostop/ledger.ts), priced at each machine's price against the account's instance
 * list read now (the provider's `autostop` capability, `savings`). Undefined when auto-stop never
 * hibernated anything of this provider here (or it has no auto-stop), and then nothing is read.
 */
import type { HibernationSaving } from '../../engine/core/kits/autostop/hibernation-periods.js';
import { hibernationPeriods } from '../../engine/producers/autostop/ledger.js';
import { autostopOf } from './provider.js';
import { readResult, type PlanBackend } from '../apply/index.js';

export interface AutostopSaved {
  /** What the machines would have billed while hibernated, in the account's currency. */
  total: number;
  /** What the instances hibernated now save per hour. */
  per_hour_now: number;
  periods: HibernationSaving[];
  based_on: string;
}

const BASED_ON =
  "each hibernation's hours at the machine's price when it was hibernated (a hibernated machine does not bill; its volumes do and are in the burn), until `autostop resume` sent the restore, else while the account still lists it hibernated, else until a check last saw it hibernated; recorded by this home's checks";

export async function autostopSaved(backend: PlanBackend, home: string, provider: string, now: number, signal?: AbortSignal): Promise<AutostopSaved | undefined> {
  // Only auto-stop's own provider has periods in the ledger: any other summary reads nothing more.
  const periods = hibernationPeriods(home, provider);
  if (!periods.length) return undefined;
  const autostop = await autostopOf(provider);
  if (!autostop) return undefined;
  const [instances, volumes] = await Promise.all([readResult(backend, autostop.reads.instances(), { signal }), readResult(backend, autostop.reads.volumes(), { signal })]);
  return { ...(await autostop.savings(periods, instances, volumes, now)), based_on: BASED_ON };
}
