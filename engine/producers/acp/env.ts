/**
 * The environment an external agent process starts with: the shared allowlist of engine/core/process/env.ts
 * for a program of the user's session (PATH, HOME, locale, terminal, temp dir, proxies) plus what its
 * launch adds on purpose: its model, endpoint and key, and the one AI key variable its own kind reads,
 * when set. No gpucloud secret, no GitHub token, no other provider's AI key reaches it.
 */
import { childEnvironment } from '../../core/process/env.js';

/**
 * The child's environment: the allowlisted part of `parent`, the variables of `passThrough` that are
 * set in `parent` (the agent's own AI key), then `extra` (its model, endpoint, router key).
 */
export function agentEnvironment(parent: Record<string, string | undefined>, extra: Record<string, string> = {}, passThrough: readonly string[] = []): Record<string, string> {
  return childEnvironment(parent, { session: true, grant: passThrough, set: extra });
}
