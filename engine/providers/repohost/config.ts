/**
 * repohost's section of the config file (`repohost:`): its token, the repository questions are about by
 * default, and the API's address (`base_url`; GitHub Enterprise: https://host/api/v3; default
 * https://api.github.com).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const RepoHostConfigSchema = optionalStrings('token', 'owner', 'repo', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    repohost?: z.infer<typeof RepoHostConfigSchema>;
  }
}

export const repohostConfig: ProviderConfigPart = { sections: { repohost: RepoHostConfigSchema } };
