/**
 * The configuration file of this build: the neutral sections (schemas/config.ts) and every manifest row's
 * own (its folder's config.ts), composed into one strict root, so a new provider's section is its folder's
 * and its row's alone. Unknown keys are still refused or warned about, with "did you mean" from the
 * composed root (engine/core/config/load.ts does the reading; this hands it the schema).
 *
 * Composed on first use, from the rows known then (a row added at run time counts from the next read):
 * a command without a config file never loads zod or a provider's config module. The schema and the
 * rows' parts are imported (`import()`), so reading a config file is asynchronous.
 */
import type { ConfigSchemaType } from '../../schemas/config.js';
import { loadConfigWith, parseConfigTextWith, type LoadConfigOptions, type LoadedConfig } from '../core/config/load.js';
import type { ConfigRenames } from '../core/config/migrate.js';
import type { Config } from '../../schemas/config.js';
import { PROVIDERS } from './index.js';

let composed: { rows: number; schema: ConfigSchemaType } | undefined;

/** The strict root of the config file for this build's providers. */
export async function configSchema(): Promise<ConfigSchemaType> {
  const rows = PROVIDERS.manifest;
  if (composed?.rows !== rows.length) {
    const { composeConfigSchema } = await import('../../schemas/config.js');
    const parts = await Promise.all(rows.flatMap((row) => (row.config ? [row.config().then((part) => ({ provider: row.name, part }))] : [])));
    composed = { rows: rows.length, schema: composeConfigSchema(parts) };
  }
  return composed.schema;
}

/**
 * The original tool's names of the config's sections (issue 39 §2), from the manifest's `formerly` rows:
 * a row's former name renames its own section (`verda:` → `gpucloud:`, `aws:` → `cloud_a:`) and its
 * `infra` block (`infra.aws` → `infra.cloud_a`), whichever of the two its config part has; its
 * `formerly.keys` rename keys inside its section.
 */
export async function configRenames(): Promise<ConfigRenames> {
  const sections = new Map<string, string>();
  const infra = new Map<string, string>();
  const keys = new Map<string, ReadonlyMap<string, string>>();
  for (const row of PROVIDERS.manifest) {
    if (!row.formerly || !row.config) continue;
    const part = await row.config();
    if (part.sections && row.name in part.sections) sections.set(row.formerly.name, row.name);
    if (part.infra) infra.set(row.formerly.name, row.name);
    if (row.formerly.keys) keys.set(row.name, new Map(Object.entries(row.formerly.keys)));
  }
  return { sections, infra, keys };
}

/** Loads `~/.assistant.yaml` (or `--config <path>`) against this build's schema. */
export function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  return loadConfigWith(configSchema, options, configRenames);
}

/** Parses config text against this build's schema (`file` is only used in messages). */
export function parseConfigText(text: string, file: string): Promise<{ config: Config; warnings: string[]; holdsSecrets: boolean }> {
  return parseConfigTextWith(configSchema, text, file, configRenames);
}

