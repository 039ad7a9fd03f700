/**
 * Create de-duplication: a paid resource must never be created twice because a create was retried.
 *
 * When a POST that creates a catalogue kind fails *ambiguously* (5xx, reset, timeout: the server may
 * have acted), the client lists the kind before sending again and looks for a record with the body's
 * name that was not there before. For kinds whose names are not unique, "before" is a snapshot of the
 * matching IDs taken with one GET before the first attempt; for `uniqueNames` kinds any match is ours.
 */
import type { CanonicalRequest } from '../../core/provider.js';
import { kindCreatedAt, listPathOf, type KindSpec } from './catalogue.js';
import { canonicalRequest } from './request.js';

/**
 * Kinds whose create answers `{"id": …}` rather than the bare-text ID (wire reference, POST /v1/clusters).
 * Kinds identified by name answer with the record itself.
 * TODO(catalogue): this belongs in KindSpec as a `createResponse` field.
 */
const OBJECT_ID_CREATE_PATHS = new Set(['/v1/clusters']);

/** What the real API answers to the create of `record` (found after an ambiguous failure or an interrupted run). */
export function createResponseFor(kind: KindSpec, id: string, record: unknown): unknown {
  if (kind.idField !== 'id') return record ?? { [kind.idField]: id };
  return OBJECT_ID_CREATE_PATHS.has(kind.path) ? { id } : id;
}

type ListFn = (path: string) => Promise<unknown>;

export interface FoundCreate {
  id: string;
  /** What the real API would have answered to the create. */
  data: unknown;
}

export class CreateDedupe {
  private before: Set<string> | undefined;

  constructor(
    readonly kind: KindSpec,
    readonly name: string,
  ) {}

  /** Path that lists the kind (with its list query, e.g. pagination). */
  get listPath(): string {
    return listPathOf(this.kind);
  }

  get needsSnapshot(): boolean {
    return !this.kind.uniqueNames;
  }

  /** Records the IDs already carrying this name (one GET), before the first POST attempt. */
  async snapshot(list: ListFn): Promise<void> {
    this.before = new Set(this.matching(await list(this.listPath)).map((r) => this.idOf(r)));
  }

  /** Whether the IDs that carried this name before the first attempt are known (snapshot or restore). */
  get hasSnapshot(): boolean {
    return this.before !== undefined;
  }

  /** The IDs seen by snapshot(), so another process can resume the guard (run journal). */
  get snapshotIds(): string[] | undefined {
    return this.before ? [...this.before] : undefined;
  }

  restoreSnapshot(ids: string[]): void {
    this.before = new Set(ids);
  }

  /** After an ambiguous failure: the record our create made, if the server did make it. */
  async find(list: ListFn): Promise<FoundCreate | undefined> {
    if (this.needsSnapshot && !this.before) return undefined;
    const fresh = this.matching(await list(this.listPath)).filter((r) => !this.before?.has(this.idOf(r)));
    if (fresh.length === 0) return undefined;
    const record = newest(fresh);
    const id = this.idOf(record);
    return { id, data: createResponseFor(this.kind, id, record) };
  }

  private matching(list: unknown): Record<string, unknown>[] {
    if (!Array.isArray(list)) return [];
    const field = this.kind.nameField!;
    // An instance that ended in no_capacity never ran: it is nobody's create to adopt (failover.ts).
    return list.filter(
      (r): r is Record<string, unknown> =>
        typeof r === 'object' && r !== null && (r as Record<string, unknown>)[field] === this.name && (r as Record<string, unknown>).status !== 'no_capacity',
    );
  }

  private idOf(record: Record<string, unknown>): string {
    return String(record[this.kind.idField] ?? '');
  }
}

/** The most recently created record (by created_at when present, else the last listed). */
function newest(records: Record<string, unknown>[]): Record<string, unknown> {
  let best = records[records.length - 1]!;
  for (const r of records) {
    const a = Date.parse(String(r.created_at ?? ''));
    const b = Date.parse(String(best.created_at ?? ''));
    if (!Number.isNaN(a) && (Number.isNaN(b) || a > b)) best = r;
  }
  return best;
}

/** A de-duplication guard when a canonical request creates a named catalogue kind (its name from the folded body); otherwise undefined. */
export function createDedupeOf(request: CanonicalRequest): CreateDedupe | undefined {
  if (request.method !== 'POST' || request.query.length) return undefined;
  const kind = kindCreatedAt(request.path);
  if (!kind?.nameField) return undefined;
  const obj = request.body;
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const name = (obj as Record<string, unknown>)[kind.nameField];
  if (typeof name !== 'string' || name === '') return undefined;
  return new CreateDedupe(kind, name);
}

/** The same for a raw request (the client's own guard): through its canonical form; none when it has none. */
export function createDedupeFor(method: string, path: string, body: unknown): CreateDedupe | undefined {
  // Only a POST creates (createDedupeOf), and the canonical method is this one (trimmed, upper case):
  // a read is not put into its canonical form to learn that it guards nothing.
  if (method.trim().toUpperCase() !== 'POST') return undefined;
  const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const canon = canonicalRequest(['gpucloud-api', method, path, ...(text === undefined ? [] : [text])]);
  return canon.ok ? createDedupeOf(canon.request) : undefined;
}
