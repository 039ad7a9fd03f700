/**
 * vps_a's section of the config file (`vps_a:`): its API token and another endpoint (`base_url`, or
 * ASSISTANT_VPS_A_BASE_URL).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const VpsAConfigSchema = optionalStrings('api_token', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    vps_a?: z.infer<typeof VpsAConfigSchema>;
  }
}

export const vpsAConfig: ProviderConfigPart = { sections: { vps_a: VpsAConfigSchema } };
