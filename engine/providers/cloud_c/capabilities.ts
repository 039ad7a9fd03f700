/**
 * What Azure (cloud_c) can do above running steps: routing words, context reads and answers from its read
 * catalogue, its bill (cost.ts) and where its CLI's login comes from (credentials.ts). A module of its own so that choosing
 * providers for a question loads none of the step code (engine/providers/index.ts loads this, the
 * provider module holds the same object).
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { cliCapabilities } from '../../core/kits/cli/capabilities.js';
import { cloudCBilled } from './cost.js';
import { cloudCCredentials } from './credentials.js';
import { AZ_CATALOGUE } from './reads.js';

export const cloudCCapabilities: ProviderCapabilities = {
  ...cliCapabilities({
    provider: 'cloud_c',
    label: 'the Azure subscription (cloud_c)',
    names: ['azure', 'microsoft azure'],
    specific: ['aks', 'blob storage', 'cosmos db', 'cosmosdb', 'resource group', 'resource groups', 'app service', 'azure functions', 'entra', 'key vault'],
    catalogue: AZ_CATALOGUE,
  }),
  // Its bill from Cost Management's query API (Azure bills afterwards: no balance, no runway).
  cost: { billed: cloudCBilled },
  credentials: cloudCCredentials,
};
