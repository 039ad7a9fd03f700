/**
 * Body decoding for gpucloud responses: JSON when the body parses as JSON, the trimmed text otherwise
 * (creates answer with a bare-text ID such as `deadc0de-…`), undefined when empty. Also turns
 * multi-status results (207, or 202 carrying a results array) with a failed item into a typed error.
 */
import type { ActionResult } from './action-results.js';
import { PartialFailureError, decodeGpuCloudError, type GpuCloudError } from './errors.js';

/** Decodes a response body. A JSON-quoted string (`"abc"`) comes back unquoted via JSON.parse. */
export function decodeBody(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return trimmed;
  }
}

/** Response headers as a plain lower-cased record. */
export function headersToRecord(headers: { forEach(fn: (value: string, key: string) => void): void }): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key.toLowerCase()] = value;
  });
  return out;
}

export type { ActionResult };

/**
 * The results array of a multi-status answer, or undefined when the body is not one. The results schema
 * (with zod) is imported the first time such an answer arrives: every other response, a list's
 * included, is decoded without it.
 */
export async function multiStatusResults(status: number, data: unknown): Promise<ActionResult[] | undefined> {
  if (status !== 207 && status !== 202) return undefined;
  const { actionResultsSchema } = await import('./action-results.js');
  const parsed = actionResultsSchema.safeParse(data);
  if (!parsed.success) return undefined;
  // A 202 counts only when its array really looks like per-resource results.
  if (status === 202 && !parsed.data.every((r) => r.instanceId !== undefined || r.id !== undefined || r.action !== undefined)) return undefined;
  return parsed.data;
}

/** Throws PartialFailureError when a multi-status answer has at least one item whose status is not `success`. */
export async function assertAllSucceeded(
  status: number,
  data: unknown,
  context: { method: string; path: string; attempts: number },
): Promise<void> {
  const results = await multiStatusResults(status, data);
  if (!results) return;
  const failed = results.filter((r) => r.status !== 'success');
  if (failed.length === 0) return;
  const parts = failed.map((r) => {
    const id = r.instanceId ?? (Array.isArray(r.id) ? r.id.join(',') : r.id) ?? '(unknown id)';
    const what = r.action ? ` ${r.action}` : '';
    const code = r.statusCode ? ` [${r.statusCode}]` : '';
    return `${id}${what}: ${r.error || r.status}${code}`;
  });
  throw new PartialFailureError({
    status,
    code: 'partial_failure',
    message: `${failed.length} of ${results.length} failed: ${parts.join('; ')}`,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
    details: results,
  });
}

/** Decodes a non-2xx answer into the matching typed error (SPEC 7.1). */
export function errorFromResponse(
  status: number,
  text: string,
  context: { method: string; path: string; attempts: number; tokenEndpoint?: boolean },
): GpuCloudError {
  return decodeGpuCloudError(status, decodeBody(text), context);
}
