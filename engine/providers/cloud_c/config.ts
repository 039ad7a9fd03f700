/**
 * cloud_c's part of the config file: `infra.cloud_c.subscription_id`, the subscription its steps name.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudCInfraSchema = z.strictObject({ subscription_id: str().optional() });

declare module '../../../schemas/config.js' {
  interface InfraProviderSections {
    cloud_c?: z.infer<typeof CloudCInfraSchema>;
  }
}

export const cloudCConfig: ProviderConfigPart = { infra: CloudCInfraSchema };
