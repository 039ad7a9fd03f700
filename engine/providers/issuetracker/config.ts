/**
 * issuetracker's section of the config file (`issuetracker:`): its API key, workspace and default team.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const IssueTrackerConfigSchema = z.strictObject({
  api_key: str().optional(),
  workspace_id: str().optional(),
  default_team: str().optional(),
  /** The GraphQL endpoint's origin; default https://api.linear.app. */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    issuetracker?: z.infer<typeof IssueTrackerConfigSchema>;
  }
}

export const issuetrackerConfig: ProviderConfigPart = { sections: { issuetracker: IssueTrackerConfigSchema } };
