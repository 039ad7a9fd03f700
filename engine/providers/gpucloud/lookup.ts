/**
 * Finding resources the way users name them: a kind by any of its names, and one record by ID or by
 * hostname/name. Shared by `gpucloud get|action` and the MCP tools, so both resolve names identically.
 * Reads go through the caller's `read` (a plan run), never straight to HTTP.
 */
import type { Plan } from '../../../schemas/plan.js';
import { InvalidInputError, OperationError, UsageError } from '../../core/errors.js';
import { findKind, KINDS, looksLikeId, type KindSpec } from './catalogue.js';
import { getByIdPlan, listPlan } from './static-plans.js';

/** Runs a one-step read plan and returns its response. */
export type ReadPlan = (plan: Plan) => Promise<unknown>;

export function requireKind(name: string): KindSpec {
  const spec = findKind(name);
  if (!spec) {
    throw new UsageError(`unknown resource kind "${name}"`, { hint: `kinds: ${KINDS.map((k) => k.kind).join(', ')}` });
  }
  return spec;
}

/** Several records carry the name; `matches` lets the caller show them. */
export class AmbiguousNameError extends InvalidInputError {
  constructor(
    readonly spec: KindSpec,
    readonly matches: Record<string, unknown>[],
    name: string,
  ) {
    // The IDs are in the hint itself, so every surface (CLI, MCP tool text) shows what to type.
    super('ambiguous', `${matches.length} ${spec.kind} are named "${name}"`, {
      hint: `use the ID instead: ${matches.map((m) => String(m[spec.idField])).join(', ')}`,
      details: { ids: matches.map((m) => m[spec.idField]) },
    });
  }
}

/** Resolves an ID or a hostname/name to exactly one record. */
export async function resolveRecord(read: ReadPlan, spec: KindSpec, idOrName: string): Promise<Record<string, unknown>> {
  if (spec.getPath && (looksLikeId(idOrName) || spec.idField === spec.nameField)) {
    const data = await read(getByIdPlan(spec, idOrName));
    const record = spec.getReturnsArray && Array.isArray(data) ? data[0] : data;
    if (!record) throw new OperationError('not_found', `no ${spec.singular} with ID "${idOrName}"`);
    return record as Record<string, unknown>;
  }
  const all = await read(listPlan(spec));
  const matches = (Array.isArray(all) ? (all as Record<string, unknown>[]) : []).filter(
    (r) => r[spec.idField] === idOrName || (spec.nameField && r[spec.nameField] === idOrName),
  );
  if (matches.length === 1) return matches[0]!;
  // Capacity failover leaves instances that ended in no_capacity (never ran, never bill) beside the one
  // that was placed under the same name: a name means the live one.
  const live = matches.filter((r) => r.status !== 'no_capacity');
  if (matches.length > 1 && live.length === 1) return live[0]!;
  if (matches.length === 0) {
    throw new OperationError('not_found', `no ${spec.singular} with ID or ${spec.nameField ?? 'name'} "${idOrName}"`, {
      hint: `list them with 'assistant gpucloud list ${spec.kind}'`,
    });
  }
  throw new AmbiguousNameError(spec, matches, idOrName);
}
