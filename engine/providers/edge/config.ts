/**
 * edge's section of the config file (`edge:`): its API token, account, default zone and another API
 * address (`base_url`, or ASSISTANT_EDGE_BASE_URL).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const EdgeConfigSchema = optionalStrings('api_token', 'account_id', 'default_zone', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    edge?: z.infer<typeof EdgeConfigSchema>;
  }
}

export const edgeConfig: ProviderConfigPart = { sections: { edge: EdgeConfigSchema } };
