/**
 * The environment of a child a box starts (an ACP agent): the shared allowlist of engine/core/process/env.ts
 * for a program of the session, plus exactly the secrets its catalogue entry names, and nothing else —
 * no gpucloud or AI keys of other providers, no GitHub token.
 */
import { childEnvironment as allowlisted } from '../engine/core/process/env.js';

export function childEnvironment(env: Record<string, string | undefined>, secrets: readonly string[]): Record<string, string> {
  return allowlisted(env, { session: true, grant: secrets });
}
