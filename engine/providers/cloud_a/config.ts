/**
 * cloud_a's parts of the config file: its environments under `infra.cloud_a` (an aws profile and region
 * each) and its routing keywords under the top-level `cloud_a` (`service_keywords`).
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

/** `infra.cloud_a`: the environments `--profile` and `infra.default_environment` select. */
export const CloudAInfraSchema = z.strictObject({
  environments: z.record(z.string(), z.strictObject({ profile: str().optional(), region: str().optional() })).optional(),
});

/** Top-level `cloud_a` (question routing keywords), separate from `infra.cloud_a`. */
export const CloudAKeywordsConfigSchema = z.strictObject({
  service_keywords: z.record(z.string(), z.array(z.string())).optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    cloud_a?: z.infer<typeof CloudAKeywordsConfigSchema>;
  }
  interface InfraProviderSections {
    cloud_a?: z.infer<typeof CloudAInfraSchema>;
  }
}

export const cloudAConfig: ProviderConfigPart = { sections: { cloud_a: CloudAKeywordsConfigSchema }, infra: CloudAInfraSchema };
