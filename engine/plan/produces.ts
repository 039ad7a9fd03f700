import { JSONPath } from 'jsonpath-plus';
import { OperationError } from '../errors.js';

/**
 * Evaluates a command's `produces` map on a step's response. The real API answers some creates with a
 * bare-text ID and others with `{"id": …}`; a bare scalar is viewed as `{id: value}` so `$.id` fits both.
 */
export function evaluateProduces(produces: Record<string, string> | undefined, data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!produces) return out;
  const json = data !== null && typeof data === 'object' ? (data as object) : { id: data };
  for (const [name, path] of Object.entries(produces)) {
    let value: unknown;
    try {
      value = JSONPath({ path, json, wrap: false });
    } catch (err) {
      throw new OperationError('produces_failed', `produces ${name}: invalid JSONPath "${path}": ${(err as Error).message}`);
    }
    if (Array.isArray(value)) value = value[0];
    if (value === undefined || value === null || value === '' || typeof value === 'object') {
      throw new OperationError('produces_failed', `produces ${name}: "${path}" matched no value in the response`, {
        hint: 'the step ran; check the response shape with --debug and fix the JSONPath in the plan',
      });
    }
    out[name] = String(value);
  }
  return out;
}
