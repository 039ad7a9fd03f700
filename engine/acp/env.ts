/**
 * The environment an external agent process starts with: an allowlist, never the parent's whole
 * environment. It gets what a program needs to run (PATH, HOME, locale, terminal, temp dir) plus what
 * its launch adds on purpose (its model, endpoint and key, and the one AI key variable its own kind
 * reads, when set). No gpucloud secret, no GitHub token, no other provider's AI key reaches it.
 *
 * One function, so the shared allowlist of engine/process/ can replace it in one place.
 */

/** Variables every child may see: how to run programs, where home and temp are, language and terminal. */
const BASE_ALLOWLIST = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'COLORTERM', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'NO_COLOR', 'SystemRoot', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA'];
/** Locale categories (LC_ALL, LC_CTYPE, …) and XDG base directories. */
const BASE_PREFIXES = ['LC_', 'XDG_'];

/**
 * The child's environment: the allowlisted part of `parent`, the variables of `passThrough` that are
 * set in `parent` (the agent's own AI key), then `extra` (its model, endpoint, router key).
 */
export function agentEnvironment(parent: Record<string, string | undefined>, extra: Record<string, string> = {}, passThrough: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (BASE_ALLOWLIST.includes(key) || BASE_PREFIXES.some((p) => key.startsWith(p)) || passThrough.includes(key)) out[key] = value;
  }
  return { ...out, ...extra };
}
