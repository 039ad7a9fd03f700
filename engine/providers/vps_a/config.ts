/**
 * vps_a's section of the config file (`vps_a:`): its API token; `base_url` (or ASSISTANT_VPS_A_BASE_URL) for another endpoint.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const VpsAConfigSchema = z.strictObject({ api_token: str().optional(), base_url: str().optional() });

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    vps_a?: z.infer<typeof VpsAConfigSchema>;
  }
}

export const vpsAConfig: ProviderConfigPart = { sections: { vps_a: VpsAConfigSchema } };
