/**
 * The configuration file of this build: the neutral sections (schemas/config.ts) and every manifest row's
 * own (its folder's config.ts), composed into one strict root, so a new provider's section is its folder's
 * and its row's alone. Unknown keys are still refused or warned about, with "did you mean" from the
 * composed root (engine/core/config/load.ts does the reading; this hands it the schema).
 *
 * Composed on first use, from the rows known then (a row added at run time counts from the next read):
 * a command without a config file never loads zod or a provider's config module.
 */
import { createRequire } from 'node:module';
import type { ConfigSchemaType } from '../../schemas/config.js';
import { loadConfigWith, parseConfigTextWith, type LoadConfigOptions, type LoadedConfig } from '../core/config/load.js';
import type { Config } from '../../schemas/config.js';
import { PROVIDERS } from './index.js';

const require = createRequire(import.meta.url);
let composed: { rows: number; schema: ConfigSchemaType } | undefined;

/** The strict root of the config file for this build's providers. */
export function configSchema(): ConfigSchemaType {
  const rows = PROVIDERS.manifest;
  if (composed?.rows !== rows.length) {
    const { composeConfigSchema } = require('../../schemas/config.js') as typeof import('../../schemas/config.js');
    const parts = rows.flatMap((row) => (row.config ? [{ provider: row.name, part: row.config() }] : []));
    composed = { rows: rows.length, schema: composeConfigSchema(parts) };
  }
  return composed.schema;
}

/** Loads `~/.assistant.yaml` (or `--config <path>`) against this build's schema. */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  return loadConfigWith(configSchema, options);
}

/** Parses config text against this build's schema (`file` is only used in messages). */
export function parseConfigText(text: string, file: string): { config: Config; warnings: string[]; holdsSecrets: boolean } {
  return parseConfigTextWith(configSchema, text, file);
}

