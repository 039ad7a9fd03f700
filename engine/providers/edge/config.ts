/**
 * edge's section of the config file (`edge:`): its API token, account and default zone.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const EdgeConfigSchema = z.strictObject({
  api_token: str().optional(),
  account_id: str().optional(),
  default_zone: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_EDGE_BASE_URL. */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    edge?: z.infer<typeof EdgeConfigSchema>;
  }
}

export const edgeConfig: ProviderConfigPart = { sections: { edge: EdgeConfigSchema } };
