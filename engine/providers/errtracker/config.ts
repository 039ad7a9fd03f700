/**
 * errtracker's section of the config file (`errtracker:`): its token, organization, default project and host.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const ErrTrackerConfigSchema = z.strictObject({
  auth_token: str().optional(),
  org_slug: str().optional(),
  default_project: str().optional(),
  host: str().optional(),
  /** The API's address; overrides `host` (default https://sentry.io). */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    errtracker?: z.infer<typeof ErrTrackerConfigSchema>;
  }
}

export const errtrackerConfig: ProviderConfigPart = { sections: { errtracker: ErrTrackerConfigSchema } };
