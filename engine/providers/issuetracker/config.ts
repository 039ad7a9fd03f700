/**
 * issuetracker's section of the config file (`issuetracker:`): its API key, workspace, default team and
 * the GraphQL endpoint's origin (`base_url`; default https://api.linear.app).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const IssueTrackerConfigSchema = optionalStrings('api_key', 'workspace_id', 'default_team', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    issuetracker?: z.infer<typeof IssueTrackerConfigSchema>;
  }
}

export const issuetrackerConfig: ProviderConfigPart = { sections: { issuetracker: IssueTrackerConfigSchema } };
