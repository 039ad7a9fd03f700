/** cloud_b's part of the config file: `infra.cloud_b.project_id`, the project its steps name. */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudBInfraSchema = optionalStrings('project_id');

declare module '../../../schemas/config.js' {
  interface InfraProviderSections {
    cloud_b?: z.infer<typeof CloudBInfraSchema>;
  }
}

export const cloudBConfig: ProviderConfigPart = { infra: CloudBInfraSchema };
