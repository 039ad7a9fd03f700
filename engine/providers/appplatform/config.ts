/**
 * appplatform's section of the config file (`appplatform:`): its API token and workspace.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const AppPlatformConfigSchema = z.strictObject({
  api_token: str().optional(),
  workspace_id: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_APPPLATFORM_BASE_URL. */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    appplatform?: z.infer<typeof AppPlatformConfigSchema>;
  }
}

export const appPlatformConfig: ProviderConfigPart = { sections: { appplatform: AppPlatformConfigSchema } };
