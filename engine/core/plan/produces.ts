import type { JSONPath as JSONPathFn } from 'jsonpath-plus';
import { OperationError } from '../errors.js';

let loaded: typeof JSONPathFn | undefined;

/**
 * Imports jsonpath-plus (the first time): a plan without `produces` never loads it. Validation is
 * synchronous, so it is imported before, where the plan's providers are (ProviderSource.forPlan, through
 * loadPlanChecks in shape.ts); a step's `produces` imports it itself.
 */
export async function loadJsonPath(): Promise<void> {
  loaded ??= (await import('jsonpath-plus')).JSONPath;
}

function JSONPath(opts: { path: string; json: object; wrap: false }): unknown {
  if (!loaded) throw new Error('internal: jsonpath-plus is not loaded; a surface must await providers.forPlan(plan) before validating it');
  return loaded(opts);
}

/**
 * Evaluates a command's `produces` map on a step's response. The real API answers some creates with a
 * bare-text ID and others with `{"id": …}`; a bare scalar is viewed as `{id: value}` so `$.id` fits both.
 */
export async function evaluateProduces(produces: Record<string, string> | undefined, data: unknown): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!produces) return out;
  await loadJsonPath();
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

/** A response-like value that exercises filters and recursion when a path is compiled for validation. */
const PROBE = { id: 'probe', items: [{ id: 'probe', name: 'probe', nested: { id: 'probe' } }] };

/**
 * Why a `produces` JSONPath cannot be evaluated at all (a syntax error), or undefined. jsonpath-plus is
 * lenient (an unclosed bracket silently means something else), so brackets, parentheses and quotes are
 * checked for balance too; then the path is evaluated once on a probe so filter expressions compile.
 */
export function jsonPathProblem(path: string): string | undefined {
  const p = path.trim();
  if (!p.startsWith('$')) return `JSONPath must start with $ (got "${path}")`;
  const closing: Record<string, string> = { '[': ']', '(': ')' };
  const open: string[] = [];
  let quote: string | undefined;
  for (const ch of p) {
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[' || ch === '(') open.push(closing[ch]!);
    else if (ch === ']' || ch === ')') {
      if (open.pop() !== ch) return `invalid JSONPath "${path}": unexpected "${ch}"`;
    }
  }
  if (quote) return `invalid JSONPath "${path}": unclosed quote`;
  if (open.length) return `invalid JSONPath "${path}": missing "${open[open.length - 1]}"`;
  if (/[.[]$/.test(p) && !p.endsWith('..')) return `invalid JSONPath "${path}": it ends with "${p[p.length - 1]}"`;
  try {
    JSONPath({ path: p, json: PROBE, wrap: false });
  } catch (err) {
    return `invalid JSONPath "${path}": ${(err as Error).message}`;
  }
  return undefined;
}
