/**
 * cloud_b's part of the config file: `infra.cloud_b.project_id`, the project its steps name.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudBInfraSchema = z.strictObject({ project_id: str().optional() });

declare module '../../../schemas/config.js' {
  interface InfraProviderSections {
    cloud_b?: z.infer<typeof CloudBInfraSchema>;
  }
}

export const cloudBConfig: ProviderConfigPart = { infra: CloudBInfraSchema };
