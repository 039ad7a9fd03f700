/**
 * vps_b's section of the config file (`vps_b:`): its API token and another endpoint (`base_url`, or
 * ASSISTANT_VPS_B_BASE_URL).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const VpsBConfigSchema = optionalStrings('api_token', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    vps_b?: z.infer<typeof VpsBConfigSchema>;
  }
}

export const vpsBConfig: ProviderConfigPart = { sections: { vps_b: VpsBConfigSchema } };
