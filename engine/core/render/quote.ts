/**
 * A value from the user, a kubeconfig or a plan, quoted for a message: JSON escaping shows control
 * characters as `\u001b` instead of letting them recolour or move the terminal (a kubeconfig fetched from
 * a host, or a pasted pod name, may carry escape sequences).
 */
export function q(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

/** Control characters as `\u001b`-style escapes, without quotes (lists of names). */
export function printable(value: unknown): string {
  return String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
