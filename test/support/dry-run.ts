/**
 * What a budget test reads from `ask --apply --dry-run -o json`: its cost lines per step, with each
 * unpriced step listed among them too (why it could not be priced, as the line's type, without a price).
 */
export interface CostLine {
  step: number;
  type: string;
  part?: string;
  per_hour?: number;
  note?: string;
}

/** The dry run's cost lines, per step, from its JSON report (stdout). */
export function costsByStep(stdout: string): Map<number, CostLine[]> {
  const doc = JSON.parse(stdout) as { costs: CostLine[]; unpriced?: { step: number; why: string }[] };
  const out = new Map<number, CostLine[]>();
  for (const c of doc.costs) out.set(c.step, [...(out.get(c.step) ?? []), c]);
  for (const u of doc.unpriced ?? []) out.set(u.step, [...(out.get(u.step) ?? []), { step: u.step, type: u.why }]);
  return out;
}
