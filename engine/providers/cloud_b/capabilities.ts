/**
 * What Google Cloud (cloud_b) can do above running steps: routing words, context reads and answers from its read
 * catalogue, its bill (cost.ts) and where its CLI's login comes from (credentials.ts). A module of its own so that choosing
 * providers for a question loads none of the step code (engine/providers/index.ts loads this, the
 * provider module holds the same object).
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { cliCapabilities } from '../../core/kits/cli/capabilities.js';
import { cloudBBilled } from './cost.js';
import { cloudBCredentials } from './credentials.js';
import { GCLOUD_CATALOGUE } from './reads.js';

export const cloudBCapabilities: ProviderCapabilities = {
  ...cliCapabilities({
    provider: 'cloud_b',
    label: 'the Google Cloud project (cloud_b)',
    names: ['gcp', 'google cloud', 'google cloud platform'],
    specific: ['gce', 'compute engine', 'gke', 'cloud run', 'bigquery', 'gcs', 'cloud functions', 'cloud sql', 'pubsub', 'pub/sub', 'app engine', 'gcloud'],
    catalogue: GCLOUD_CATALOGUE,
  }),
  // Its bill from the Cloud Billing export in BigQuery (Google bills afterwards: no balance, no runway).
  cost: { billed: cloudBBilled },
  credentials: cloudBCredentials,
};
