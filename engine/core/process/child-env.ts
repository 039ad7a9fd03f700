/**
 * The environment a tool's child gets (onboarding's probes and installs, a provider's login check): the
 * shared allowlist of env.ts for a program of the user's session. A version probe, a login check (`aws sts get-caller-identity`, `gh
 * auth status`) or a package manager must not see the gpucloud secret, AI provider keys, the backend
 * key or a GitHub token it was not meant to use (DESIGN §7, default deny). Each caller names the extra
 * variables its tool needs (its own credentials and settings), by exact name or by prefix (`AWS_`).
 */
import { childEnvironment as allowlisted } from './env.js';

export interface ChildEnvAllow {
  /** Exact variable names the tool needs (its own credentials, e.g. `GH_TOKEN` for `gh`). */
  names?: readonly string[];
  /** Name prefixes the tool reads (`AWS_`, `CLOUDSDK_`); a prefix never lets a secret-looking name through. */
  prefixes?: readonly string[];
  /** Values set on top (no pager, no prompts); they win over the allowlisted ones. */
  set?: Record<string, string>;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The allowlisted subset of `env` for a child, plus `allow.set`. */
export function childEnvironment(env: Record<string, string | undefined>, allow: ChildEnvAllow = {}): Record<string, string> {
  return allowlisted(env, {
    session: true,
    grant: allow.names,
    allow: (allow.prefixes ?? []).map((p) => new RegExp(`^${escape(p)}`)),
    set: allow.set,
  });
}
