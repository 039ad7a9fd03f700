/**
 * Shared by the tests of the HTTP integrations (repohost, errtracker, issuetracker…): a HOME with a
 * config file, removed after the test file, and the environment that points the CLI at a fake.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDir, tempDir } from './temp.js';

const made: string[] = [];

/** A fresh HOME holding `~/.assistant.yaml` with `config` (mode 0600); removed by `removeHomes` (or at exit). */
export function homeWithConfig(config: string, prefix = 'assistant-integration-'): string {
  const home = tempDir(prefix);
  made.push(home);
  writeFileSync(join(home, '.assistant.yaml'), config || '{}\n', { mode: 0o600 });
  return home;
}

/** Removes every HOME made by this test file (call from `test.after`). */
export function removeHomes(): void {
  for (const h of made.splice(0)) removeTempDir(h);
}

/** Every secret given must be absent from every text (stdout, stderr, files, MCP results). */
export function assertNoSecret(texts: readonly string[], secrets: readonly string[]): void {
  for (const s of secrets) for (const t of texts) if (t.includes(s)) throw new Error(`a secret (${s.slice(0, 4)}…) appeared in the output:\n${t.slice(0, 2000)}`);
}
