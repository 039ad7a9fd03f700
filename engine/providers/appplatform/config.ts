/**
 * appplatform's section of the config file (`appplatform:`): its API token, workspace and another API
 * address (`base_url`, or ASSISTANT_APPPLATFORM_BASE_URL).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const AppPlatformConfigSchema = optionalStrings('api_token', 'workspace_id', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    appplatform?: z.infer<typeof AppPlatformConfigSchema>;
  }
}

export const appPlatformConfig: ProviderConfigPart = { sections: { appplatform: AppPlatformConfigSchema } };
