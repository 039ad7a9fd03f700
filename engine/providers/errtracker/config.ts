/**
 * errtracker's section of the config file (`errtracker:`): its token, organization, default project and
 * host (`base_url` overrides `host`; default https://sentry.io).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const ErrTrackerConfigSchema = optionalStrings('auth_token', 'org_slug', 'default_project', 'host', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    errtracker?: z.infer<typeof ErrTrackerConfigSchema>;
  }
}

export const errtrackerConfig: ProviderConfigPart = { sections: { errtracker: ErrTrackerConfigSchema } };
