/** Request-body helpers that fail with the API's 400 `invalid_request` messages. */
import { badRequest } from './http.js';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asObject(body: unknown): Obj {
  if (!isObj(body)) throw badRequest('Request body must be a JSON object');
  return body;
}

/** Absent or null. */
export function missing(v: unknown): boolean {
  return v === undefined || v === null;
}

export function reqString(b: Obj, field: string, opts: { allowEmpty?: boolean; max?: number; label?: string } = {}): string {
  const label = opts.label ?? field;
  const v = b[field];
  if (missing(v)) throw badRequest(`${label} is required`);
  if (typeof v !== 'string') throw badRequest(`${label} must be a string`);
  if (!opts.allowEmpty && v.trim() === '') throw badRequest(`${label} should not be empty`);
  if (opts.max !== undefined && v.length > opts.max)
    throw badRequest(`${label} must be shorter than or equal to ${opts.max} characters`);
  return v;
}

export function optString(b: Obj, field: string, label = field): string | undefined {
  const v = b[field];
  if (missing(v)) return undefined;
  if (typeof v !== 'string') throw badRequest(`${label} must be a string`);
  return v;
}

export function optBool(b: Obj, field: string, label = field): boolean | undefined {
  const v = b[field];
  if (missing(v)) return undefined;
  if (typeof v !== 'boolean') throw badRequest(`${label} must be a boolean value`);
  return v;
}

export function reqInt(b: Obj, field: string, opts: { min?: number; max?: number; label?: string } = {}): number {
  const label = opts.label ?? field;
  const v = b[field];
  if (missing(v)) throw badRequest(`${label} is required`);
  return checkInt(v, label, opts);
}

export function optInt(b: Obj, field: string, opts: { min?: number; max?: number; label?: string } = {}): number | undefined {
  const v = b[field];
  if (missing(v)) return undefined;
  return checkInt(v, opts.label ?? field, opts);
}

function checkInt(v: unknown, label: string, opts: { min?: number; max?: number }): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${label} must be an integer number`);
  if (opts.min !== undefined && v < opts.min) throw badRequest(`${label} must not be less than ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) throw badRequest(`${label} must not be greater than ${opts.max}`);
  return v;
}

/** A string or an array of strings (ids); absent → []. */
export function stringList(v: unknown, label: string): string[] {
  if (missing(v)) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw badRequest(`${label} must be a string or an array of strings`);
}

export function optArray(b: Obj, field: string, label = field): unknown[] | undefined {
  const v = b[field];
  if (missing(v)) return undefined;
  if (!Array.isArray(v)) throw badRequest(`${label} must be an array`);
  return v;
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[], label: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    throw badRequest(`${label} must be one of the following values: ${allowed.join(', ')}`);
  return v as T;
}

/** Kubernetes-style slug used for deployment names. */
export const SLUG_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
