/**
 * What an auto-stop policy saves per idle hour, for a dry run: from the prices the dry run already has
 * for each create (its cost lines: the machine, its OS volume, its other volumes) and what each action
 * stops billing on gpucloud — shutdown nothing (a shut-down instance still bills), hibernate the machine
 * (the volumes stay and bill), delete the machine and the OS volume (data volumes are detached, kept, and
 * bill). Nothing is read for it and nothing here is the plan's own words but the hostname.
 */
import type { Plan } from '../../../schemas/plan.js';
import type { CostLine } from '../../core/provider.js';
import type { IdleSaving } from '../../core/plan/preview.js';
import { describePolicy, type AutostopAction } from '../../core/kits/autostop/policy.js';

const NOTES: Record<AutostopAction, string> = {
  shutdown: 'a shut-down gpucloud instance still bills: hibernate releases the machine',
  hibernate: 'the machine is released, its volumes stay and bill; `assistant autostop resume` restores it',
  delete: 'the instance and its OS volume go; data volumes are detached, kept and bill',
};

const sum = (lines: readonly CostLine[]): number | null => (lines.some((l) => l.per_hour === undefined) ? null : lines.reduce((s, l) => s + (l.per_hour ?? 0), 0));

/** One line per create of `plan` that has an auto-stop policy. */
export function idleSavings(plan: Plan, costs: readonly CostLine[]): IdleSaving[] {
  const out: IdleSaving[] = [];
  plan.commands.forEach((c, step) => {
    if (!c.autostop) return;
    const lines = costs.filter((l) => l.step === step);
    const machine = lines.filter((l) => l.kind !== 'volume');
    const os = lines.filter((l) => l.kind === 'volume' && l.part === 'OS volume');
    const stops = c.autostop.action === 'shutdown' ? [] : c.autostop.action === 'hibernate' ? machine : [...machine, ...os];
    const stays = lines.filter((l) => !stops.includes(l));
    let name = `step ${step}`;
    try {
      const body = JSON.parse(c.args[3] ?? '{}') as { hostname?: unknown };
      if (typeof body.hostname === 'string') name = body.hostname;
    } catch {
      // the validator reports a body that is not JSON
    }
    out.push({ step, name, policy: describePolicy(c.autostop), saves_per_hour: machine.length ? sum(stops) : null, still_bills_per_hour: sum(stays), note: NOTES[c.autostop.action] });
  });
  return out;
}
