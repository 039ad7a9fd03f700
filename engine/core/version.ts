import { readFileSync } from 'node:fs';

/** The version, written in by the bundler (scripts/bundle.mjs); undeclared in tsc's dist/. */
declare const ASSISTANT_BUNDLED_VERSION: string | undefined;

let version: string | undefined;

/** The package version (dist/engine/core/version.js → package.json), read once on first use. */
export function assistantVersion(): string {
  if (typeof ASSISTANT_BUNDLED_VERSION === 'string') return ASSISTANT_BUNDLED_VERSION;
  return (version ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
}
