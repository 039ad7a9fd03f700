/**
 * terraform's section of the config file (`terraform:`): its workspaces (a path each) and the default one.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const TerraformConfigSchema = z.strictObject({
  default_workspace: str().optional(),
  workspaces: z.record(z.string(), z.strictObject({ path: str() })).optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    terraform?: z.infer<typeof TerraformConfigSchema>;
  }
}

export const terraformConfig: ProviderConfigPart = { sections: { terraform: TerraformConfigSchema } };
