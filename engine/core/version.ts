import { readFileSync } from 'node:fs';

let version: string | undefined;

/** The package version (dist/engine/core/version.js → package.json), read once on first use. */
export function assistantVersion(): string {
  return (version ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
}
