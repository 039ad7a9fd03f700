/**
 * repohost's section of the config file (`repohost:`): its token, the repository questions are about by
 * default, and its API's address.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const RepoHostConfigSchema = z.strictObject({
  token: str().optional(),
  owner: str().optional(),
  repo: str().optional(),
  /** The API's address (GitHub Enterprise: https://host/api/v3); default https://api.github.com. */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    repohost?: z.infer<typeof RepoHostConfigSchema>;
  }
}

export const repohostConfig: ProviderConfigPart = { sections: { repohost: RepoHostConfigSchema } };
