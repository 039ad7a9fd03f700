/**
 * The records use case: `list <kind>` and `get <kind> <id or name>` over a provider's records capability
 * (engine/core/capabilities.ts RecordsCapability). The CLI's `gpucloud list|get` and the MCP list and get
 * tools both call it, so they pick the same kind for a name, read the same plan and resolve a name the
 * same way; each surface renders the result its own way. Reads go through the caller's `read` (a plan
 * run through the apply module's reads), never straight to HTTP.
 */
import type { Plan } from '../../schemas/plan.js';
import type { RecordKind, RecordsCapability } from '../../engine/core/capabilities.js';

/** Runs a one-step read-only plan and answers its response. */
export type ReadRecords = (plan: Plan) => Promise<unknown>;

export interface Listed {
  kind: RecordKind;
  /** The response as the API gave it (an array, or one object for a kind such as `balance`). */
  data: unknown;
  /** The response as a list: an object is one record, nothing is none. */
  items: unknown[];
}

export async function listRecords(records: RecordsCapability, read: ReadRecords, kindName: string): Promise<Listed> {
  const kind = records.kind(kindName);
  const data = await read(records.list(kind.kind));
  return { kind, data, items: Array.isArray(data) ? data : data === undefined || data === null ? [] : [data] };
}

export async function getRecord(records: RecordsCapability, read: ReadRecords, kindName: string, idOrName: string): Promise<{ kind: RecordKind; record: Record<string, unknown> }> {
  const kind = records.kind(kindName);
  return { kind, record: await records.resolve(read, kind.kind, idOrName) };
}
