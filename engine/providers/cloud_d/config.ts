/**
 * cloud_d's section of the config file (`cloud_d:`): its API keys, region and endpoint.
 */
import { z } from 'zod';
import { CLOUD_D_DEFAULT_REGION, str, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudDConfigSchema = z.strictObject({
  secret_id: str().optional(),
  secret_key: str().optional(),
  region: str().default(CLOUD_D_DEFAULT_REGION),
  /** Every service at this URL instead of https://<service>.tencentcloudapi.com (or ASSISTANT_CLOUD_D_BASE_URL). */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    cloud_d?: z.infer<typeof CloudDConfigSchema>;
  }
}

export const cloudDConfig: ProviderConfigPart = { sections: { cloud_d: CloudDConfigSchema } };
