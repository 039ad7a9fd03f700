/**
 * The environment a child program gets (DESIGN §7, default deny): an allowlist, never a copy of ours.
 *
 * Our own environment holds secrets no child needs: AI provider keys, the gpucloud client secret,
 * GitHub tokens, the assistant's own settings. A child started for a plan step (a cloud CLI), for a
 * kubeconfig credential plugin, for onboarding or a box gets only what it is known to need: the basics
 * every program needs (PATH, locale, time zone, proxy and CA settings), the variables its own
 * provider's credentials live in, and what the caller sets explicitly (HOME of a scratch directory).
 * A variable on the deny list is dropped even when an allow rule would admit it, so a broad provider
 * rule can never let an AI key or a token through by accident.
 *
 *   childEnvironment(process.env, { allow: AWS_ENV, set: { HOME: scratch } })
 *
 * `withoutSecrets` is for the rare child that must see the user's own environment (a credential plugin
 * the user configured in their kubeconfig, such as `aws eks get-token`): everything but the deny list.
 */

/** What an allow rule is: an exact variable name, or a pattern (`/^AWS_ENDPOINT_URL_/`). */
export type EnvRule = string | RegExp;

/** Variables every program may need and that carry no secret of ours. */
export const BASE_ENV: readonly EnvRule[] = [
  'PATH',
  'LANG',
  'LANGUAGE',
  /^LC_[A-Z]+$/,
  'TZ',
  'TERM',
  // Corporate networks: proxies and extra CA bundles are the user's network, not a credential of ours.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  // Windows needs these to start anything at all.
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'PATHEXT',
];

/**
 * Never passed to a child, whatever its allow rules say: AI provider keys (every well-known name, and
 * any `*_API_KEY`), GitHub and repository-host tokens, the gpucloud credentials and the assistant's own
 * settings (ASSISTANT_* holds backend tokens and the Redis URL with its password).
 */
export const DENIED_ENV: readonly RegExp[] = [
  /^GPUCLOUD_/,
  /^ASSISTANT_/,
  /^(OPENAI|ANTHROPIC|GEMINI|GOOGLE|DEEPSEEK|CO|COHERE|MINIMAX|MISTRAL|GROQ|TOGETHER|OPENROUTER|XAI|PERPLEXITY|HF|HUGGINGFACE(?:HUB)?)_(API_)?(KEY|TOKEN)$/,
  /_API_KEY$/,
  /^(GITHUB|GH|GH_ENTERPRISE|GITHUB_ENTERPRISE|REPOHOST|GITLAB|GL|BITBUCKET)_TOKEN$/,
  /^GITHUB_PAT/,
  // The integrations' tokens (APPPLATFORM_API_TOKEN, ERRTRACKER_AUTH_TOKEN, NOTES_INTEGRATION_TOKEN, …).
  /_(API|AUTH|INTEGRATION)_TOKEN$/,
  // A bedrock API key is an AI key even though it sits among the AWS variables.
  /^AWS_BEARER_TOKEN_/,
];

/** Ours alone: not even a caller's explicit grant passes these to a child. */
const OWN_SECRETS = /^(GPUCLOUD_|ASSISTANT_)/;

/**
 * What a program started in the user's own session needs besides BASE_ENV (an ACP agent, a box's
 * agent, onboarding's version probes and installers): who and where the user is, temp and config
 * directories, version-manager shims. Plan steps never get these: they run in a scratch HOME.
 */
export const SESSION_ENV: readonly EnvRule[] = [
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TEMP',
  'TMP',
  'COLORTERM',
  'NO_COLOR',
  'NODE_EXTRA_CA_CERTS',
  /^XDG_[A-Z_]+$/,
  'WINDIR',
  'ComSpec',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'PROGRAMDATA',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'NVM_DIR',
  'VOLTA_HOME',
  /^(PYENV|ASDF|MISE)_/,
];

export function isDeniedEnv(name: string): boolean {
  return DENIED_ENV.some((re) => re.test(name));
}

function allowed(name: string, rules: readonly EnvRule[]): boolean {
  return rules.some((r) => (typeof r === 'string' ? r === name : r.test(name)));
}

export interface ChildEnvOptions {
  /** The child's own variables (its provider's credentials and settings), on top of BASE_ENV. */
  allow?: readonly EnvRule[];
  /**
   * Exact names the child is meant to have although they look like secrets (an agent's own AI key,
   * `gh`'s GH_TOKEN): a deliberate choice of the caller, never a pattern. GPUCLOUD_* and ASSISTANT_*
   * are never granted.
   */
  grant?: readonly string[];
  /** A program of the user's own session (SESSION_ENV, the real HOME), not a plan step. */
  session?: boolean;
  /** Set explicitly after the allowlist (HOME of a scratch directory, the CLI's config file variables). */
  set?: Record<string, string>;
}

/**
 * The environment for a child: BASE_ENV and `allow` taken from `from` (minus DENIED_ENV), then `set`.
 * A plan step's child never inherits HOME: it gets one through `set` (a scratch directory), so no
 * dotfile of the user (aliases, plugins, credentials of other tools) is read by accident; a program of
 * the user's own session (`session: true`) keeps it.
 */
export function childEnvironment(from: Record<string, string | undefined>, opts: ChildEnvOptions = {}): Record<string, string> {
  const rules = [...BASE_ENV, ...(opts.session ? SESSION_ENV : []), ...(opts.allow ?? [])];
  const granted = new Set(opts.grant ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined || OWN_SECRETS.test(name)) continue;
    if (granted.has(name)) {
      out[name] = value;
      continue;
    }
    if (!opts.session && (name === 'HOME' || name === 'USERPROFILE')) continue;
    if (isDeniedEnv(name) || !allowed(name, rules)) continue;
    out[name] = value;
  }
  for (const [name, value] of Object.entries(opts.set ?? {})) out[name] = value;
  return out;
}

/** The user's environment without what no child may see (DENIED_ENV): for credential plugins the user configured. */
export function withoutSecrets(from: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) if (value !== undefined && !isDeniedEnv(name)) out[name] = value;
  return out;
}
