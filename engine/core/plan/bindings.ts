import { PLACEHOLDER_PATTERN } from '../../../schemas/plan-bindings.js';

/** Not global (`test` keeps no state between calls, unlike the shared `g` pattern). */
const ANY_PLACEHOLDER = new RegExp(PLACEHOLDER_PATTERN.source);

/** Whether a value holds a `<NAME>` placeholder anywhere, i.e. is only known at run time. */
export function hasPlaceholder(text: string): boolean {
  return ANY_PLACEHOLDER.test(text);
}

/** Every `<NAME>` placeholder in a string, in order of appearance. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_PATTERN)].map((m) => m[1]!);
}

/** Replaces placeholders in a URL path; values are URL-encoded so a `/` in a value cannot change the route. */
export function substitutePath(path: string, bindings: Record<string, string>): string {
  return path.replace(PLACEHOLDER_PATTERN, (whole, name: string) =>
    name in bindings ? encodeURIComponent(bindings[name]!) : whole,
  );
}

/**
 * Replaces placeholders in a JSON body. Placeholders live inside JSON strings, so each value is
 * inserted JSON-escaped (quotes, backslashes, control characters) and the body stays valid JSON.
 */
export function substituteBody(body: string, bindings: Record<string, string>): string {
  return body.replace(PLACEHOLDER_PATTERN, (whole, name: string) =>
    name in bindings ? JSON.stringify(bindings[name]!).slice(1, -1) : whole,
  );
}

/**
 * Replaces placeholders in the strings of a parsed value (a canonical request's body), as
 * `substituteBody` does in its text: what a reader of the request sees once the values are known.
 */
export function substituteValue(value: unknown, bindings: Record<string, string>): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in bindings ? bindings[name]! : whole));
  if (Array.isArray(value)) return value.map((v) => substituteValue(v, bindings));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteValue(v, bindings)]));
  return value;
}
