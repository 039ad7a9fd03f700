/**
 * The stand-in agent (support/acp-agent.ts) inside the agents' sandbox: it is a Node script of this
 * repository, so its sandbox must be granted the repository (read-only) and its log folder (writable),
 * as a user grants an agent installed under their home (`agent.read_only`, `agent.read_write`).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (dist/ and node_modules/ below it). */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/** The config lines (under `agent:`) that let the stand-in run in its sandbox and write its log in `logDir`. */
export function standinGrants(logDir: string): string {
  const readOnly = [REPO, realpathSync(`${REPO}/node_modules`)];
  return `  read_only: ${JSON.stringify(readOnly)}\n  read_write: ${JSON.stringify([logDir])}\n`;
}
