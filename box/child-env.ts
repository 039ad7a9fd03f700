/**
 * The environment of a child a box starts (an ACP agent): an allowlist, never a copy of the box's own.
 * A box holds its token digest, maybe gpucloud credentials and AI keys; an agent gets the basics a
 * program needs to run (PATH, HOME, locale, temp dir, proxy settings) plus exactly the secrets its
 * catalogue entry names, and nothing else — no gpucloud or AI keys of other providers, no GitHub token.
 *
 * (Until the shared default-deny helper of engine/process/ exists; then this delegates to it.)
 */
const BASICS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'NO_COLOR', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS'];
const LOCALE = /^LC_[A-Z]+$/;

export function childEnvironment(env: Record<string, string | undefined>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (BASICS.includes(k) || LOCALE.test(k) || secrets.includes(k)) out[k] = v;
  }
  return out;
}
