/**
 * cloud_b's part of the config file: `infra.cloud_b.project_id`, the project its steps name, and
 * `billing_export_table` (`project.dataset.table`), the Cloud Billing export `cost --provider cloud_b` reads.
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const CloudBInfraSchema = optionalStrings('project_id', 'billing_export_table');

declare module '../../../schemas/config.js' {
  interface InfraProviderSections {
    cloud_b?: z.infer<typeof CloudBInfraSchema>;
  }
}

export const cloudBConfig: ProviderConfigPart = { infra: CloudBInfraSchema };
