/** cloud_c's part of the config file: `infra.cloud_c.subscription_id`, the subscription its steps name. */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudCInfraSchema = optionalStrings('subscription_id');

declare module '../../../schemas/config.js' {
  interface InfraProviderSections {
    cloud_c?: z.infer<typeof CloudCInfraSchema>;
  }
}

export const cloudCConfig: ProviderConfigPart = { infra: CloudCInfraSchema };
