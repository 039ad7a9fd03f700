/**
 * The environment a child of `onboarding` gets: an allowlist, never a copy of ours. A version probe, a
 * login check (`aws sts get-caller-identity`, `gh auth status`) or a package manager must not see the
 * gpucloud secret, AI provider keys, the backend key or a GitHub token it was not meant to use (DESIGN
 * §7, default deny). Each caller names the extra variables its tool needs (its own credentials and
 * settings), by exact name or by prefix (`AWS_`).
 *
 * Kept to this one function so the lead can swap it for the shared allowlist module (engine/process/)
 * when that lands.
 */

/** What every child needs to run at all: where programs are, who and where the user is, locale, proxies. */
const BASE_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TERM',
  'NO_COLOR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  // Proxies and CA bundles: a corporate laptop reaches nothing without them.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  // Windows: programs do not start without these.
  'SYSTEMROOT',
  'SystemRoot',
  'WINDIR',
  'COMSPEC',
  'ComSpec',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'PROGRAMDATA',
  'ProgramFiles',
  'ProgramFiles(x86)',
  // Version managers whose shims stand where the tools are (pyenv's aws, asdf's terraform).
  'NVM_DIR',
  'VOLTA_HOME',
];
const BASE_PREFIXES = ['LC_', 'PYENV_', 'ASDF_', 'MISE_'];

/** Names that hold our own or other tools' secrets: never passed, even when a prefix would let them through. */
const NEVER = /^(GPUCLOUD_|ASSISTANT_)|(_API_KEY|_API_TOKEN|_AUTH_TOKEN|_INTEGRATION_TOKEN|_ROUTER_API_KEY)$/;

export interface ChildEnvAllow {
  /** Exact variable names the tool needs (its own credentials, e.g. `GH_TOKEN` for `gh`). */
  names?: readonly string[];
  /** Name prefixes the tool reads (`AWS_`, `CLOUDSDK_`). */
  prefixes?: readonly string[];
  /** Values set on top (no pager, no prompts); they win over the allowlisted ones. */
  set?: Record<string, string>;
}

/** The allowlisted subset of `env` for a child, plus `allow.set`. */
export function childEnvironment(env: Record<string, string | undefined>, allow: ChildEnvAllow = {}): Record<string, string> {
  const names = new Set([...BASE_NAMES, ...(allow.names ?? [])]);
  const prefixes = [...BASE_PREFIXES, ...(allow.prefixes ?? [])];
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const named = names.has(key);
    if (!named && !prefixes.some((p) => key.startsWith(p))) continue;
    // An exact name is a deliberate choice of the caller (a tool's own token); a prefix never lets a secret of ours through.
    if (!named && NEVER.test(key)) continue;
    if (/^(GPUCLOUD_|ASSISTANT_)/.test(key)) continue;
    out[key] = value;
  }
  return { ...out, ...(allow.set ?? {}) };
}
